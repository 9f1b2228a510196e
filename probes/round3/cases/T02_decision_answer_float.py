# Area 5 (stores): a decision's answer is 3.5
from probe import *
from hostile_store import check
check(["UPDATE records SET data=json_set(data,'$.answer',3.5) WHERE kind='decision'"], "t02")
