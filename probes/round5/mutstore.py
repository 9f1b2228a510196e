"""mutstore.py STORE MODE: make a hostile but valid store."""
import sqlite3, sys, json
db, mode = sys.argv[1], sys.argv[2]
c = sqlite3.connect(db)
def upd_data(kind, fn):
    for rid, d in c.execute("select id, data from records where kind=?", (kind,)).fetchall():
        o = json.loads(d); o = fn(o); c.execute("update records set data=? where id=?", (json.dumps(o) if not isinstance(o, str) else o, rid))
if mode == "decision_answer_str":
    upd_data("decision", lambda o: {**o, "answer": "1", "correct": "yes"})
elif mode == "decision_probs_weird":
    upd_data("decision", lambda o: {**o, "probs": [1e308, -1e308, "x"], "correct_index": 7})
elif mode == "turn_shown_obj":
    upd_data("turn", lambda o: {**o, "shown": {"a": [1]}, "content": 12, "round": "x", "extra": []})
elif mode == "decision_list":
    upd_data("decision", lambda o: [o])
elif mode == "decision_extra_nested":
    upd_data("decision", lambda o: {**o, "extra": {"belief": [float("1e400") if False else 1e308, None], "judge_id": {"x": 1}, "room": ["r"]}})
elif mode == "question_weird":
    for k, d in c.execute("select rowid, data from questions").fetchall():
        o = json.loads(d); o.update({"question": None, "correct": 5, "incorrect": ["a"], "article": {"x": 1}, "meta": "m"})
        c.execute("update questions set data=? where rowid=?", (json.dumps(o), k))
elif mode == "call_response_weird":
    c.execute("update calls set response=?, prompt_tokens=?, completion_tokens=?, latency_s=?", ('{"choices": "x"}', "lots", -5, "slow"))
elif mode == "meta_weird":
    c.execute("update meta set value=? where key in (select key from meta limit 2)", ("[[[]]]",))
elif mode == "typed_columns":
    c.execute("update records set seq='x', round=X'00ff', judge=NULL, created='yesterday'")
elif mode == "nan_json":
    for rid, d in c.execute("select id, data from records where kind='decision'").fetchall():
        c.execute("update records set data=? where id=?", (d.replace('"answer": ', '"answer": NaN, "x": ', 1).replace('"answer":', '"answer":NaN,"x":', 1), rid))
elif mode == "huge_text":
    c.execute("update records set data=json_set(data, '$.raw', ?) where kind='decision'", ("Z" * 5_000_000,))
elif mode == "html_xss":
    upd_data("turn", lambda o: {**o, "shown": "<script>alert(1)</script><v_passage><img src=x onerror=alert(2)></v_passage>", "speaker": "<b onmouseover=alert(3)>x"})
c.commit()
