from probe import *
from servers import judge_run


def check_timeout(tag, value):
    s = Server(ok_handler)
    p, out, took, t = judge_run(s, tag, opts={"timeout": value})
    why = one_line_error(p)
    if why:
        broke(f"timeout={value}: {why}")
    if out.exists():
        broke(f"timeout={value}: refused but wrote {out}")
    if s.requests:
        broke(f"timeout={value}: refused only after {len(s.requests)} request(s)")
    held(f"timeout={value} refused: {last_line(err_of(p))[:120]}")
