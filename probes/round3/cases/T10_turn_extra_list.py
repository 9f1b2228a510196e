# Area 5 (stores): a turn's extra is a list; its best_of_n a string
from probe import *
from hostile_store import check
check(["UPDATE records SET data=json_set(data,'$.extra',json('[1,2]')) WHERE kind='turn' AND id%2=0", "UPDATE records SET data=json_set(data,'$.extra.best_of_n','x') WHERE kind='turn' AND id%2=1"], "t10")
