# Area 5 (stores): a stored call's response texts is a string (the cache a resume reads)
from probe import *
from hostile_store import check
check(["UPDATE calls SET response=json_set(response,'$.texts','Answer: 1')", "DELETE FROM records WHERE job_key IN (SELECT job_key FROM records WHERE kind='decision' LIMIT 3)"], "t15")
