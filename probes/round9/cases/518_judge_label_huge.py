# area 5: a decision's judge label is 1 MB with control characters
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from storelib import *
store_case("judge_label_huge", "update records set judge=char(27)||'[31m'||hex(zeroblob(500000)) where kind='decision' and id=(select min(id) from records where kind='decision')")
