# Area 5 (stores): a decision's correct is the string "yes"
from probe import *
from hostile_store import check
check(["UPDATE records SET data=json_set(data,'$.correct','yes') WHERE kind='decision'"], "t03")
