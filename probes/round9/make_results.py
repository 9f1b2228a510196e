"""RESULTS.md from last-run.txt, each case's first comment line, and breaks.md (hand-written details)."""
import os, re, collections
here = os.path.dirname(os.path.abspath(__file__))
AREAS = {"1": "1 deletion / output folders / lock", "2": "2 sandbox", "3": "3 imports", "4": "4 model servers / secrets",
         "5": "5 hostile stores", "6": "6 broken plugins", "7": "7 web (view, serve)", "8": "8 bad input / kill -9 resume"}
rows = []
for line in open(f"{here}/last-run.txt"):
    name, secs, verdict = line.rstrip("\n").split("\t", 2)
    first = open(f"{here}/cases/{name}").read().splitlines()
    start = next((i for i, l in enumerate(first) if l.startswith("# area")), None)
    what = ""
    if start is not None:
        parts = []
        for l in first[start:]:
            if not l.startswith("#"):
                break
            parts.append(l.lstrip("# ").strip())
        what = " ".join(parts)
    what = re.sub(r"^area \d+:\s*", "", what)
    rows.append((name, name[0], what, verdict.split(":")[0], verdict, secs))
count = collections.OrderedDict((a, [0, 0, 0]) for a in AREAS)
for r in rows:
    c = count[r[1]]; c[0] += 1; c[1 if r[3] == "HELD" else 2] += 1
out = ["# probe11 results", "",
       f"Target: /work/wt/probe11 at `{os.popen('git -C /work/wt/probe11 rev-parse --short HEAD').read().strip()}`. "
       f"{len(rows)} cases, each `cases/NNN_*.py` (self-contained, own temp dir, one final HELD/BROKE line); "
       "`REPO=<checkout> ./run_all.sh [pattern]` runs them one at a time and writes last-run.txt.", "",
       "## Per area", "", "| area | cases | held | broke |", "|---|---|---|---|"]
for a, (n, h, b) in count.items():
    out.append(f"| {AREAS[a]} | {n} | {h} | {b} |")
t = [sum(v[i] for v in count.values()) for i in range(3)]
out += [f"| **all** | **{t[0]}** | **{t[1]}** | **{t[2]}** |", "", "## Every case", "",
        "| id | area | what it tries | verdict |", "|---|---|---|---|"]
for name, area, what, v, full, secs in rows:
    out.append(f"| {name.split('_')[0]} `{name}` | {area} | {what.replace('|', '/')} | **{v}** |")
out += ["", open(f"{here}/breaks.md").read()]
open(f"{here}/RESULTS.md", "w").write("\n".join(out) + "\n")
print("\n".join(out[:20]))
