# Area 5 (stores): a decision's probs is ["a", {}]
from probe import *
from hostile_store import check
check(["UPDATE records SET data=json_set(data,'$.probs',json('[\"a\",{}]')) WHERE kind='decision'"], "t05")
