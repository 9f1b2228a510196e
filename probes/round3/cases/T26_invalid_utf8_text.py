# Area 5 (stores): a decision's data TEXT holds invalid UTF-8 bytes (CAST of x'ed a0 80')
from probe import *
from hostile_store import check
check(["UPDATE records SET data=CAST(replace(data,'Answer',CAST(x'eda080' AS TEXT)) AS TEXT) WHERE kind='decision' AND id%2=0"], "t26")
