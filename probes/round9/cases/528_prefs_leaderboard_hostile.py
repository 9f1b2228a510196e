# area 5: `export --preferences` and `leaderboard` over hostile stores (turn data wrong types, best-of-N extra
# of wrong types, a decision's probs a string): graceful or one line
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from storelib import *
store_case("prefs_leaderboard_hostile", [
    "update records set data=json_set(data,'$.extra',json('{\"samples\":[1,{\"x\":null}],\"scores\":\"abc\",\"best_of_n\":[\"a\"]}'),'$.text',json('[1]')) where kind='turn'",
    "update records set data=json_set(data,'$.probs','high') where kind='decision'"],
    readers=("prefs", "leaderboard", "report"), protocols="debate")
