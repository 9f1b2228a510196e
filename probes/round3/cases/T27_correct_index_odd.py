# Area 5 (stores): a decision's correct_index is "1" in one, 99 in another; answers has 3 items
from probe import *
from hostile_store import check
check(["UPDATE records SET data=json_set(data,'$.correct_index','1') WHERE kind='decision' AND id%2=0", "UPDATE records SET data=json_set(data,'$.correct_index',99,'$.answers',json('[1,2,3]')) WHERE kind='decision' AND id%2=1"], "t27")
