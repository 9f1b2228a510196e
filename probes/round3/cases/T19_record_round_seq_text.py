# Area 5 (stores): a record's round and seq columns are text
from probe import *
from hostile_store import check
check(["UPDATE records SET round='first', seq='s' || id WHERE kind='turn'"], "t19")
