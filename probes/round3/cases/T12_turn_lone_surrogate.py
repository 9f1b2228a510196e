# Area 5 (stores): a turn's shown text holds a lone surrogate escape (\\ud800)
from probe import *
from hostile_store import check
check(["UPDATE records SET data=replace(data,'\"shown\":\"','\"shown\":\"\\ud800 ') WHERE kind='turn'"], "t12")
