# Area 5 (stores): a skipped row's count is text
from probe import *
from hostile_store import check
check(["INSERT OR REPLACE INTO skipped VALUES ('boolq','too long','lots')", "INSERT OR REPLACE INTO skipped VALUES (5, x'ff', 1e308)"], "t25")
