# Area 5 (stores): a decision's answer is the string "1" (not an int)
from probe import *
from hostile_store import check
check(["UPDATE records SET data=json_set(data,'$.answer','1') WHERE kind='decision'"], "t01")
