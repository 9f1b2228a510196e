# Area 5 (stores): the stored identity is a JSON list; then a string
from probe import *
from hostile_store import check
check(["UPDATE meta SET value='[1,2]' WHERE key='identity'"], "t22")
