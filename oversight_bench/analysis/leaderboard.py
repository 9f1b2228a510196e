"""`build_leaderboard(dirs, output)`: a judge-centric leaderboard, honest about its evidence.

results.json (`schema` = "oversight-bench/leaderboard/v3"):
* `judges`: one row per judge (`kind` "model" or "human"; a judge that had a judge tool, beyond the paper, is
  its own row, "NAME (judge tool: TOOL)"), with `cells` = {"<protocol> · <scope>":
  {protocol, scope, n (questions), n_records, accuracy, ci_low, ci_high, small (n < 64), agents,
  deviations (those of the runs behind this cell), rooms (relative link to the viewer's list of the
  rooms this cell counts, `ROOMS_DIR`/cells/<id>/index.html), references (one per human judge who
  judged the same rooms: {judge, n, accuracy, ci_low, ci_high, p_value (paired), diff}), quality
  (`analysis/quality.py`: n_agent_turns, n_budget_turns, forced_rate, cut_rate (null: no budget
  records), n_argumentless, argumentless_rate, mean_argument_words, n_records, n_invalid,
  invalid_rate, n_valid, n_answer1, answer1_share, accuracy_invalid_wrong, invalid_wrong_ci_low,
  invalid_wrong_ci_high), flagged (reasons the cell fails the quality bar; [] passes), self_judged
  (only where the judge is the model of an agent that argued in its rooms: `SELF_JUDGED`, "judge = agent
  (no weak–strong gap)"; a carried cell's decided from its `agents`, else its row's provenance) }}, where
  scope is a task type, or `suite:<name>` for imported transcript suites. A human row's cell adds
  `on_model_rooms`: the same human judges on exactly the rooms the model rows' cells of that column
  count (what the figure draws). A carried cell (`carried`, from `--carry`) has no `rooms` (its runs
  are not here): a page rendered again from the data its board kept (`transcripts`), else
  `no_link` saying why. A row has `deviations` (all its cells'), `headlines` = the paper's debate −
  consultancy and debate − QA-without-article differences with paired p-values (questions both
  have; permutation test, 10,000 resamples), without flagged cells (named in `excluded`) unless
  `include_flagged` (then named in `flagged_included`), and never with self-judged cells (named in
  `self_judged`: a weak-judge headline measures no judge judging its own model); `provenance` of its runs; a human row
  `about` (who these judges are, from the suite and import records).
* `elo`: debater Elo from the cross-play runs given to this build (players, games, rating, bootstrap
  CI), never carried from an earlier build (`--carry` ignores its `elo`); cross-play games never make
  judge rows.
* `columns`, `min_n`, `include_flagged`, `quality_bar` (the bar in words), `rooms` (the cells file
  and the folder of room pages), `generated`, `commit`.

Beside it, `CELLS_FILE` (rooms-cells.json) lists, per built cell, the exact decisions it counts as
[RUN_DIR, JUDGE, JOB_KEY] (RUN_DIR relative to the board folder), in the format of `oversight-bench
view --export OUT --cells FILE`, which writes the room pages the cells link to (`ROOMS_DIR`): the
viewer is a plugin, so the build names the rooms and the viewer draws them.

index.html needs no server and no script to be read: the table is HTML, every figure formatted here
by the one rounding rule (`quality.decimal_round`) that leaderboard.md uses too; a small script sorts
by any column (each cell carries its sort value in `data-sort`), filters by protocol, scope and
judge, and shows small cells on demand (URL parameters preset them). Each judge's deviations and
flags are behind a toggle of its own under its row. `fig2_judges.png` is a Fig. 2-like plot of the
table (`figure_bars`). The pages are Jinja2 templates in oversight_bench/templates (autoescaped,
`render_page`).
"""

from __future__ import annotations

import datetime as _dt
import functools
import hashlib
import html
import json
import os
import re
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterable, Literal, Optional

import jinja2
from markupsafe import Markup
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from oversight_bench.analysis import quality as quality_mod
from oversight_bench.analysis import stats
from oversight_bench.analysis.elo import elo_of_runs
from oversight_bench.analysis.load import Run, load_runs
from oversight_bench.analysis.quality import p_text, pct, pts
from oversight_bench.analysis.report import _clean, _git_commit, _proto_key, md_text, run_provenance, saved_figure
from oversight_bench.deviations import recorded_deviations
from oversight_bench.errors import BenchError, validation_error
from oversight_bench.protocol import derived_pairs, headline_pairs
from oversight_bench.redact import redact_text
from oversight_bench.rundir.store import first_link, in_use, refuse_output_inside
from oversight_bench.yamlio import load_json_text, read_input_bytes

SCHEMA = "oversight-bench/leaderboard/v3"
#: earlier schemas a board may hold: still recognised as a board (`check_output`) and carried (`load_carry`)
OLD_SCHEMAS = ("oversight-bench/leaderboard/v2",)
PAGE_SCHEMA = "oversight-bench/leaderboard-page/v1"
#: a carried cell's `transcripts`: a page of the carried board's own transcripts folder
PAGE_LINK = re.compile(r"transcripts/([A-Za-z0-9][A-Za-z0-9-]{0,120})\.html")
#: the cells file beside results.json, and the folder `oversight-bench view --export` writes the room pages into
CELLS_FILE = "rooms-cells.json"
ROOMS_DIR = "rooms"
MIN_N = 64  # cells with fewer questions are hidden by default: too few to rank judges on
QUALITY_BAR = quality_mod.bar_text()


def _slug(*parts: Any) -> str:
    text = "-".join(str(p) for p in parts if p)
    base = re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")[:80]
    return f"{base}-{hashlib.sha1(text.encode()).hexdigest()[:8]}"


def cell_id(judge: str, protocol: str, scope: str) -> str:
    """A cell's id in the cells file and its room pages' folder: readable, unique, stable across builds."""
    return _slug(judge, protocol, scope)


def models_rooms_id(judge: str, protocol: str, scope: str) -> str:
    """A human cell's second list: its rooms that the models' cells of the column count."""
    return _slug(judge, protocol, scope, "models' rooms")


def rooms_link(cid: str) -> str:
    return f"{ROOMS_DIR}/cells/{cid}/index.html"


def render_passages(text: str) -> str:
    """HTML-escape a turn, then turn passage tags into highlighted spans."""
    out = html.escape(text or "")
    for tag, cls in (("v_passage", "v-passage"), ("u_passage", "u-passage"), ("quote", "quote")):
        out = out.replace(f"&lt;{tag}&gt;", f'<span class="{cls}" title="{tag}">').replace(f"&lt;/{tag}&gt;", "</span>")
    return out.replace("\n", "<br>")


def _write(path: Path, text: str) -> None:
    """Every page and file of the leaderboard, with secrets redacted (runs written before
    redaction existed may hold them)."""
    path.write_text(redact_text(text))


def _html_text(value: Any) -> Any:
    """The pages' autoescape: text as `html.escape` writes it (the escaping `render_passages`, shared
    with the web app, uses), markup (`Markup`) as it is. Jinja's own escaping filters (`join`, `~`,
    `e`) write `'` as &#39; rather than &#x27;: as safe, but other bytes."""
    return value if hasattr(value, "__html__") else Markup(html.escape(str(value)))


def _breakable(text: Any) -> Markup:
    """Text escaped, with a line-break opportunity (<wbr>) after `_ , : /`: long model and protocol
    names wrap in a narrow column instead of widening the table."""
    return Markup(re.sub(r"([_,:/])", r"\1<wbr>", html.escape(str(text))))


