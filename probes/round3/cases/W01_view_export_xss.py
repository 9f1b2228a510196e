# Area 7 (web): a run whose question, answers, article, turns, speaker names, judge output, stored replies and config hold <script>/onerror payloads: `view --export` pages escape every one
from web import *
t = tmpdir("w01"); run = xss_run("w01")
p = ob(["view", run, "--export", t / "site"])
if p.returncode: error("export failed: " + last_line(err_of(p)))
hits = [(str(f.relative_to(t / "site")), b) for f in (t / "site").rglob("*.html") for b in BAD if b in f.read_text()]
broke(f"unescaped payload {hits[0][1]!r} in {hits[0][0]} ({len(hits)} hits)") if hits else held("every page escapes the payloads")
