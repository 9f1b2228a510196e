"""Build RESULTS.md from last-run.txt and the cases' '# area:' headers."""
import re, collections, pathlib
P = pathlib.Path(__file__).resolve().parent
FIX = {
 "190": ("human_judging/__init__.py `judge_names`", "`Path(judges_file).read_text(encoding='utf-8')` catches only OSError: a non-UTF-8 file is a UnicodeDecodeError traceback. Read it through `yamlio.read_input_bytes(path, '--judges-file', limit)` (regular file, bounded) and decode with a one-line BenchError naming the byte, as `--cells`/`--carry` do."),
 "210": ("human_judging/__init__.py `judge_names`", "same root cause as 190: click.Path(dir_okay=False) lets /dev/zero through and `read_text` reads without bound (MemoryError traceback under a 1.5 GB cap; unbounded memory without one). Refuse non-regular files and cap the size via `read_input_bytes`."),
 "241": ("task_configs/build_task.py `_done_ids`", "`output.read_text(encoding='utf-8')` of the existing --output JSONL: a non-UTF-8 file is a UnicodeDecodeError traceback (after the model and sandbox were set up); also unbounded. Read through `read_input_bytes` and refuse non-UTF-8 in one line (exit 2) before any call, leaving the file untouched."),
 "221": ("oversight_bench/redact.py `_encodings` / masking", "a key echoed as HTML numeric entities (`&#90;&#120;...`) or as literal `\\uXXXX` text is stored whole in results.sqlite and `export` (base64, hex, percent forms are masked). Add the decimal/hex entity and `\\u`-escape forms to `_encodings`, or match on an html.unescape'd / escape-decoded copy of the text and mask the mapped span."),
}
NOTES = {
 "201": "observation only (not counted): a model spec's raw ESC/RLO characters are echoed to the terminal in the error line.",
 "187": "salvage of 5000 random bytes exits 0 with '0 job(s)' and 'unreadable' lines: accepted as honest, no traceback.",
 "086": "Retry-After is honoured up to 60 s per retry (MAX_RETRY_AFTER_S, documented); with max_retries=0 the call ends at once. Case checks max_retries=0.",
 "112": "first version spun by wall clock on the shared 2-core box (too little CPU to trip the limit); rewritten to spin by process_time.",
 "178": "first version (OVERSIGHT_BENCH_CGROUP=/nonexistent) only fell back to rlimits; rewritten with a fake bwrap that passes the probe then fails every start.",
}
rows, verdict = [], {}
lr = (P / "last-run.txt").read_text().splitlines()
for line in lr:
    if "\t" in line:
        f, v = line.split("\t", 1); verdict[f] = v
for f in sorted(verdict):
    src = (P / "cases" / f).read_text().splitlines()
    hdr = next((l for l in src if l.startswith("# area:")), "# area: ?")[7:].strip()
    m = re.match(r"([a-zA-Z/ \-()]+?)(?:\.|$)\s*(.*)", hdr)
    area, what = (m.group(1).strip(), m.group(2).strip()) if m else (hdr, "")
    if not what:
        what = next((l for l in reversed(src) if l.strip() and not l.startswith("#") and not l.startswith(". ")), "")
        what = re.sub(r"\s+", " ", what)[:140]
    area = area.replace(" (rlimit fallback)", "").replace(" (binary, non-UTF-8 file given where text is expected)", "")
    rows.append((f[:3], f, area.split("/")[0].strip(), what.replace("|", "\\|"), verdict[f].replace("|", "\\|")))
count = collections.OrderedDict()
for cid, f, area, what, v in rows:
    c = count.setdefault(area, [0, 0]); c[0 if v.startswith("HELD") else 1] += 1
out = ["# Prober round 3 (issue 37) — results", "",
       f"Target: /work/wt/probe ({lr[0][2:]}). {len(rows)} cases; "
       f"{sum(c[0] for c in count.values())} held, {sum(c[1] for c in count.values())} broke. "
       "Run: `REPO=<checkout> ./run_all.sh [pattern]` (writes last-run.txt). Tests/ and probes/ of the checkout were not read.", "",
       "## Per area", "", "| area | held | broke |", "|---|---|---|"]
out += [f"| {a} | {c[0]} | {c[1]} |" for a, c in count.items()]
out += ["", "## Breaks", ""]
for cid, f, area, what, v in rows:
    if v.startswith("BROKE"):
        loc, fix = FIX.get(cid, ("?", "?"))
        out += [f"- **{cid}** `{f}` ({area}): {v}", f"  - at fault: {loc}", f"  - fix: {fix}", ""]
out += ["## Notes", ""] + [f"- {k}: {v}" for k, v in NOTES.items()] + ["", "## All cases", "", "| id | area | what it tries | verdict |", "|---|---|---|---|"]
out += [f"| {cid} | {area} | {what} | {v[:160]} |" for cid, f, area, what, v in rows]
(P / "RESULTS.md").write_text("\n".join(out) + "\n")
print("\n".join(out[:40]))
