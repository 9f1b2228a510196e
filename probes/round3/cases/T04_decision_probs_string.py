# Area 5 (stores): a decision's probs is a string
from probe import *
from hostile_store import check
check(["UPDATE records SET data=json_set(data,'$.probs','0.5,0.5') WHERE kind='decision'"], "t04")
