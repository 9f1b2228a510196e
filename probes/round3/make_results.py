#!/usr/bin/env python3
"""Build RESULTS.md from a run_all.sh output file: one row per case, its area and what it tried taken
from the case's first comment line ("# Area N: ..."). Usage: make_results.py RUN_OUTPUT > RESULTS.md"""
import re, sys
from pathlib import Path
HERE = Path(__file__).resolve().parent
AREAS = {"D": "1 data loss", "S": "2 sandbox", "I": "3 imports", "M": "4 model servers", "T": "5 stores",
         "P": "6 plugins", "W": "7 web"}
rows, totals = [], {}
lines = Path(sys.argv[1]).read_text().splitlines()
for ln in lines:
    m = re.match(r"^(\S+)\s+(HELD|BROKE|ERROR)\s?(.*)$", ln)
    if not m:
        continue
    cid, verdict, ev = m.groups()
    f = next(iter(sorted(HERE.glob(f"cases/{cid}_*"))), None)
    what = ""
    if f:
        for t in f.read_text().splitlines():
            if t.startswith("#") and not t.startswith("#!"):
                what = re.sub(r"^#\s*(Area \d+[^:]*:\s*)?", "", t).strip()
                break
    area = AREAS.get(cid[0], "?")
    rows.append((cid, area, what, verdict, ev, f.name if f else ""))
    totals.setdefault(area, [0, 0, 0])[["HELD", "BROKE", "ERROR"].index(verdict)] += 1
esc = lambda s: s.replace("|", "\\|")
print("# Probe pass, issue 37 (round three): results\n")
print(f"Checkout: `{sys.argv[2] if len(sys.argv) > 2 else '/work/main'}`. Rerun: `REPO=/work/main bash /work/probe/run_all.sh > out.txt; "
      "python3 /work/probe/make_results.py out.txt > /work/probe/RESULTS.md`\n")
print("| area | cases | held | broke | error |\n|---|---|---|---|---|")
for a in sorted(totals):
    h, b, e = totals[a]
    print(f"| {a} | {h+b+e} | {h} | {b} | {e} |")
H = sum(v[0] for v in totals.values()); B = sum(v[1] for v in totals.values()); E = sum(v[2] for v in totals.values())
print(f"| **all** | {H+B+E} | {H} | {B} | {E} |\n")
print("## Breaks first\n\n| ID | area | what was tried | verdict | evidence (one line) | script |\n|---|---|---|---|---|---|")
for r in rows:
    if r[3] != "HELD":
        print(f"| {r[0]} | {r[1]} | {esc(r[2])} | **{r[3]}** | {esc(r[4])} | cases/{r[5]} |")
print("\n## All cases\n\n| ID | area | what was tried | verdict | evidence (one line) |\n|---|---|---|---|---|")
for r in rows:
    print(f"| {r[0]} | {r[1]} | {esc(r[2])} | {r[3]} | {esc(r[4])} |")
