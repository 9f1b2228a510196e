# Area 5 (stores): a stored call's request is not JSON text
from probe import *
from hostile_store import check
check(["UPDATE calls SET request='not json {'"], "t17")
