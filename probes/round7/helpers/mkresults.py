import os, re, sys
here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
res = {}
for line in open(os.path.join(here, "last-run.txt")):
    m = re.match(r"(\S+)\s+\S+s\s+(.*)", line.rstrip())
    if m: res[m.group(1)] = m.group(2)
def area(n):
    i = int(n[:3])
    if "_bad_" in n or i in (8, 62, 63): return "bad input"
    if i in (50, 61, 172, 173, 174): return "input files"
    if i in (76, 78): return "run lock"
    if 64 <= i <= 79 or i in (176, 177): return "output folders / data loss"
    if 80 <= i <= 99: return "secrets echoed by servers"
    if 100 <= i <= 119 or i == 178: return "imports"
    if 120 <= i <= 129: return "model servers"
    if 130 <= i <= 139: return "sandbox"
    if 140 <= i <= 159 or i == 175: return "hostile stores"
    if 160 <= i <= 169: return "plugins"
    if 170 <= i <= 171: return "web"
    return "other"
rows = []
for n in sorted(os.listdir(os.path.join(here, "cases"))):
    lines = open(os.path.join(here, "cases", n)).read().splitlines()
    what = next((l[2:] for l in lines[1:4] if l.startswith("# ")), "")
    if "_bad_" in n:
        m = next((l for l in lines if l.startswith("expect_err")), "")
        what = "bad input: `" + m.split(" ob ", 1)[-1][:110].replace("|", "\\|") + "`"
    v = res.get(n, "not run")
    rows.append((n.split("_")[0], area(n), n, what.replace("|", "\\|"), v.replace("|", "\\|")))
from collections import Counter
c = Counter((a, v.split(":")[0].split(" ")[0]) for _, a, _, _, v in rows)
print("| area | cases | held | broke |\n|---|---|---|---|")
for a in sorted({r[1] for r in rows}):
    h, b = c[(a, "HELD")], c[(a, "BROKE")]
    print(f"| {a} | {h + b} | {h} | {b} |")
print(f"| **all** | {len(rows)} | {sum(v for (a, k), v in c.items() if k == 'HELD')} | {sum(v for (a, k), v in c.items() if k == 'BROKE')} |\n")
print("| id | area | case | what it tries | verdict |\n|---|---|---|---|---|")
for r in rows: print("| " + " | ".join(r) + " |")
