# Area 5 (stores): a stored call's response is a JSON list, not an object
from probe import *
from hostile_store import check
check(["UPDATE calls SET response='[1,2,3]'", "DELETE FROM records WHERE job_key IN (SELECT job_key FROM records WHERE kind='decision' LIMIT 3)"], "t16")
