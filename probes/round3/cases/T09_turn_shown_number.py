# Area 5 (stores): a turn's shown and content are numbers
from probe import *
from hostile_store import check
check(["UPDATE records SET data=json_set(data,'$.shown',123,'$.content',456) WHERE kind='turn'"], "t09")
