# Area 5 (stores): a record's data is a BLOB (the JSON's bytes)
from probe import *
from hostile_store import check
check(["UPDATE records SET data=CAST(data AS BLOB) WHERE id%3=0"], "t20")
