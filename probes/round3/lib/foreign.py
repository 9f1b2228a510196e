"""A reader command given an output folder that holds someone else's files must refuse (exit 2,
one line) and leave every file as it was."""
from pathlib import Path
from probe import *


def check(cmd_of, files: dict, tag: str, *, expect_refusal=True, symlinks: dict | None = None):
    t = tmpdir(tag)
    run = copy_run(tag)
    out = t / "out"
    out.mkdir()
    for name, content in files.items():
        p = out / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(content if isinstance(content, bytes) else content.encode())
    victim = t / "victim.txt"
    victim.write_text("precious, outside the output folder")
    for name, target in (symlinks or {}).items():
        (out / name).symlink_to(victim if target == "VICTIM" else target)
    before, vbefore = snapshot(out), victim.read_bytes()
    rbefore = snapshot(run)
    p = ob(cmd_of(run, out), timeout=120)
    if victim.read_bytes() != vbefore:
        broke(f"wrote through a symlink in the output folder into {victim}: {victim.read_text()[:60]!r}")
    if snapshot(run) != rbefore:
        broke("the run it read changed: " + diff(rbefore, snapshot(run)))
    d = diff(before, snapshot(out))
    lost = [k for k in before if k not in snapshot(out) or before[k] != snapshot(out).get(k)]
    if expect_refusal:
        why = one_line_error(p)
        if lost:
            broke(f"overwrote/removed the folder's own files {lost[:3]} (rc {p.returncode})")
        if why:
            broke(why)
        if d:
            broke("refused but the folder changed: " + d)
        held("refused in one line, nothing touched: " + last_line(err_of(p))[:120])
    else:
        why = no_traceback(p)
        if why:
            broke(why)
        held(f"rc {p.returncode}, folder files kept")
