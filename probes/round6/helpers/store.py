import sys, os, json, shutil, sqlite3, subprocess, tempfile
sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import imp
def mutate_and_read(sql, params=()):
    d = tempfile.mkdtemp(dir=__import__('os').environ['PROBE'] + "/tmp")
    try:
        base = __import__('os').environ['PROBE'] + "/tmp/_storebase"
        if not os.path.exists(base + "/r/results.sqlite"):
            os.makedirs(base, exist_ok=True)
            rc, o, e, _ = imp.ob(["run", "--judge", "scripted:default", "--agent", "scripted:default", "--tasks", "arith", "--limit", "1",
                                  "--protocols", "qa_without_article,debate", "--output", "r", "--quiet"], base)
        shutil.copytree(base + "/r", d + "/r")
        c = sqlite3.connect(d + "/r/results.sqlite"); c.execute(sql, params); c.commit(); c.close()
        bad = []
        for args in (["salvage", "r", "--output", "s"], ["report", "r", "--output", "rep", "--no-figures"], ["view", "r", "--export", "ex"],
                     ["export", "r"], ["export", "r", "--preferences"], ["leaderboard", "r", "--output", "lb"],
                     ["run", "--judge", "scripted:default", "--agent", "scripted:default", "--tasks", "arith", "--limit", "1",
                      "--protocols", "qa_without_article,debate", "--output", "r", "--quiet"]):
            rc, o, e, dt = imp.ob(args, d, timeout=40)
            if imp.tb(e): bad.append(f"{args[0]}: traceback {e.strip().splitlines()[-1][:90]}")
            elif rc not in (0, 1, 2): bad.append(f"{args[0]}: rc={rc}")
            elif rc == 2 and not any(l.lower().startswith("error") for l in e.splitlines()): bad.append(f"{args[0]}: rc2 no error line")
        return ("BROKE: " + "; ".join(bad)) if bad else "HELD (all 7 readers: no traceback)"
    finally:
        shutil.rmtree(d, ignore_errors=True)
