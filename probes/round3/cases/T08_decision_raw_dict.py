# Area 5 (stores): a decision's raw is an object where text is expected
from probe import *
from hostile_store import check
check(["UPDATE records SET data=json_set(data,'$.raw',json('{\"x\":1}')) WHERE kind='decision'"], "t08")
