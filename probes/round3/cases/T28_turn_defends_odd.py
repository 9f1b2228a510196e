# Area 5 (stores): a turn's defends is "A" or 7; speaker a list
from probe import *
from hostile_store import check
check(["UPDATE records SET data=json_set(data,'$.defends','A') WHERE kind='turn' AND id%2=0", "UPDATE records SET data=json_set(data,'$.defends',7,'$.speaker',json('[1]')) WHERE kind='turn' AND id%2=1"], "t28")
