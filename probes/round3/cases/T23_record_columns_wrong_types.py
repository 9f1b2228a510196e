# Area 5 (stores): a record's assignment is 5, answer_order a blob, agent a float
from probe import *
from hostile_store import check
check(["UPDATE records SET assignment=5, answer_order=x'00ff', agent=1.5"], "t23")
