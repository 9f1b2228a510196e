"""`build_leaderboard(dirs, output)`: results.json, leaderboard.md, and a static index.html.

results.json (`schema` = "oversight-bench/leaderboard/v1"): `generated`, `commit` (of the code that
built it), `rows` = one per judge × agent × protocol × task and per task type (`level`), each with
the report's accuracy/CI/n/invalid/cost fields, `elo` (the agent's aggregate Elo where cross-play
data covers it, else null), `transcripts` (relative link to the row's transcript page) and
`provenance` = [{dir, judge, agent, seed, versions, created, commit, import}] of the runs behind it.

index.html needs no server: the rows are embedded as JSON, a small script renders a sortable table
with task-type and protocol filters; each row links to a transcript page written next to it
(`transcripts/<slug>.html`, plain HTML), with verified passages in green and unverified ones in red.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import html
import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterable

from oversight_bench.analysis.load import load_runs
from oversight_bench.analysis.report import (_clean, _elo_section, _git_commit, _proto_key, deviation_lines, group_rows,
                                             md_table, run_provenance, with_setting)
from oversight_bench.errors import BenchError
from oversight_bench.redact import redact_text

SCHEMA = "oversight-bench/leaderboard/v1"
MAX_TRANSCRIPTS = 40  # per row page: enough to read, small enough to commit


def _slug(*parts: Any) -> str:
    text = "-".join(str(p) for p in parts if p)
    base = re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")[:80]
    return f"{base}-{hashlib.sha1(text.encode()).hexdigest()[:8]}"


def render_passages(text: str) -> str:
    """HTML-escape a turn, then turn passage tags into highlighted spans."""
    out = html.escape(text or "")
    for tag, cls in (("v_passage", "v-passage"), ("u_passage", "u-passage"), ("quote", "quote")):
        out = out.replace(f"&lt;{tag}&gt;", f'<span class="{cls}" title="{tag}">').replace(f"&lt;/{tag}&gt;", "</span>")
    return out.replace("\n", "<br>")


PAGE_CSS = """
body{font-family:system-ui,sans-serif;max-width:1100px;margin:1.5em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;width:100%;font-size:13px}th,td{border-bottom:1px solid #ddd;padding:4px 6px;text-align:left}
th{cursor:pointer;background:#f4f4f4;position:sticky;top:0}th.sorted-asc::after{content:" ▲"}th.sorted-desc::after{content:" ▼"}
.v-passage{background:#d4f7d4;border-bottom:2px solid #2a2}.u-passage{background:#fbd3d3;text-decoration:line-through #a22}
.quote{background:#eee}.turn{border-left:4px solid #ccc;padding:.3em .8em;margin:.5em 0}.turn.judge{border-color:#88f}
.turn .who{font-weight:600;font-size:12px;color:#555}.transcript{border:1px solid #ccc;border-radius:6px;padding:.5em 1em;margin:1em 0}
.correct{color:#070;font-weight:600}.verdict{background:#f8f8e8;padding:.3em .6em}.filters{margin:1em 0}
"""

INDEX_JS = r"""
const rows = JSON.parse(document.getElementById('data').textContent);
const cols = [['judge','judge'],['agent','agent'],...(rows.some(r => r.setting) ? [['setting','setting']] : []),['protocol','protocol'],['task','task'],['task_type','type'],['n','n'],
  ['accuracy','accuracy %'],['ci','95% CI'],['invalid_rate','invalid %'],['calls_per_question','calls/q'],
  ['tokens_per_question','tokens/q'],['seconds_per_question','s/q'],['elo','Elo'],['transcripts','transcripts']];
let sortKey = 'accuracy', sortDir = -1;
const pct = v => v == null ? '–' : (100 * v).toFixed(1);
const num = v => v == null ? '–' : (Math.abs(v) >= 100 ? v.toFixed(0) : v.toPrecision(3));
function fill(sel, key) {
  const s = document.getElementById(sel);
  [...new Set(rows.map(r => r[key]).filter(v => v != null))].sort().forEach(v => {
    const o = document.createElement('option'); o.value = v; o.textContent = v; s.appendChild(o); });
  s.addEventListener('change', render);
}
function render() {
  const tt = document.getElementById('f-type').value, pr = document.getElementById('f-protocol').value;
  const lv = document.getElementById('f-level').value;
  let rs = rows.filter(r => (!tt || r.task_type === tt) && (!pr || r.protocol === pr) && r.level === lv);
  rs.sort((a, b) => { const x = a[sortKey], y = b[sortKey];
    if (x == null) return 1; if (y == null) return -1; return (x < y ? -1 : x > y ? 1 : 0) * sortDir; });
  const head = document.querySelector('#board thead tr'); head.innerHTML = '';
  cols.forEach(([k, label]) => { const th = document.createElement('th'); th.textContent = label; th.dataset.key = k;
    if (k === sortKey) th.className = sortDir > 0 ? 'sorted-asc' : 'sorted-desc';
    th.onclick = () => { sortDir = (sortKey === k) ? -sortDir : -1; sortKey = k; render(); }; head.appendChild(th); });
  const body = document.querySelector('#board tbody'); body.innerHTML = '';
  rs.forEach(r => { const tr = document.createElement('tr'); tr.className = 'row';
    tr.dataset.protocol = r.protocol; tr.dataset.taskType = r.task_type;
    const cells = {judge: r.judge, agent: r.agent, setting: r.setting || '–', protocol: r.protocol, task: r.task || '(all)', task_type: r.task_type,
      n: r.n, accuracy: pct(r.accuracy), ci: r.ci_low == null ? '–' : pct(r.ci_low) + '–' + pct(r.ci_high),
      invalid_rate: pct(r.invalid_rate), calls_per_question: num(r.calls_per_question),
      tokens_per_question: num(r.tokens_per_question), seconds_per_question: num(r.seconds_per_question), elo: num(r.elo)};
    cols.forEach(([k]) => { const td = document.createElement('td'); td.className = 'c-' + k;
      if (k === 'transcripts') { if (r.transcripts) { const a = document.createElement('a'); a.href = r.transcripts;
          a.textContent = 'view'; td.appendChild(a); } else td.textContent = '–'; }
      else td.textContent = cells[k]; tr.appendChild(td); });
    body.appendChild(tr); });
  document.getElementById('count').textContent = rs.length + ' rows';
}
fill('f-type', 'task_type'); fill('f-protocol', 'protocol');
document.getElementById('f-level').addEventListener('change', render);
// filters can be preset by the URL, e.g. index.html?type=extractive&protocol=debate&level=task&sort=n
const q = new URLSearchParams(location.search);
if (q.get('type')) document.getElementById('f-type').value = q.get('type');
if (q.get('protocol')) document.getElementById('f-protocol').value = q.get('protocol');
if (q.get('level')) document.getElementById('f-level').value = q.get('level');
if (q.get('sort')) { sortKey = q.get('sort'); sortDir = q.get('dir') === 'asc' ? 1 : -1; }
render();
"""


def json_for_html(obj: Any) -> str:
    """JSON safe inside a <script> element: `<`, `>` and `&` escaped as \\u003c etc., so no text
    in it (`</script>`, `<!--<script>`) can end or re-enter the element early."""
    return (json.dumps(obj, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("&", "\\u0026").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _write(path: Path, text: str) -> None:
    """Every page and file of the leaderboard, with secrets redacted (runs written before
    redaction existed may hold them)."""
    path.write_text(redact_text(text))


def _page(title: str, body: str, script: str = "") -> str:
    return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{PAGE_CSS}</style></head><body>{body}{script}</body></html>\n")


def transcript_html(decision: dict[str, Any], turns: list[dict[str, Any]], question: Any) -> str:
    """One job, readable: question, the two answers as displayed (correct marked), turns, verdict."""
    answers = decision.get("answers") or (question.answers(decision["answer_order"]) if question else ["?", "?"])
    ci = decision.get("correct_index")
    items = []
    for i, a in enumerate(answers, start=1):
        cls, mark = (' class="correct"', " ✓ correct") if i == ci else ("", "")
        items.append(f"<li{cls}>{html.escape(str(a))}{mark}</li>")
    ans_html = "".join(items)
    parts = [f"<div class=\"transcript\" id=\"{html.escape(_slug(decision['job_key'], decision['judge']))}\">",
             f"<h3>{html.escape(question.question if question else decision.get('question_id', ''))}</h3>",
             f"<p class=\"meta\">{html.escape(str(decision.get('protocol')))} · {html.escape(str(decision.get('task')))} · "
             f"assignment {html.escape(str(decision.get('assignment') or '–'))} · {html.escape(str(decision.get('answer_order')))}</p>",
             f"<ol class=\"answers\">{ans_html}</ol>"]
    for t in sorted(turns, key=lambda t: t.get("seq", 0)):
        defends = f" (answer {t['defends']})" if t.get("defends") else ""
        parts.append(f"<div class=\"turn {html.escape(str(t.get('role')))}\"><div class=\"who\">Round {t.get('round')} · "
                     f"{html.escape(str(t.get('speaker')))}{defends}</div><div class=\"text\">{render_passages(t['shown'] if 'shown' in t else t.get('content'))}</div></div>")
    ans = decision.get("answer")
    verdict = "invalid (did not parse)" if ans is None else f"answer {ans} — {'correct' if decision.get('correct') else 'incorrect'}"
    probs = f" · P = {[round(p, 3) for p in decision['probs']]}" if decision.get("probs") else ""
    parts.append(f"<p class=\"verdict\">Judge {html.escape(str(decision.get('judge')))}: {html.escape(verdict)}{html.escape(probs)}</p></div>")
    return "\n".join(parts)


def _protocols_without_agent() -> set[str]:
    """Registered protocols in which no agent speaks (QA): their rows carry no debater Elo."""
    from oversight_bench.registry import get_registry

    reg = get_registry()
    return {n for n in reg.names("protocols") if not getattr(reg.get("protocols", n), "uses_agent", True)}


def build_leaderboard(dirs: Iterable[str | Path], output: str | Path = "leaderboards") -> dict[str, Any]:
    runs = load_runs(list(dirs), with_turns=True)
    decisions = [d for r in runs for d in r.decisions]
    if not any(not d.get("unjudged") for d in decisions):
        raise BenchError("no judged decisions in " + ", ".join(str(r.dir) for r in runs) + "; expected finished runs")
    calls = [c for r in runs for c in r.calls]
    out = Path(output)
    tdir = out / "transcripts"
    try:
        tdir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BenchError(f"cannot create leaderboard folder {out}: {exc.strerror}; expected a writable path") from None
    groups = group_rows(decisions, calls)
    elo = _elo_section(runs)
    elo_of = (elo or {}).get("aggregate", {}).get("ratings", {})
    prov = {str(r.dir): run_provenance(r) for r in runs}
    members: dict[tuple, list] = defaultdict(list)
    for d in decisions:
        if d.get("unjudged"):
            continue
        members[("task", d["judge"], d["agent"], d.get("setting"), d["protocol"], d["task"], d.get("task_type"))].append(d)
        members[("task_type", d["judge"], d["agent"], d.get("setting"), d["protocol"], None, d.get("task_type"))].append(d)
    turns_of = {(str(r.dir), k): v for r in runs for k, v in r.turns.items()}
    questions = {(str(r.dir), k): q for r in runs for k, q in r.questions.items()}
    rows, n_pages = [], 0
    no_agent = _protocols_without_agent()
    for g in groups:
        key = (g["level"], g["judge"], g["agent"], g["setting"], g["protocol"], g["task"], g["task_type"])
        ds = members[key]
        row = dict(g)
        row["elo"] = None if g["protocol"] in no_agent else elo_of.get(g["agent"])  # QA rows have no debater
        row["provenance"] = [prov[d] for d in sorted({d["run_dir"] for d in ds})]
        row["transcripts"] = None
        if g["level"] == "task":
            shown = [d for d in ds if turns_of.get((d["run_dir"], (d["job_key"], d["judge"])))][:MAX_TRANSCRIPTS]
            if shown or ds:
                slug = _slug(g["judge"], g["agent"], g["setting"], g["protocol"], g["task"])
                sample = shown or ds[:MAX_TRANSCRIPTS]
                title = " · ".join(str(g[k]) for k in ("judge", "agent", "protocol", "task"))
                body = [f"<p><a href=\"../index.html\">← leaderboard</a></p><h1>{html.escape(title)}</h1>",
                        f"<p>{len(sample)} of {len(ds)} transcripts. Passages: <span class=\"v-passage\">verified</span>, "
                        f"<span class=\"u-passage\">unverified</span>.</p>"]
                for d in sample:
                    body.append(transcript_html(d, turns_of.get((d["run_dir"], (d["job_key"], d["judge"])), []),
                                                questions.get((d["run_dir"], (d["task"], d["question_id"])))))
                _write(tdir / f"{slug}.html", _page(f"{g['protocol']} transcripts", "\n".join(body)))
                row["transcripts"] = f"transcripts/{slug}.html"
                n_pages += 1
        rows.append(row)
    # a task-type row links to the page of its largest task
    by_task = {(r["judge"], r["agent"], r["setting"], r["protocol"], r["task_type"]): r for r in sorted(
        (r for r in rows if r["level"] == "task"), key=lambda r: r["n"])}
    for r in rows:
        if r["level"] == "task_type":
            t = by_task.get((r["judge"], r["agent"], r["setting"], r["protocol"], r["task_type"]))
            r["transcripts"] = t["transcripts"] if t else None
    result = _clean({"schema": SCHEMA, "generated": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                     "commit": _git_commit(), "runs": list(prov.values()), "rows": rows, "elo": elo, "n_transcripts": n_pages})
    head = deviation_lines(result["runs"])
    _write(out / "results.json", json.dumps(result, indent=1, ensure_ascii=False))
    cols = [("judge", "judge", False), ("agent", "agent", False), ("protocol", "protocol", False), ("task_type", "type", False),
            ("n", "n", False), ("accuracy", "acc %", True), ("ci_low", "CI low", True), ("ci_high", "CI high", True),
            ("invalid_rate", "invalid %", True), ("calls_per_question", "calls/q", False), ("tokens_per_question", "tokens/q", False)]
    tt_rows = sorted([r for r in result["rows"] if r["level"] == "task_type"],
                     key=lambda r: (r["task_type"], _proto_key(r["protocol"]), -(r["accuracy"] or 0)))
    task_rows = [r for r in result["rows"] if r["level"] == "task"]
    cols = with_setting(cols, result["rows"])
    md = ["# oversight-bench leaderboard", "", f"Generated {result['generated']} (code {result['commit'] or 'unknown'}).",
          "95% CIs: replicates of a question averaged, then normal approximation across questions. "
          "A judge marked \"(debiased)\" ran with the position-debiased option, not the paper's plain judge.", "",
          "Settings that differ from the paper's, per run:", "", *head, "",
          "## By task type", "", md_table(tt_rows, cols), "", "## By task", "",
          md_table(task_rows, cols[:3] + [("task", "task", False)] + cols[3:])]
    _write(out / "leaderboard.md", "\n".join(md) + "\n")
    data = json_for_html([{k: r.get(k) for k in ("level", "judge", "agent", "setting", "protocol", "task", "task_type", "n", "accuracy", "ci_low",
                                              "ci_high", "invalid_rate", "calls_per_question", "tokens_per_question",
                                              "seconds_per_question", "elo", "transcripts")} for r in result["rows"]])
    body = (f"<h1>oversight-bench leaderboard</h1><p>Generated {html.escape(result['generated'])}. "
            "Click a column to sort. 95% CIs: replicates averaged per question, normal approximation across questions. "
            "\"(debiased)\" marks the position-debiased judge option.</p>"
            "<details open><summary>Settings that differ from the paper's</summary><ul id=\"deviations\">"
            + "".join(f"<li>{html.escape(line[2:])}</li>" for line in head) + "</ul></details>"
            "<div class=\"filters\">Task type <select id=\"f-type\"><option value=\"\">all</option></select> "
            "Protocol <select id=\"f-protocol\"><option value=\"\">all</option></select> "
            "Rows <select id=\"f-level\"><option value=\"task_type\">per task type</option><option value=\"task\">per task</option></select> "
            "<span id=\"count\"></span></div><table id=\"board\"><thead><tr></tr></thead><tbody></tbody></table>"
            "<noscript>Enable JavaScript for the table, or read leaderboard.md.</noscript>"
            f"<script type=\"application/json\" id=\"data\">{data}</script>")
    _write(out / "index.html", _page("oversight-bench leaderboard", body, f"<script>{INDEX_JS}</script>"))
    return result
