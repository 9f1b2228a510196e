# Area 5 (stores): a decision's extra is a string where a dict is expected
from probe import *
from hostile_store import check
check(["UPDATE records SET data=json_set(data,'$.extra','not a dict') WHERE kind='decision'"], "t06")
