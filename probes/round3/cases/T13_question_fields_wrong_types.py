# Area 5 (stores): a stored question's article is 5, images a string, meta a list
from probe import *
from hostile_store import check
check(["UPDATE questions SET data=json_set(data,'$.article',5,'$.images','img','$.meta',json('[1]'))"], "t13")
