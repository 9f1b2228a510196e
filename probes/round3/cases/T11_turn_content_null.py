# Area 5 (stores): a turn's content, shown and role are null
from probe import *
from hostile_store import check
check(["UPDATE records SET data=json_set(data,'$.content',NULL,'$.shown',NULL,'$.role',NULL) WHERE kind='turn'"], "t11")
