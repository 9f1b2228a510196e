import re, glob, os
verd = {}
for line in open("last-run.txt"):
    m = re.match(r"(\S+\.sh): (HELD|BROKE)(.*)", line)
    if m: verd[m.group(1)] = (m.group(2), m.group(3).lstrip(": ").strip())
rows, counts = [], {}
for f in sorted(glob.glob("cases/*.sh")):
    b = os.path.basename(f)
    area_line = next((l for l in open(f) if l.startswith("# area:")), "# area: ?")
    txt = area_line[len("# area:"):].strip()
    area, _, what = txt.partition(":")
    if not what: area, what = "bad-input", txt
    area = area.strip().split("/")[0]
    v, why = verd.get(b, ("NOT RUN", ""))
    counts.setdefault(area, [0, 0]); counts[area][0 if v == "HELD" else 1] += 1
    cell = v if v == "HELD" else f"**{v}**: {why}"
    rows.append(f"| {b[:3]} | {area} | {b[4:-3]}: {what.strip().replace('|', '/')} | {cell.replace('|', '/')[:260]} |")
head = open("RESULTS.head.md").read()
tail = open("RESULTS.tail.md").read()
summ = "\n".join(f"| {a} | {h} | {k} |" for a, (h, k) in sorted(counts.items()))
tot = sum(h for h, k in counts.values()), sum(k for h, k in counts.values())
open("RESULTS.md", "w").write(head + f"\n## Counts per area (total {sum(tot)}: {tot[0]} held, {tot[1]} broke)\n\n| area | held | broke |\n|---|---|---|\n" + summ +
    "\n\n## Every case\n\n| id | area | what it tries | verdict |\n|---|---|---|---|\n" + "\n".join(rows) + "\n\n" + tail)
print(tot, counts)
