from probe import *
from servers import judge_run


def check_usage(tag, usage, extra=None):
    def h(req, w):
        d = chat_reply("Answer: 1", usage=usage)
        if extra:
            d.update(extra)
        send_json(w, d)
    s = Server(h)
    p, out, took, t = judge_run(s, tag)
    why = no_traceback(p)
    if why:
        broke(why)
    import re as _re
    m = _re.search(r"(ValueError|TypeError|AttributeError|KeyError|OverflowError|IndexError): ([^\n]{0,70})", err_of(p))
    if p.returncode == 1 and m:
        broke(f"a usable reply was discarded: every job failed with an internal {m.group(1)}: {m.group(2)} (usage {str(usage)[:40]})")
    if out.exists() and (out / "results.sqlite").exists():
        c = db(out)
        bad = c.execute("SELECT prompt_tokens, completion_tokens FROM calls WHERE typeof(prompt_tokens) NOT IN ('integer','null') "
                        "OR typeof(completion_tokens) NOT IN ('integer','null') OR prompt_tokens < 0 OR completion_tokens < 0 "
                        "OR prompt_tokens > 1e12 OR completion_tokens > 1e12").fetchall()
        if bad:
            broke(f"stored token counts {bad[:2]} from usage {str(usage)[:60]}")
        for args in (["report", out, "--output", t / "rep", "--no-figures"], ["view", out, "--export", t / "site"]):
            q = ob(args)
            why = no_traceback(q)
            if why:
                broke(f"{args[0]} after hostile usage: {why}")
    held(f"rc {p.returncode}: {last_line(err_of(p))[:120]}")
