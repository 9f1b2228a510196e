"""storemut.py DB TARGET KEY VALUEJSON
TARGET: decision|turn|question|call|meta|col:<table>.<column>  ; KEY a JSON key (or column for col:)"""
import sqlite3, json, sys
db, target, key, val = sys.argv[1:5]
c = sqlite3.connect(db)
v = json.loads(val) if not val.startswith("RAW:") else val[4:]
def setjson(s):
    d = json.loads(s)
    if isinstance(v, str) and v == "__DEL__": d.pop(key, None)
    else: d[key] = v
    return json.dumps(d) if not (isinstance(v, str) and val.startswith("RAW:")) else json.dumps(d).replace(json.dumps(v), v)
if target in ("decision", "turn"):
    for i, d in c.execute("select id, data from records where kind=?", (target,)).fetchall():
        c.execute("update records set data=? where id=?", (setjson(d), i))
elif target == "question":
    for t, q, d in c.execute("select task, question_id, data from questions").fetchall():
        c.execute("update questions set data=? where task=? and question_id=?", (setjson(d), t, q))
elif target == "call":
    for k, d in c.execute("select key, response from calls").fetchall():
        c.execute("update calls set response=? where key=?", (setjson(d), k))
elif target == "meta":
    for k, d in c.execute("select key, value from meta").fetchall():
        try: c.execute("update meta set value=? where key=?", (setjson(d), k))
        except Exception: pass
elif target.startswith("col:"):
    tbl, col = target[4:].split(".")
    c.execute(f"update {tbl} set {col}=?", (v if not isinstance(v, (list, dict)) else json.dumps(v),))
c.commit()
