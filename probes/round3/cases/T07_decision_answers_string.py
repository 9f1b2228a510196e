# Area 5 (stores): a decision's answers is a string where a list is expected
from probe import *
from hostile_store import check
check(["UPDATE records SET data=json_set(data,'$.answers','Yes') WHERE kind='decision'"], "t07")
