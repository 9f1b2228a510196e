# Area 5 (stores): a decision's answer is true and correct is 1
from probe import *
from hostile_store import check
check(["UPDATE records SET data=json_set(data,'$.answer',json('true'),'$.correct',1) WHERE kind='decision'"], "t30")