@functools.cache
def _pages() -> jinja2.Environment:
    """The templates under oversight_bench/templates: autoescaped, a missing field an error rather
    than an empty string, and the CSS/JS files inlined verbatim (`inline`: the board opens from disk)."""
    env = jinja2.Environment(loader=jinja2.PackageLoader("oversight_bench", "templates"), autoescape=True,
                             finalize=_html_text, undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    env.filters.update(passages=lambda text: Markup(render_passages(text)), breakable=_breakable, rounded=_r)
    env.globals["inline"] = lambda name: Markup(env.loader.get_source(env, name)[0])
    return env


def render_page(template: str, **context: Any) -> str:
    """A leaderboard page (or fragment) from its template."""
    return _pages().get_template(template).render(**context)


def _write_page(tdir: Path, slug: str, page: dict[str, Any]) -> None:
    """A carried cell's transcript page, rendered again from the data its board kept beside it, and
    that data beside it again (so a later build can carry it on): pages are built, never copied."""
    tdir.mkdir(parents=True, exist_ok=True)
    _write(tdir / f"{slug}.json", json.dumps(page, ensure_ascii=False, indent=0))
    _write(tdir / f"{slug}.html", render_page("rooms.html.j2", **{k: v for k, v in page.items() if k != "schema"}))


# -- the judge table ---------------------------------------------------------------------------------

def _suite_of_import(kind: str) -> str:
    """The suite a run imported by importer `kind` belongs to: the installed suite that declares the
    kind as its `import_kind` (its plugin names it; the core names none), else the kind itself."""
    from oversight_bench.registry import get_registry

    reg = get_registry()
    for name in reg.names("suites"):
        if getattr(reg.get("suites", name), "import_kind", None) == kind:
            return name
    return kind


def _suite_of(cfg: dict[str, Any]) -> str | None:
    """The transcript suite a run holds: an import, or a re-judging of one (`judge --from/--suite`),
    however deep (`judge --from` a suite's re-judging, e.g. `--as verified_evidence`: its source's source)."""
    chain, c = [], cfg
    while isinstance(c, dict) and len(chain) < 32:  # a bounded walk: a crafted config may nest without end
        chain.append(c)
        c = c.get("source_config")
    for c in chain:
        imp = c.get("import") or {}
        if imp.get("suite"):  # imported by a registered suite (khan-2024), which names itself
            return str(imp["suite"])
        if imp.get("kind"):
            return _suite_of_import(imp["kind"])
    return None


def _is_crossplay(d: dict[str, Any], cfg: dict[str, Any]) -> bool:
    """Cross-play games rate debaters: they never make judge rows (self-play games of a cross-play run neither)."""
    deb = (d.get("extra") or {}).get("debaters")
    if any(c.get("kind") == "crossplay" or c.get("agent") == "crossplay" for c in (cfg, cfg.get("source_config") or {})):
        return True
    return isinstance(deb, list) and len(deb) == 2 and all(isinstance(x, str) for x in deb) and deb[0] != deb[1]


def _judge_kind(judge: str) -> str:
    return "human" if str(judge).startswith("human:") else "model"


#: the label of a cell whose judge is the model of the agent that argued in its rooms (issue 34.3)
SELF_JUDGED = "judge = agent (no weak–strong gap)"


def _model_of(spec: Any) -> str:
    """A model spec's model, without its options and the row suffixes ("(debiased)", "(judge tool: …)"):
    "llamacpp:qwen2.5-coder-1.5b,n_ctx=8192 (debiased)" -> "llamacpp:qwen2.5-coder-1.5b"."""
    return str(spec).partition(" (")[0].split(",")[0].strip().lower()


def self_judged(judge: str, protocol: str, agents: Iterable[Any]) -> bool:
    """Whether a cell's judge is the model of an agent that argued in its rooms: no weak–strong gap,
    so the cell says so and stays out of the weak-judge headlines. QA has no agent turns: never."""
    if _judge_kind(judge) == "human" or not _argued(protocol):
        return False
    mine = _model_of(judge)
    return any(_model_of(a) == mine for agent in agents for a in str(agent).split(" vs "))


def _carried_agents(cell: dict[str, Any], provenance: list[dict[str, Any]]) -> list[str]:
    """The agents of a carried cell: its own `agents`, else those its row's provenance records."""
    if isinstance(cell.get("agents"), list):
        return [str(a) for a in cell["agents"]]
    return sorted({str(p["agent"]) for p in provenance if isinstance(p, dict) and p.get("agent")})


def _cell_stats(ds: list[dict[str, Any]]) -> dict[str, Any]:
    a = stats.accuracy(ds)
    return {k: a[k] for k in ("n", "n_records", "accuracy", "ci_low", "ci_high", "n_invalid")}


def _cell_quality(ds: list[dict[str, Any]], turns_for) -> dict[str, Any]:
    """A cell's `quality` (`analysis.quality`: agent turns forced / cut / argument-less, mean argument
    words, invalid answers, accuracy with them counted wrong, answer-1 share) and `flagged` (the
    reasons it fails the quality bar, empty when it passes)."""
    fig = quality_mod.quality(ds, turns_for)
    flagged = fig.pop("flagged")
    fig.pop("accuracy_valid")  # the cell's own `accuracy`
    return {"quality": fig, "flagged": flagged}


def _label(judge: str) -> str:
    """A judge's axis label: the model without backend prefix and options, "(debiased)" kept."""
    if judge.startswith("human:"):
        return judge
    base, sep, rest = judge.partition(" (")
    return base.split(",")[0].split(":", 1)[-1] + (sep + rest if sep else "")


def _p(p: float | None) -> str:
    text = p_text(p)
    return "p" + text if text.startswith("<") else f"p={text}"


def figure_bars(judges: list[dict[str, Any]], columns: list[dict[str, Any]], min_n: int = MIN_N) -> list[dict[str, Any]]:
    """The bars of fig2_judges.png, one per judge × (protocol, scope) cell with an accuracy: panel
    (`scope`), `protocol`, `judge`, `x` (the judge's place in its panel), accuracy and CI, `n`,
    `small`, `flagged`. A human row's bar is drawn on the rooms the models' cells of its column count
    (`on_model_rooms`, `rooms` = "models' rooms") where models judged that column, so that it is the
    table's human reference, not the suite's every room; elsewhere on all its rooms (`rooms` = "all")."""
    bars = []
    for sc in sorted({c["scope"] for c in columns}):
        names = [j for j in judges if any(c["scope"] == sc for c in j["cells"].values())]
        protos = sorted({c["protocol"] for j in names for c in j["cells"].values() if c["scope"] == sc}, key=_proto_key)
        for p in protos:
            for i, j in enumerate(names):
                c = j["cells"].get(f"{p} · {sc}")
                if not c:
                    continue
                src, rooms = c, None
                if j["kind"] == "human":
                    src, rooms = (c["on_model_rooms"], "models' rooms") if c.get("on_model_rooms") else (c, "all")
                if src.get("accuracy") is None:
                    continue
                bars.append({"scope": sc, "protocol": p, "judge": j["judge"], "x": i, "accuracy": src["accuracy"],
                             "ci_low": src.get("ci_low"), "ci_high": src.get("ci_high"), "n": src["n"],
                             "small": src["n"] < min_n, "flagged": bool(c.get("flagged")), "rooms": rooms,
                             "self_judged": c.get("self_judged")})
    return bars


def _plot(judges: list[dict[str, Any]], columns: list[dict[str, Any]], path: Path, min_n: int = MIN_N) -> bool:
    """Fig. 2-like: accuracy (bars, 95% CI) per protocol × judge, one panel per scope (`figure_bars`);
    small cells hatched, cells failing the quality bar pale with a ⚑ above them, human bars labelled
    with the rooms they are on (the figure is read alone)."""
    bars = figure_bars(judges, columns, min_n)
    scopes = sorted({b["scope"] for b in bars})
    if not scopes:
        return False
    protos = sorted({c["protocol"] for c in columns}, key=_proto_key)
    colour = {p: f"C{i % 10}" for i, p in enumerate(protos)}
    # one panel per scope, stacked, so that the page shows the figure at a readable size; the legend above
    # them, in as many rows as its entries need at this width
    n_x = max(1 + b["x"] for b in bars)
    width = max(6.0, 1.1 * n_x + 2)
    n_legend = len(protos) + 2 + any(b["self_judged"] for b in bars)
    ncol = max(1, min(n_legend, int(width / 1.7)))
    legend_rows = -(-n_legend // ncol)
    height = 3.3 * len(scopes) + 0.3 + 0.25 * legend_rows
    with saved_figure(path, len(scopes), 1, figsize=(width, height), squeeze=False,
                      layout={"rect": (0, 0, 1, 1 - (0.2 + 0.25 * legend_rows) / height)}) as (fig, axes):
        for ax, sc in zip(axes[:, 0], scopes):
            mine = [b for b in bars if b["scope"] == sc]
            ps = sorted({b["protocol"] for b in mine}, key=_proto_key)
            width = 0.8 / max(1, len(ps))
            labels: dict[int, str] = {}
            for b in mine:
                k = ps.index(b["protocol"])
                acc = b["accuracy"]
                lo = acc - (b["ci_low"] if b["ci_low"] is not None else acc)
                hi = (b["ci_high"] if b["ci_high"] is not None else acc) - acc
                x = b["x"] + (k - (len(ps) - 1) / 2) * width
                ax.bar(x, acc, width, yerr=[[lo], [hi]], capsize=2, color=colour[b["protocol"]],
                       hatch="//" if b["small"] else None, alpha=0.45 if b["small"] or b["flagged"] else 1.0,
                       edgecolor="k" if b["small"] else None)
                if b["flagged"]:
                    ax.text(x, min(0.97, acc + hi + 0.02), "⚑", ha="center", va="bottom", fontsize=8, color="#a22")
                if b["self_judged"]:  # the judge is the agent's model: said on the bar itself
                    ax.text(x, 0.02, "judge = agent", ha="center", va="bottom", fontsize=6, rotation=90, color="k")
                if b["rooms"]:  # a human bar says which rooms it is on
                    where = "the models' rooms" if b["rooms"] == "models' rooms" else "all rooms"
                    ax.text(x, 0.02, f"n={b['n']}, {where}", ha="center", va="bottom", fontsize=6, rotation=90, color="white")
                labels.setdefault(b["x"], _label(b["judge"]))
            ax.axhline(0.5, color="grey", lw=0.8, ls="--")
            ax.set_xticks(sorted(labels))
            ax.set_xticklabels([labels[i] for i in sorted(labels)], rotation=25, ha="right", fontsize=8)
            ax.set_ylim(0, 1)
            ax.set_title(sc)
            ax.set_ylabel("judge accuracy (95% CI)")
        from matplotlib.patches import Patch

        handles = [Patch(color=colour[p], label=p) for p in protos] + [Patch(facecolor="white", edgecolor="k", hatch="//", label=f"n < {min_n}"),
                                                                       Patch(facecolor="white", edgecolor="white", label="⚑ fails the quality bar")]
        if any(b["self_judged"] for b in bars):
            handles.append(Patch(facecolor="white", edgecolor="white", label=f"\"judge = agent\": {SELF_JUDGED}"))
        fig.legend(handles=handles, fontsize=8, loc="upper center", ncol=ncol, frameon=False)
    return True


def _elo_table(runs: list[Run]) -> dict[str, Any] | None:
    elo = elo_of_runs(runs)
    if not elo:
        return None
    agg = elo["aggregate"]
    return {"players": [{"player": p, "games": agg["games_by_player"][p], "rating": agg["ratings"][p],
                         "ci_low": agg["ci_low"][p], "ci_high": agg["ci_high"][p]} for p in agg["players"]],
            "n_games": agg["n_games"], "prior": agg.get("prior"), "bootstrap_unit": agg.get("bootstrap_unit"), "full": elo}


# -- what the page and the Markdown say (one formatting for both) --------------------------------------


def _human_about(row: dict[str, Any]) -> str:
    """Who a human row's judges are, from its data: the import record of each run behind it (the
    suite, how many judges and rooms, the source) and the suite's own description in the registry."""
    parts = []
    for prov in row.get("provenance") or []:
        imp = prov.get("import") if isinstance(prov.get("import"), dict) else None
        if not imp:
            continue
        suite = _suite_of_import(str(imp.get("kind")))
        counts = imp.get("counts") if isinstance(imp.get("counts"), dict) else {}
        n = counts.get("human_judges")
        text = "the live verdicts" + (f" of {n} human judge{'s' if n != 1 else ''}" if n else " of the human judges")
        text += f" imported with the transcript suite {suite}"
        described = _suite_description(suite)
        if described:
            text += f" ({described})"
        by = counts.get("by_protocol") if isinstance(counts.get("by_protocol"), dict) else {}
        if by:
            text += ": " + ", ".join(f"{n} {p} rooms" for p, n in sorted(by.items()))
        parts.append(text)
    if not parts:
        runs = sorted({Path(str(p.get("dir"))).name for p in row.get("provenance") or [] if p.get("dir")})
        parts.append("human verdicts recorded in " + (", ".join(runs) if runs else "runs this build was not given"))
    n_rooms = sum(c.get("n_records") or 0 for c in row["cells"].values())
    return (f"{row['judge']}: " + "; ".join(parts) + f" ({n_rooms} rooms in this table). In a model's cell, these judges"
            " on the same rooms, with the paired permutation p-value; in this row, the rooms the models' cells"
            " of the column count first, then all of this row's rooms.")


def _suite_description(name: str) -> str | None:
    """A suite's description and source, as its plugin registers them (None when it is not installed)."""
    from oversight_bench.registry import get_registry

    try:
        suite = get_registry().get("suites", name)
    except BenchError:
        return None
    desc, source = getattr(suite, "description", None), getattr(suite, "source", None)
    return "; ".join(str(x) for x in (desc, f"source: {source}" if source else None) if x) or None


def deviation_lines(row: dict[str, Any]) -> list[tuple[str, list[str] | None]]:
    """A row's deviations from the paper, each with the cells it applies to (None: every cell of the
    row), so that a deviation of some runs (a one-round agent) is not read as one of every cell."""
    keys = list(row["cells"])
    out = []
    for dev in row.get("deviations") or []:
        where = [k for k in keys if dev in (row["cells"][k].get("deviations") or row.get("deviations") or [])]
        out.append((dev, None if len(where) == len(keys) else where))
    return sorted(out, key=lambda x: (x[1] is not None, x[0]))


def _cell_view(row: dict[str, Any], key: str, cell: dict[str, Any] | None, min_n: int) -> dict[str, Any] | None:
    """A table cell as the page and the Markdown show it, every figure formatted here."""
    if cell is None:
        return None
    q = cell.get("quality") or None
    primary, lines = cell, []
    on = cell.get("on_model_rooms") if row["kind"] == "human" else None
    if on:
        primary = on
        lines.append(f"[{pct(on.get('ci_low'))}, {pct(on.get('ci_high'))}] n={on['n']} on the {on['n_records']} rooms "
                     "the models' cells count")
        lines.append(f"all {cell['n_records']} rooms: {pct(cell['accuracy'])} [{pct(cell['ci_low'])}, "
                     f"{pct(cell['ci_high'])}] n={cell['n']}")
    else:
        lines.append(f"[{pct(cell['ci_low'])}, {pct(cell['ci_high'])}] n={cell['n']}")
    quality = []
    if q:
        plain = f" (plain {quality_mod.pct_sign(q['plain_answer1_share'])})" if q.get("n_plain") else ""
        quality.append(f"invalid {quality_mod.pct_sign(q['invalid_rate'])} · answer 1 {quality_mod.pct_sign(q['answer1_share'])}{plain}")
        if q.get("n_agent_turns"):
            quality.append(f"no-arg {quality_mod.pct_sign(q['argumentless_rate'])} · forced "
                           f"{quality_mod.pct_sign(q['forced_rate'])} · cut {quality_mod.pct_sign(q['cut_rate'])}"
                           + (f" · u-quote args {quality_mod.pct_sign(q['unverified_args_rate'])}"
                              if "unverified_args_rate" in q else ""))
    else:
        quality.append("quality –")
    if cell.get("stance"):
        quality.append(str(cell["stance"]))
    refs = [f"{r.get('judge') or 'human'} on the same rooms: {pct(r['accuracy'])} (n={r['n']}, {_p(r.get('p_value'))})"
            for r in cell.get("references") or []]
    carried = cell.get("carried")
    link, why = (on or {}).get("rooms") or cell.get("rooms") or cell.get("transcripts"), cell.get("no_link")
    all_link = cell.get("rooms") if on and on.get("rooms") else None  # the "all N rooms" line's own list
    return {"key": key, "sort": "" if primary.get("accuracy") is None else repr(float(primary["accuracy"])),
            "acc": pct(primary.get("accuracy")), "small": bool(cell["small"]), "flagged": list(cell.get("flagged") or []),
            "carried": f"† from the build of {str((carried or {}).get('generated') or 'unknown')[:10]}" if carried else "",
            "lines": lines, "quality": quality, "refs": refs, "link": link, "all_link": all_link,
            "self_judged": str(cell.get("self_judged") or ""),
            "link_title": ("its rooms" if cell.get("rooms") else "its transcripts (carried page)") if link else "",
            "no_link": why or "", "n": cell["n"], "placeholder": f"n<{min_n}" + (" †" if carried else "")}


def _headline_view(h: dict[str, Any]) -> dict[str, Any]:
    left = h.get("excluded") or []
    with_ = h.get("flagged_included") or []
    own = h.get("self_judged") or []
    note = (f"without ⚑ {len(left)} cell{'s' if len(left) != 1 else ''}" if left else
            f"with ⚑ {len(with_)} cell{'s' if len(with_) != 1 else ''}" if with_ else "")
    if own:
        note = "; ".join(x for x in (note, f"without {len(own)} judge = agent cell{'s' if len(own) != 1 else ''}") if x)
    return {"sort": "" if h.get("diff") is None else repr(float(h["diff"])),
            "text": "–" if h.get("diff") is None else f"{pts(h['diff'])} pts",
            "sub": "" if h.get("diff") is None else f"{_p(h.get('p_value'))} · n={h.get('n')}" + (" †" if h.get("carried") else ""),
            "note": note, "cells": left or with_, "self_judged": own}


def page_table(result: dict[str, Any]) -> dict[str, Any]:
    """The judge table as index.html draws it: per row, the judge, a view of each column's cell
    (`_cell_view`), the headlines, and what its toggle holds (deviations per cell, flags, who the
    human judges are, why a cell has no rooms)."""
    cols = result["columns"]
    rows = []
    for j in result["judges"]:
        cells = [_cell_view(j, c["key"], j["cells"].get(c["key"]), result["min_n"]) for c in cols]
        heads = [_headline_view(h) for h in j["headlines"]]
        devs = deviation_lines(j)
        flags = [(k, c["flagged"]) for k, c in j["cells"].items() if c.get("flagged")]
        unlinked = [(k, c["no_link"]) for k, c in j["cells"].items() if c.get("no_link")]
        n_some = sum(1 for _, where in devs if where is not None)
        summary = [f"{len(devs)} deviation{'s' if len(devs) != 1 else ''} from the paper"
                   + (f" ({n_some} in some cells only)" if n_some else "")]
        if flags:
            summary.append(f"⚑ {len(flags)} flagged cell{'s' if len(flags) != 1 else ''}")
        rows.append({"judge": j["judge"], "kind": j["kind"], "cells": cells, "headlines": heads, "deviations": devs,
                     "flags": flags, "unlinked": unlinked, "about": j.get("about") or "", "summary": " · ".join(summary),
                     "excluded": [(result["headline_names"][i], h["cells"], bool(j["headlines"][i].get("flagged_included")))
                                  for i, h in enumerate(heads) if h["cells"]],
                     "self_judged": [(result["headline_names"][i], h["self_judged"]) for i, h in enumerate(heads) if h["self_judged"]]})
    paired = [{"judge": j["judge"], "scope": t["scope"], "pair": f"{t['a']} − {t['b']}", "n": t["n"],
               "a": pct(t["accuracy_a"]), "b": pct(t["accuracy_b"]), "diff": pts(t["diff"]), "p": p_text(t["p_value"]),
               "notes": "; ".join(_paired_notes(t)) + (" †" if t.get("carried") else "")}
              for j in result["judges"] for t in j.get("paired") or []]
    return {"columns": cols, "headline_names": result["headline_names"], "rows": rows, "paired": paired}


def markdown(result: dict[str, Any], show_small: bool = False) -> str:
    """leaderboard.md: the same table, figures and notes as index.html (`page_table`), as Markdown."""
    table = page_table(result)
    cols = result["columns"]
    links = " · ".join(f"[{name}]({name})" for name in ("README.md", "results.json", "index.html")
                       if name != "README.md" or result.get("readme"))
    lines = ["# oversight-bench leaderboard: judges", "",
             f"Generated {result['generated']} (code {result['commit'] or 'unknown'}). {links}.", "",
             "Accuracy % over valid answers [95% CI] n (questions; replicates of a question averaged, normal "
             "approximation), with the invalid rate beside it; the transcript quality of each cell is in the table "
             f"below. ⚑ marks a cell failing the quality bar ({result.get('quality_bar') or QUALITY_BAR}), with its "
             "reasons; flagged cells are "
             + ("included in the headline differences (--include-flagged). " if result.get("include_flagged")
                else "left out of the headline differences (`--include-flagged` puts them in). ")
             + (f"Cells with n < {result['min_n']} are flagged ⚠." if show_small else
                f"Cells with n < {result['min_n']} are hidden (`leaderboard --show-small` shows them).")
             + " Figures are rounded half up from the value in results.json. " + _rooms_sentence(result, md=True), "",
             *([_all_hidden_sentence(result, md=True), ""] if all_small(result) and not show_small else []),
             "| judge | " + " | ".join(md_text(c["key"]) for c in cols) + " | "
             + " | ".join(map(md_text, result["headline_names"])) + " |",
             "|" + "---|" * (len(cols) + 1 + len(result["headline_names"]))]
    for row in table["rows"]:
        cells = []
        for v in row["cells"]:
            if v is None:
                cells.append("–")
            elif v["small"] and not show_small:
                cells.append(v["placeholder"])
            else:
                text = f"{v['acc']} " + (f"({'; '.join(v['lines'])})" if len(v["lines"]) > 1 else v["lines"][0])
                if v["quality"] and v["quality"][0] != "quality –":
                    text += ", " + v["quality"][0].split(" · ")[0]
                text += (" ⚠" if v["small"] else "") + (" †" if v["carried"] else "")
                text += f" [{md_text(v['self_judged'])}]" if v["self_judged"] else ""
                text += "".join(f" ({md_text(r)})" for r in v["refs"])
                if v["flagged"]:
                    text += " ⚑ " + "; ".join(map(md_text, v["flagged"]))
                cells.append(text)
        heads = [h["text"] + (f", {h['sub']}" if h["sub"] else "")
                 + (f" ({'with' if h['note'].startswith('with ') else 'without'} ⚑ {', '.join(map(md_text, h['cells']))})"
                    if h["cells"] else "")
                 + (f" (without judge = agent {', '.join(map(md_text, h['self_judged']))})" if h["self_judged"] else "")
                 for h in row["headlines"]]
        name = md_text(row["judge"]) + (" (human reference)" if row["kind"] == "human" else "")
        lines.append("| " + " | ".join([name, *cells, *heads]) + " |")  # what came from the runs is md_text already
    abouts = [r["about"] for r in table["rows"] if r["about"]]
    if abouts:
        lines += ["", "Human rows: " + " ".join(md_text(a) for a in abouts)]
    lines += _quality_md(result, show_small)
    lines += _stance_md(result, show_small)
    lines += _paired_md(result)
    lines += _notes_md(table)
    carried = sorted({(x["carried"].get("generated") or "?", x["carried"].get("commit") or "?")
                      for j in result["judges"] for x in j["cells"].values() if x.get("carried")})
    if carried:
        lines += ["", "† carried from an earlier build whose runs were not given to this one: "
                  + "; ".join(f"generated {md_text(g)}, code {md_text(c[:12])}" for g, c in carried) + "."]
    elo = result.get("elo")
    lines += ["", "## Debater Elo (cross-play)", ""]
    if elo:
        lines += [f"{elo['n_games']} cross-play games of the runs given to this build; 95% bootstrap CIs "
                  f"({md_text(elo.get('bootstrap_unit') or 'games')}). Prior: {md_text(elo.get('prior') or 'not recorded')}.", "",
                  "| debater | games | Elo | 95% CI |", "|---|---|---|---|"]
        for p in sorted(elo["players"], key=lambda p: -p["rating"]):
            lines.append(f"| {md_text(p['player'])} | {p['games']} | {_r(p['rating'])} | [{_r(p['ci_low'])}, {_r(p['ci_high'])}] |")
    else:
        lines.append("No cross-play runs given (Elo is never carried from an earlier build: only cross-play runs given "
                     "to this one are rated).")
    return "\n".join(lines) + "\n"


def _rooms_sentence(result: dict[str, Any], md: bool = False) -> str:
    """Where the evidence is: each built cell links to the list of exactly the rooms it counts."""
    rooms = result.get("rooms") or {}
    if not rooms.get("n_cells"):
        return "No cell of this build has room pages (every cell is carried)."
    code = (lambda t: f"`{t}`") if md else (lambda t: t)
    how = ("written by the build (the viewer plugin draws them)" if rooms.get("written") else
           f"written by {code('oversight-bench view RUN_DIRS --export ' + rooms['folder'] + ' --cells ' + rooms['cells_file'])}")
    return (f"Each cell links to the list of exactly the rooms it counts ({code(rooms['folder'] + '/cells/<cell>/')}; "
            f"a human cell's figure on the models' rooms links to those, its \"all N rooms\" line to all of them; "
            f"every room of the runs: {code(rooms['folder'] + '/index.html')}), {how} "
            f"from {code(rooms['cells_file'])}, which names each cell's decisions.")


def _notes_md(table: dict[str, Any]) -> list[str]:
    """Per judge: its deviations from the paper (with the cells a deviation applies to where not all),
    its flags, and cells without room pages, and why (the headline cells name the cells they leave out)."""
    out = []
    for row in table["rows"]:
        items = []
        for dev, where in row["deviations"]:
            items.append(f"- {md_text(dev)}" + (f" — only {', '.join(map(md_text, where))}" if where is not None else ""))
        if not row["deviations"]:
            items.append("- no deviation from the paper recorded")
        items += [f"- ⚑ {md_text(k)}: " + "; ".join(map(md_text, why)) for k, why in row["flags"]]
        items += [f"- {md_text(name)} without {', '.join(map(md_text, cells))}: {SELF_JUDGED}" for name, cells in row["self_judged"]]
        items += [f"- {md_text(k)}: {md_text(why)}" for k, why in row["unlinked"]]
        out += ["", f"**{md_text(row['judge'])}** ({md_text(row['summary'])})", "", *items]
    return ["", "## Deviations from the paper and flags, per judge", *out] if out else []


def _quality_md(result: dict[str, Any], show_small: bool) -> list[str]:
    """The transcript quality of every shown cell: invalid answers, accuracy with them counted wrong,
    agent turns argument-less / forced / cut ('–': unknown, no budget records), answer-1 share, flags."""
    pc = quality_mod.pct_sign
    rows = []
    for j in result["judges"]:
        for key, x in j["cells"].items():
            q = x.get("quality")
            if not q or (x["small"] and not show_small):
                continue
            words = "–" if q["mean_argument_words"] is None else _r(q["mean_argument_words"])
            turns = [str(q["n_agent_turns"]), pc(q["argumentless_rate"]), pc(q["forced_rate"]), pc(q["cut_rate"]), words] \
                if q["n_agent_turns"] else ["0", "", "", "", ""]
            rows.append("| " + " | ".join([
                md_text(j["judge"]), md_text(key), f"{q['n_invalid']}/{q['n_records']}", pc(q["accuracy_invalid_wrong"]), *turns,
                pc(q["answer1_share"]), "; ".join(map(md_text, x.get("flagged") or []))]) + " |")
    if not rows:
        return []
    return ["", "## Transcript quality", "",
            "Accuracy above is over valid answers; here invalid answers are counted as wrong. Agent turns: the share "
            "without an argument, forced (thinking budget spent, continued from \"Argument:\") and cut (argument budget "
            "spent) — – where the runs recorded no budgets. Answer 1: the judge's share of answer 1 among valid answers.", "",
            "| judge | cell | invalid | acc % (invalid = wrong) | agent turns | no-arg | forced | cut | words | answer 1 | flags |",
            "|" + "---|" * 11, *rows]


def _r(v: float | None) -> str:
    """A rating or word count: whole, by the one rounding rule."""
    return "–" if v is None else quality_mod.decimal_round(v, 0)


def _qkey(key: tuple[str, str]) -> str:
    return f"{key[0]}/{key[1]}"


class _Checked(BaseModel):
    """Strict types for the fields the tables, the page and the headlines read; others pass through."""
    model_config = ConfigDict(extra="allow", strict=True)


class _Build(_Checked):
    generated: Optional[str] = None
    commit: Optional[str] = None


class _Reference(_Checked):
    judge: Optional[str] = None
    accuracy: Optional[float]
    n: int = Field(ge=0)
    p_value: Optional[float] = None


class _Stats(_Checked):
    accuracy: Optional[float] = Field(default=None, ge=0, le=1)
    n: int = Field(ge=0)
    n_records: int = Field(default=0, ge=0)
    ci_low: Optional[float] = None
    ci_high: Optional[float] = None


class _CarriedCell(_Checked):
    protocol: str
    scope: str
    n: int = Field(ge=0)
    accuracy: Optional[float] = Field(default=None, ge=0, le=1)
    ci_low: Optional[float] = None
    ci_high: Optional[float] = None
    per_question: Optional[dict[str, float]] = None
    transcripts: Optional[str] = None
    rooms: Optional[str] = None
    no_link: Optional[str] = None
    carried: Optional[_Build] = None
    reference: Optional[_Reference] = None  # schema v2: the one human reference
    references: Optional[list[_Reference]] = None
    on_model_rooms: Optional[_Stats] = None
    deviations: Optional[list[str]] = None
    quality: Optional[dict[str, Any]] = None
    flagged: Optional[list[str]] = None


class _Headline(_Checked):
    a: str
    b: str
    diff: Optional[float] = None
    p_value: Optional[float] = None
    n: int = Field(default=0, ge=0)
    carried: Optional[_Build] = None

    @model_validator(mode="after")
    def _p_with_diff(self) -> "_Headline":
        if self.diff is not None and self.p_value is None:
            raise ValueError("a headline with a diff needs its p_value")
        return self


class _CarriedRow(_Checked):
    judge: str
    kind: Literal["model", "human"] = "model"
    cells: dict[str, _CarriedCell] = {}
    headlines: list[_Headline] = []
    deviations: list[str] = []
    provenance: list[dict[str, Any]] = []
    about: Optional[str] = None


class _CarriedPlayer(_Checked):
    player: str
    games: int = Field(ge=0)
    rating: float
    ci_low: Optional[float]
    ci_high: Optional[float]


class _CarriedElo(_Checked):
    n_games: int = Field(ge=0)
    players: list[_CarriedPlayer]
    prior: Optional[str] = None
    bootstrap_unit: Optional[str] = None
    carried: Optional[_Build] = None


class _Carried(_Checked):
    schema_: str = Field(alias="schema")
    generated: Optional[str] = None
    commit: Optional[str] = None
    judges: list[_CarriedRow]
    elo: Optional[_CarriedElo] = None


def check_output(output: str | Path, force: bool = False) -> None:
    """Refuse, before anything is written or deleted, an output folder a build would damage. A build
    overwrites results.json, leaderboard.md, index.html, the cells file and the figure and deletes
    transcript pages it does not link, so: a missing or empty folder is fine; a folder holding a
    leaderboard (a results.json of this SCHEMA or an older one) only with `force`; any other non-empty
    folder never, `force` or not."""
    out = Path(output)
    if not out.exists():
        return
    if not out.is_dir():
        raise BenchError(f"{out} is not a folder; give --output a new or empty folder")
    try:
        if not any(out.iterdir()):
            return
    except OSError as exc:
        raise BenchError(f"cannot read leaderboard folder {out}: {exc.strerror}; expected a readable folder") from None
    board = None
    try:
        data = load_json_text(read_input_bytes(out / "results.json", "leaderboard", MAX_CARRY_BYTES),
                              str(out / "results.json"), "a leaderboard")
        if isinstance(data, dict) and data.get("schema") in (SCHEMA, *OLD_SCHEMAS):
            board = data
    except (OSError, BenchError):
        pass
    if board is None:
        raise BenchError(f"{out} is not empty and holds no leaderboard (no {SCHEMA} results.json); "
                         "give --output a new or empty folder")
    if not force:
        raise BenchError(f"{out} holds a leaderboard (generated {board.get('generated') or 'unknown'}); "
                         "rebuilding it replaces its pages: add --force")
    link = first_link(out)
    if link is not None:  # a page replaced by a link to a file outside: a rebuild would write through it
        raise BenchError(f"{out} holds a symbolic link ({link.relative_to(out)}), which no leaderboard build wrote; "
                         "remove it, or give --output a new or empty folder")


#: the largest results.json (or page data) read from a carried board; a real one is well under 1 MB
MAX_CARRY_BYTES = 64 << 20


def load_carry(path: str | Path, board: Path | None = None) -> dict[str, Any]:
    """A previous build's results.json, whose cells this build keeps where it measures nothing for
    them; every carried row, cell and Elo player is checked before anything is written."""
    raw = read_input_bytes(Path(path), "--carry", MAX_CARRY_BYTES)
    prev = load_json_text(raw, f"--carry {path}", "a leaderboard's results.json")
    if not isinstance(prev, dict) or prev.get("schema") not in (SCHEMA, *OLD_SCHEMAS) or not isinstance(prev.get("judges"), list):
        raise BenchError(f"--carry {path}: not a {SCHEMA} results.json; expected one written by `oversight-bench leaderboard`")
    try:
        _Carried.model_validate(prev)
    except ValidationError as exc:
        raise validation_error(exc, f"--carry {path} (a results.json of `oversight-bench leaderboard`)") from None
    pages: dict[str, dict[str, Any] | None] = {}
    for row in prev["judges"]:
        for key, cell in (row.get("cells") or {}).items():
            if key != f"{cell['protocol']} · {cell['scope']}":
                raise BenchError(f"--carry {path}: judge {row['judge']!r} has cell {key!r} holding "
                                 f"{cell['protocol']} · {cell['scope']}; expected the key to name its protocol and scope")
            link = cell.get("transcripts")
            if link is not None and not PAGE_LINK.fullmatch(link):
                raise BenchError(f"--carry {path}: judge {row['judge']!r} cell {key!r} links {link[:80]!r}; expected "
                                 f"transcripts/NAME.html (a page of the carried board)")
            if link is not None and link not in pages:
                pages[link] = _carried_page([Path(path).parent, *([board] if board else [])], link)
            ref = cell.pop("reference", None)  # v2's one reference: v3's list
            if ref is not None and cell.get("references") is None:
                cell["references"] = [ref]
    prev["_pages"] = pages
    return prev


class _PageAnswer(_Checked):
    model_config = ConfigDict(extra="forbid", strict=True)
    text: str
    correct: bool


class _PageTurn(_Checked):
    model_config = ConfigDict(extra="forbid", strict=True)
    role: str
    round: Optional[int | str] = None
    speaker: str
    defends: Optional[int | str] = None
    marks: list[str] = []
    text: Optional[str] = None


class _PageVerdict(_Checked):
    model_config = ConfigDict(extra="forbid", strict=True)
    judge: str
    answer: Optional[int | str] = None
    correct: bool
    probs: Optional[list[Optional[float]]] = None


class _PageRoom(_Checked):
    model_config = ConfigDict(extra="forbid", strict=True)
    id: str = Field(pattern=r"^[A-Za-z0-9-]{1,200}$")
    question: str
    protocol: str
    task: str
    assignment: str
    answer_order: str
    agent: str
    answers: list[_PageAnswer]
    turns: list[_PageTurn]
    verdicts: list[_PageVerdict]


class _Page(_Checked):
    model_config = ConfigDict(extra="forbid", strict=True)
    schema_: Literal["oversight-bench/leaderboard-page/v1"] = Field(alias="schema")
    title: str
    heading: str
    rooms: list[_PageRoom]
    n_rooms: int = Field(ge=0)
    judges: str


def _carried_page(folders: list[Path], link: str) -> dict[str, Any] | None:
    """The data a carried page was rendered from (`_write_page`), read from the transcripts folder of
    the carried board, else of the board being rebuilt (its own earlier pages): a link on the way or
    a file outside that folder is refused; a page without data (a build before pages kept it) is
    None, and its cell keeps no page."""
    for folder in folders:
        data_file = folder / (link.removesuffix(".html") + ".json")
        for p in (folder / "transcripts", data_file, folder / link):
            if p.is_symlink():
                raise BenchError(f"--carry: {p} is a symbolic link; expected the carried board's own files (pages are "
                                 f"rendered again from their data, never copied or followed)")
        if data_file.is_file():
            break
    else:
        return None
    if not data_file.resolve().is_relative_to(folder.resolve()):
        raise BenchError(f"--carry: {data_file} lies outside the carried folder {folder}; expected its own files")
    raw = read_input_bytes(data_file, "--carry page data", MAX_CARRY_BYTES, follow_symlinks=False)
    data = load_json_text(raw, f"--carry page data {data_file}", "a leaderboard page's data")
    try:
        return _Page.model_validate(data).model_dump(by_alias=True)
    except ValidationError as exc:
        raise validation_error(exc, f"--carry page data {data_file} (written by `oversight-bench leaderboard`)") from None


#: why a carried cell of an argued protocol is flagged when its build recorded no transcript quality
UNMEASURED = "transcript quality not measured (carried from a build that did not record it)"


def _argued(protocol: str) -> bool:
    """Whether a protocol's transcripts hold agent arguments (an unknown protocol is assumed to)."""
    from oversight_bench.registry import get_registry

    reg = get_registry()
    return protocol not in reg.names("protocols") or bool(reg.get("protocols", protocol).uses_agent)


def _option_deviations(provenance: list[dict[str, Any]]) -> set[str]:
    """The option deviations of carried runs, derived again from the options their provenance
    recorded: an older build may have declared fewer (token caps, judge temperature)."""
    from oversight_bench.deviations import option_deviations

    return {d for p in provenance if isinstance(p.get("options"), dict) for d in option_deviations(p["options"])}


def _unmeasured_flags(cell: dict[str, Any]) -> list[str]:
    """Flags of a carried cell whose build recorded no quality: an argued protocol's arguments cannot
    be checked; a cell whose every question was right in exactly one of its two answer orders is a
    position picker's (its CI has zero width for that reason)."""
    flags = [UNMEASURED] if _argued(cell["protocol"]) else []
    scores = list((cell.get("per_question") or {}).values())
    if len(scores) > 1 and all(s == 0.5 for s in scores):
        flags.append(f"every one of its {len(scores)} questions right in exactly one of its two answer orders (a position picker)")
    return flags


def _carry_cells(prev: dict[str, Any], judges_out: list[dict[str, Any]], columns: list[tuple[str, str]],
                 min_n: int, out: Path) -> int:
    """Add the previous build's cells (and rows) this build did not measure, each marked `carried`
    with the build it came from and `small` by this build's `min_n`. Their runs are not here, so they
    have no room pages: a cell keeps the transcript page its board rendered (rendered again from the
    data kept beside it, `load_carry`), else it has none and `no_link` says why. A cell without its
    own `deviations` (an older build) gets its row's. A row's headlines are remembered so that one
    whose cells cannot pair (no per-question scores) keeps them. Returns how many cells were carried."""
    rows = {r["judge"]: r for r in judges_out}
    since = {"generated": prev.get("generated"), "commit": prev.get("commit")}
    when = str(prev.get("generated") or "unknown")[:10]
    built: set[str] = set()
    n = 0
    for old in prev["judges"]:
        row = rows.get(old["judge"])
        if row is None:
            row = {"judge": old["judge"], "kind": old.get("kind", _judge_kind(old["judge"])), "cells": {}, "headlines": [],
                   "deviations": [], "provenance": []}
            rows[old["judge"]] = row
            judges_out.append(row)
        row["_old_headlines"] = [{**h, "carried": h.get("carried") or since} for h in old.get("headlines") or []
                                 if isinstance(h, dict) and h.get("diff") is not None]
        fresh = not row["cells"]
        old_devs = set(old.get("deviations") or []) | _option_deviations(old.get("provenance") or [])
        for key, cell in (old.get("cells") or {}).items():
            if key in row["cells"]:
                continue
            cell = {**cell, "carried": cell.get("carried") or since, "small": cell["n"] < min_n}
            cell.pop("rooms", None)  # its runs are not given to this build: no room pages
            if isinstance(cell.get("on_model_rooms"), dict):
                cell["on_model_rooms"] = {k: v for k, v in cell["on_model_rooms"].items() if k != "rooms"}
            cell.pop("no_link", None)
            if cell.get("deviations") is None:
                cell["deviations"] = sorted(old_devs)
            cell.pop("self_judged", None)  # decided again, by this build's rule
            if self_judged(old["judge"], cell["protocol"], _carried_agents(cell, old.get("provenance") or [])):
                cell["self_judged"] = SELF_JUDGED
            if cell.get("quality") is None:  # a build that recorded no quality: what its data still shows
                cell["flagged"] = _unmeasured_flags(cell)
            page = cell.get("transcripts")
            if page and page not in built:
                data = prev["_pages"].get(page)
                if data is None:
                    cell.pop("transcripts")
                else:
                    _write_page(out / "transcripts", PAGE_LINK.fullmatch(page).group(1), data)
                    built.add(page)
            if not cell.get("transcripts"):
                cell["no_link"] = (f"carried from the build of {when}, whose runs were not given to this build: "
                                   "no room pages (rebuild with its runs to link them)")
            row["cells"][key] = cell
            if (cell["protocol"], cell["scope"]) not in columns:
                columns.append((cell["protocol"], cell["scope"]))
            n += 1
            fresh = True
        if fresh:
            dirs = {p.get("dir") for p in row["provenance"]}
            kept = [p for p in old.get("provenance") or [] if p.get("dir") not in dirs]  # not runs measured again here
            row["deviations"] = sorted(set(row["deviations"]) | set(old.get("deviations") or []) | _option_deviations(kept))
            row["provenance"] = list(row["provenance"]) + kept
    judges_out.sort(key=lambda r: (r["kind"] == "human", r["judge"]))
    return n


def _headlines(row: dict[str, Any], n_resamples: int, include_flagged: bool = False) -> list[dict[str, Any]]:
    """The paper's two comparisons from the row's cells (their per-question accuracies, paired on the
    questions both protocols have). A flagged cell (failing the quality bar) is left out and named in
    `excluded`, unless `include_flagged` (then it is named in `flagged_included`): a difference built
    on missing arguments or a position picker would not measure the protocols. Cells carried without
    per-question scores cannot pair: when all of a comparison's cells are such, the earlier build's
    figure is kept, marked carried."""
    out = []
    old = {(h["a"], h["b"]): h for h in row.pop("_old_headlines", [])}
    for a, b in headline_pairs():
        flagged = sorted(k for k, c in row["cells"].items() if c["protocol"] in (a, b) and c.get("flagged"))
        # a cell judged by the agent's own model measures no weak judge: never in these headlines
        own = sorted(k for k, c in row["cells"].items() if c["protocol"] in (a, b) and c.get("self_judged"))
        pq = {}
        for proto in (a, b):
            vals: dict[str, list[float]] = defaultdict(list)
            for key, c in row["cells"].items():
                if c["protocol"] == proto and key not in own and (include_flagged or key not in flagged):
                    for k, v in (c.get("per_question") or {}).items():
                        vals[k].append(v)
            pq[proto] = {k: sum(v) / len(v) for k, v in vals.items()}
        h = {"a": a, "b": b, **stats.paired_permutation_test(pq[a], pq[b], n_resamples=n_resamples),
             "excluded": [] if include_flagged else [k for k in flagged if k not in own],
             "flagged_included": [k for k in flagged if k not in own] if include_flagged else [], "self_judged": own}
        cells = [c for k, c in row["cells"].items() if c["protocol"] in (a, b) and k not in own
                 and (include_flagged or k not in flagged)]
        if h["diff"] is None and not own and (a, b) in old and cells and all(c.get("carried") and not c.get("per_question") for c in cells):
            h = {**old[(a, b)], "self_judged": own}
        out.append(h)
    return out


def paired_tests(row: dict[str, Any], n_resamples: int) -> list[dict[str, Any]]:
    """Within each column scope, each pair of protocols the build compares — the paper's headline pairs
    (`compared_with`) and each protocol derived from another's stored transcripts against its source
    (`derived_from`: debate − verified_evidence, debate − debate_unverified) — where the row has both
    cells with per-question scores: accuracy of both on the questions both have, the paired permutation
    test (a − b), and the cells' labels (flagged, judge = agent) so that none is read as a clean one."""
    out = []
    for scope in sorted({c["scope"] for c in row["cells"].values()}):
        for a, b in [*headline_pairs(), *((src, d) for src, d in derived_pairs())]:
            ca, cb = row["cells"].get(f"{a} · {scope}"), row["cells"].get(f"{b} · {scope}")
            if not (ca and cb and ca.get("per_question") and cb.get("per_question")):
                continue
            pa, pb = ca["per_question"], cb["per_question"]
            shared = sorted(set(pa) & set(pb))
            if not shared:
                continue
            t = stats.paired_permutation_test(pa, pb, n_resamples=n_resamples)
            out.append({"scope": scope, "a": a, "b": b, "n": len(shared),
                        "accuracy_a": sum(pa[k] for k in shared) / len(shared),
                        "accuracy_b": sum(pb[k] for k in shared) / len(shared),
                        "diff": t["diff"], "p_value": t["p_value"],
                        "flagged": [k for k, c in ((f"{a} · {scope}", ca), (f"{b} · {scope}", cb)) if c.get("flagged")],
                        "self_judged": [k for k, c in ((f"{a} · {scope}", ca), (f"{b} · {scope}", cb)) if c.get("self_judged")],
                        **({"carried": True} if ca.get("carried") or cb.get("carried") else {})})
    return out


def _stance_md(result: dict[str, Any], show_small: bool) -> list[str]:
    """The stance check of every shown cell with arguments (`leaderboard --stance-check SPEC`), each figure
    beside the checker's own accuracy on its calibration turns."""
    st = result.get("stance_check")
    if not st:
        return []
    rows = [f"| {md_text(j['judge'])} | {md_text(k)} | {md_text(c['stance'])} |" for j in result["judges"]
            for k, c in j["cells"].items() if c.get("stance") and (show_small or not c["small"])]
    return ["", "## Stance check", "",
            f"Checker {md_text(st['checker'])} asked which answer each argument supports (1, 2, or 0: neither or "
            f"concedes); an argument naming the other answer or 0 argues the other side or concedes. The checker is a model "
            f"that errs: its accuracy on turns known to argue their side ({md_text(st['calibration'])}) is beside every figure.",
            "", "| judge | cell | stance |", "|---|---|---|", *(rows or ["| – | – | no shown cell has checked arguments |"])]


def _paired_notes(t: dict[str, Any]) -> list[str]:
    """The labels of a paired test's cells (`paired_tests`), as the page and leaderboard.md both note them."""
    return [f"⚑ {k}" for k in t.get("flagged") or []] + [f"{k}: {SELF_JUDGED}" for k in t.get("self_judged") or []]


def _paired_md(result: dict[str, Any]) -> list[str]:
    """Every row's paired tests per column (`paired_tests`), as leaderboard.md's table."""
    rows = []
    for j in result["judges"]:
        for t in j.get("paired") or []:
            notes = _paired_notes(t)
            rows.append("| " + " | ".join([md_text(j["judge"]), md_text(t["scope"]), md_text(f"{t['a']} − {t['b']}"), str(t["n"]),
                                           pct(t["accuracy_a"]), pct(t["accuracy_b"]), pts(t["diff"]), p_text(t["p_value"]),
                                           "; ".join(map(md_text, notes)) + (" †" if t.get("carried") else "")]) + " |")
    if not rows:
        return []
    return ["", "## Paired tests per column", "",
            "Within one column scope, each protocol against the one it is compared with: the paper's pairs and each "
            "protocol judged from another's stored transcripts (`judge --from RUN --as NAME`) against that one, on the "
            "questions both cells have (accuracy per question, both orders averaged; paired permutation test).", "",
            "| judge | scope | A − B | n | A % | B % | A − B (pts) | p | notes |", "|" + "---|" * 9, *rows]


def _relative(run_dir: str, base: Path) -> str:
    """A run folder as the cells file names it: relative to the board folder (never the machine's
    absolute path), with / separators. Symbolic links are kept, not resolved."""
    return Path(os.path.relpath(os.path.abspath(run_dir), os.path.abspath(base))).as_posix()


def build_leaderboard(dirs: Iterable[str | Path], output: str | Path, *, show_small: bool = False,
                      min_n: int = MIN_N, n_resamples: int = stats.N_RESAMPLES, figures: bool = True,
                      carry: str | Path | None = None, include_flagged: bool = False,
                      force: bool = False, stance_check: str | None = None,
                      stance_calibration: str | Path | None = None) -> dict[str, Any]:
    """Build from run folders; with `carry` (a previous results.json), keep its cells that no run given
    measures (each marked with the build it came from), so a leaderboard can grow across machines.
    Flagged cells stay out of the headline tests unless `include_flagged`. With `stance_check` (a checker
    model spec, `analysis/stance.py`), every built cell with arguments gets the share of its arguments
    that argue the other side or concede, beside the checker's accuracy on its calibration turns
    (`stance_calibration`, default the cached khan-2024 suite). `output` must be missing,
    empty or (with `force`) hold a leaderboard (`check_output`), checked before anything is written."""
    dirs = list(dirs)
    refuse_output_inside(output, dirs, "leaderboard")
    check_output(output, force)
    _check_rooms_folder(Path(output) / ROOMS_DIR)
    for d in dirs:
        if in_use(d):
            raise BenchError(f"{d} is still being written by another oversight-bench process; a leaderboard publishes "
                             f"finished runs: build it once that run has finished")
    board = Path(output) if (Path(output) / "results.json").is_file() else None  # a board rebuilt (check_output)
    prev = load_carry(carry, board) if carry else None
    runs = load_runs(list(dirs), with_turns=True)
    cells: dict[tuple[str, str, str], list] = defaultdict(list)  # (judge, protocol, scope) -> decisions
    by_judge: dict[str, list] = defaultdict(list)
    runs_of: dict[str, set] = defaultdict(set)
    cfg_of = {str(r.dir): r.config or {} for r in runs}
    for r in runs:
        suite = _suite_of(r.config or {})
        for d in r.decisions:
            if d.get("unjudged") or _is_crossplay(d, r.config or {}):
                continue
            d = {**d, "scope": f"suite:{suite}" if suite else (d.get("task_type") or "unknown")}
            if d.get("judge_tool"):  # a judge with a tool (beyond the paper) is its own row, never pooled with itself without
                d["judge"] = f"{d['judge']} (judge tool: {d['judge_tool']})"
            cells[(d["judge"], d["protocol"], d["scope"])].append(d)
            by_judge[d["judge"]].append(d)
            runs_of[d["judge"]].add(str(r.dir))
    if not cells and not any(r.decisions for r in runs) and not prev:
        raise BenchError("no judged decisions in " + ", ".join(str(r.dir) for r in runs) + "; expected finished runs")
    out = Path(output)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BenchError(f"cannot create leaderboard folder {out}: {exc.strerror}; expected a writable path") from None
    turns_for = quality_mod.turns_lookup(runs)
    stance_of, stance = None, None
    if stance_check:  # before anything is written: a checker that cannot load fails the build here
        from oversight_bench.analysis import stance as stance_mod

        with_args = {d["run_dir"] for (_, p, _), ds in cells.items() if _argued(p) for d in ds}
        argued = [r for r in runs if str(r.dir) in with_args]  # the runs behind cells with arguments, no other
        by_job, stance = stance_mod.check_runs(argued, stance_check, stance_calibration)
        stance_of = lambda d: by_job.get((str(d.get("run_dir")), d.get("job_key"), d.get("judge"))) or []  # noqa: E731
    humans = sorted(j for j in by_judge if _judge_kind(j) == "human")
    human_ds = {h: _by_job(by_judge[h]) for h in humans}  # human judge -> (protocol, scope, job) -> decisions
    columns = sorted({(p, s) for (_, p, s) in cells}, key=lambda ps: (ps[1].startswith("suite:"), ps[1], _proto_key(ps[0])))
    judges_out = []
    room_cells: dict[str, dict[str, Any]] = {}  # the cells file: cell id -> title, decisions
    for judge in sorted(by_judge, key=lambda j: (_judge_kind(j) == "human", j)):
        row: dict[str, Any] = {"judge": judge, "kind": _judge_kind(judge), "cells": {}, "headlines": []}
        for (p, s) in columns:
            ds = cells.get((judge, p, s))
            if not ds:
                continue
            c = {"protocol": p, "scope": s, **_cell_stats(ds), "agents": sorted({str(d.get("agent")) for d in ds})}
            if self_judged(judge, p, c["agents"]):
                c["self_judged"] = SELF_JUDGED
            c["small"] = c["n"] < min_n
            c.update(_cell_quality(ds, turns_for))
            if stance_of is not None and _argued(p):  # stance_mod: imported above, with stance_of
                fig = stance_mod.figures(it for d in ds for it in stance_of(d))
                c["quality"].update(fig)
                c["stance"] = stance_mod.text(fig, stance) or None
            c["per_question"] = {_qkey(k): v for k, v in stats.per_question(ds).items()}
            c["deviations"] = sorted({x for rd in {d["run_dir"] for d in ds} for x in recorded_deviations(cfg_of[rd], p)})
            if row["kind"] == "model":
                refs = []
                for h in humans:
                    ref = [x for d in ds for x in human_ds[h].get((p, s, d["job_key"]), [])]
                    if ref:
                        t = stats.paired_permutation_test(stats.per_question(ds), stats.per_question(ref), n_resamples=n_resamples)
                        refs.append({"judge": h, **_cell_stats(ref), "p_value": t["p_value"], "diff": t["diff"]})
                if refs:
                    c["references"] = refs
            cid = cell_id(judge, p, s)
            room_cells[cid] = {"title": f"{judge} · {p} · {s}",
                               "decisions": sorted({(_relative(d["run_dir"], out), d["judge"], d["job_key"]) for d in ds})}
            c["rooms"] = rooms_link(cid)
            row["cells"][f"{p} · {s}"] = c
        row["deviations"] = sorted({x for rd in runs_of[judge] for x in recorded_deviations(cfg_of[rd])})
        row["provenance"] = [run_provenance(r) for r in runs if str(r.dir) in runs_of[judge]]
        judges_out.append(row)
    for row in judges_out:  # the human judges on exactly the rooms the models' cells of the column count
        if row["kind"] != "human":
            continue
        for key, c in row["cells"].items():
            jobs = {d["job_key"] for (j, p, s), ds in cells.items() if _judge_kind(j) == "model"
                    and f"{p} · {s}" == key for d in ds}
            on = [d for (p, s, job), hs in human_ds[row["judge"]].items() if f"{p} · {s}" == key and job in jobs for d in hs]
            if on:  # the figure the cell shows: its link lists exactly these rooms, "all N rooms" the rest
                cid = models_rooms_id(row["judge"], c["protocol"], c["scope"])
                room_cells[cid] = {"title": f"{row['judge']} · {key} · on the rooms the models' cells count",
                                   "decisions": sorted({(_relative(d["run_dir"], out), d["judge"], d["job_key"]) for d in on})}
                c["on_model_rooms"] = {**_cell_stats(on), "rooms": rooms_link(cid)}
    n_carried = _carry_cells(prev, judges_out, columns, min_n, out) if prev else 0
    columns.sort(key=lambda ps: (ps[1].startswith("suite:"), ps[1], _proto_key(ps[0])))
    warnings = [f"{row['judge']} · {key}: no human reference (the human judges' {key} cell is carried, without its "
                "rooms); give this build the suite's import folder too"
                for row in judges_out if row["kind"] == "model" for key, c in row["cells"].items()
                if not c.get("carried") and c["scope"].startswith("suite:") and not c.get("references")
                and any(h["kind"] == "human" and h["cells"].get(key, {}).get("carried") for h in judges_out)]
    for row in judges_out:
        row["headlines"] = _headlines(row, n_resamples, include_flagged)
        row["paired"] = paired_tests(row, n_resamples)
        if row["kind"] == "human":
            row["about"] = _human_about(row)
    tdir = out / "transcripts"
    linked = {c.get("transcripts") for r in judges_out for c in r["cells"].values()}
    if tdir.is_dir():
        for page in [*tdir.glob("*.html"), *tdir.glob("*.json")]:  # pages of cells not carried are stale
            if f"transcripts/{page.stem}.html" not in linked:
                page.unlink()
        if not any(tdir.iterdir()):
            tdir.rmdir()
    n_pages = sum(1 for t in linked if t and (out / t).exists())
    _write(out / CELLS_FILE, json.dumps({
        "about": (f"The decisions each cell of results.json counts, as [RUN_DIR (relative to this folder), JUDGE, JOB_KEY]: "
                  f"`oversight-bench view RUN_DIRS --export {ROOMS_DIR} --cells {CELLS_FILE}` writes each cell's rooms."),
        "back": {"link": "../index.html", "title": "leaderboard"}, "cells": room_cells},
        indent=1, ensure_ascii=False, sort_keys=True) + "\n")
    used = {run for c in room_cells.values() for run, _, _ in c["decisions"]}  # cross-play runs have no room
    written = _write_room_pages([r.dir for r in runs if _relative(str(r.dir), out) in used], out, len(room_cells))
    if room_cells and written is None:
        warnings.append(f"room pages not written: no room writer is installed (the viewer plugin, `pip install "
                        f"'oversight-bench[web]'`); the cells link to {ROOMS_DIR}/cells/<cell>/, which `oversight-bench "
                        f"view RUN_DIRS --export {out / ROOMS_DIR} --cells {out / CELLS_FILE}` writes")
    elo = _elo_table(runs)  # only from cross-play runs given: an earlier build's table is never carried (issue 34.4)
    if elo is None and prev and prev.get("elo"):
        warnings.append(f"the carried board's Elo table ({prev['elo'].get('n_games')} games, built "
                        f"{str(prev.get('generated') or 'unknown')[:10]}) is not carried: Elo is rated only from the "
                        "cross-play runs given to this build")
    result = _clean({"schema": SCHEMA, "generated": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                     "commit": _git_commit(), "min_n": min_n, "include_flagged": include_flagged,
                     "quality_bar": QUALITY_BAR, "stance_check": stance,
                     "columns": [{"key": f"{p} · {s}", "protocol": p, "scope": s} for p, s in columns],
                     "headline_names": [f"{a} − {b}" for a, b in headline_pairs()], "judges": judges_out,
                     "elo": elo, "n_transcripts": n_pages, "n_carried": n_carried, "warnings": warnings, "figure": None,
                     "rooms": {"cells_file": CELLS_FILE, "folder": ROOMS_DIR, "n_cells": len(room_cells),
                               "written": written is not None},
                     "readme": "README.md" if (out / "README.md").is_file() else None})
    if figures and _plot(result["judges"], result["columns"], out / "fig2_judges.png", min_n):
        result["figure"] = "fig2_judges.png"
    elif (out / "fig2_judges.png").exists():
        (out / "fig2_judges.png").unlink()  # a figure of an earlier build would not show this table
    _write(out / "results.json", json.dumps(result, indent=1, ensure_ascii=False))
    _write(out / "leaderboard.md", markdown(result, show_small))
    _write(out / "index.html", render_index(result))
    return result


def _check_rooms_folder(rooms: Path) -> None:
    """The room pages go into ROOMS_DIR: refuse, before anything is written, one that holds something but
    no earlier export's cells.json (the writer then checks every name it would replace)."""
    try:
        foreign = rooms.exists() and (not rooms.is_dir() or (any(rooms.iterdir()) and not (rooms / "cells.json").is_file()))
    except OSError as exc:
        raise BenchError(f"cannot read {rooms}: {exc.strerror}") from None
    if foreign:
        raise BenchError(f"{rooms} holds something other than the room pages a build writes (no cells.json); "
                         "move it away or give --output another folder")


def _write_room_pages(dirs: list, out: Path, n_cells: int) -> dict[str, Any] | None:
    """The room pages the cells link to, written by the first room writer a plugin registered (the
    viewer's): the build names each cell's rooms in CELLS_FILE and the plugin draws them into
    ROOMS_DIR (an earlier build's pages there replaced). None where no writer is installed."""
    if not n_cells:
        return None
    from oversight_bench.registry import get_registry

    writers = get_registry().entries["room_writers"]
    if not writers:
        return None
    return next(iter(writers.values())).obj([str(d) for d in dirs], out / ROOMS_DIR, out / CELLS_FILE)


def all_small(result: dict[str, Any]) -> int:
    """How many cells the board has when every one is small (n < min_n: hidden unless shown), else 0."""
    cells = [c for j in result["judges"] for c in j["cells"].values()]
    return len(cells) if cells and all(c.get("small") for c in cells) else 0


def _all_hidden_sentence(result: dict[str, Any], md: bool = False) -> str:
    n, m = all_small(result), result["min_n"]
    if not n:
        return ""
    how = "`leaderboard --show-small`" if md else "leaderboard --show-small"
    return (f"Every one of the {n} cells has n < {m} questions, so all are hidden: "
            + ("" if md else f"tick \"show cells with n < {m}\" below, or ") + f"rebuild with {how} (or run "
            f"at least {m} questions per cell).")


def render_index(result: dict[str, Any]) -> str:
    """index.html of a built (or crafted) result: the table as HTML (`page_table`), the figure, Elo."""
    return render_page("leaderboard.html.j2", title="oversight-bench leaderboard", r=result, table=page_table(result),
                       quality_bar=result.get("quality_bar") or QUALITY_BAR, rooms_sentence=_rooms_sentence(result),
                       all_hidden=_all_hidden_sentence(result))


def _by_job(ds: list[dict[str, Any]]) -> dict[tuple[str, str, str], list[dict[str, Any]]]:
    out: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for d in ds:
        out[(d["protocol"], d["scope"], d["job_key"])].append(d)
    return out
