# Area 5 (stores): a stored question's question is an object, correct is null
from probe import *
from hostile_store import check
check(["UPDATE questions SET data=json_set(data,'$.question',json('{\"a\":1}'),'$.correct',NULL)"], "t14")
