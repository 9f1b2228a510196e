"""mutate.py STORE TABLE WHAT: set hostile but valid values in one field of every row."""
import json, sqlite3, sys
db, table, what = sys.argv[1:4]
c = sqlite3.connect(db)
def upd(col, fn):
    rows = c.execute(f"select rowid, {col} from {table}").fetchall()
    for rid, v in rows:
        c.execute(f"update {table} set {col}=? where rowid=?", (fn(v), rid))
def jpatch(col, key, val):
    def fn(v):
        d = json.loads(v)
        if isinstance(d, dict):
            d[key] = val
        return json.dumps(d)
    upd(col, fn)
if what.startswith("data:"):          # data:KEY=JSONVALUE in the records' data
    k, v = what[5:].split("=", 1); jpatch("data", k, json.loads(v))
elif what.startswith("col:"):         # col:COLUMN=SQLVALUE (json-parsed python value)
    k, v = what[4:].split("=", 1); upd(k, lambda _: json.loads(v))
elif what.startswith("qdata:"):
    k, v = what[6:].split("=", 1); jpatch("data", k, json.loads(v))
c.commit()
