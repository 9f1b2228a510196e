# area 5: a decision's extra is nested 100000 deep
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from storelib import *
def deep(c):
    row = c.execute("select id, data from records where kind='decision' limit 1").fetchone()
    c.execute("update records set data=? where id=?", (row[1][:-1] + ',"extra2":' + "[" * 100000 + "]" * 100000 + "}", row[0]))
store_case("data_deep_nesting", [deep])
