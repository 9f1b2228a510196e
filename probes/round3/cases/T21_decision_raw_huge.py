# Area 5 (stores): a decision's raw output is 40 MB
from probe import *
from hostile_store import check
check(["UPDATE records SET data=json_set(data,'$.raw',printf('%.40000000c','x')) WHERE id=(SELECT MIN(id) FROM records WHERE kind='decision')"], "t21")
