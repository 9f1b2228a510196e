"""`build_leaderboard(dirs, output)`: a judge-centric leaderboard, honest about its evidence.

results.json (`schema` = "oversight-bench/leaderboard/v2"):
* `judges`: one row per judge (`kind` "model" or "human"; a judge that had a judge tool, beyond the paper, is
  its own row, "NAME (judge tool: TOOL)"), with `cells` = {"<protocol> · <scope>":
  {protocol, scope, n (questions), n_records, accuracy, ci_low, ci_high, small (n < 64), agents,
  transcripts (relative link), reference (human judges on the same rooms, with the paired p-value),
  quality (`analysis/quality.py`: n_agent_turns, n_budget_turns, forced_rate, cut_rate (null: no
  budget records), n_argumentless, argumentless_rate, mean_argument_words, n_records, n_invalid,
  invalid_rate, n_valid, n_answer1, answer1_share, accuracy_invalid_wrong, invalid_wrong_ci_low,
  invalid_wrong_ci_high), flagged (reasons the cell fails the quality bar; [] passes) }}, where
  scope is a task type, or `suite:<name>` for imported transcript suites; `headlines` = the
  paper's debate − consultancy and debate − QA-without-article differences with paired p-values
  (questions both have; permutation test, 10,000 resamples), without flagged cells (named in
  `excluded`) unless `include_flagged` (then named in `flagged_included`); `deviations` from the paper's protocol
  (the runs' config `deviations` lists); `provenance` of the runs behind it.
* `elo`: debater Elo from cross-play runs (players, games, rating, bootstrap CI); cross-play games
  never make judge rows.
* `columns`, `min_n`, `include_flagged`, `quality_bar` (the bar in words), `generated`, `commit`.

index.html needs no server: rows are embedded as JSON (escaped for a script block), a small script
renders the table (sort by a column, filter by protocol/scope, show small cells on demand; URL
parameters preset them); every cell links to a plain-HTML page of its (protocol, scope)'s rooms,
each room once with the verdict of every judge that judged it. `fig2_judges.png` is a Fig. 2-like
plot of the whole table. leaderboard.md shows the same table (small cells hidden unless
`show_small`). The pages are Jinja2 templates in oversight_bench/templates (autoescaped, `render_page`).
"""

from __future__ import annotations

import datetime as _dt
import functools
import hashlib
import html
import json
import math
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
from oversight_bench.analysis.load import Run, load_runs
from oversight_bench.analysis.report import (_clean, _elo_section, _git_commit, _proto_key, md_text, run_provenance,
                                             saved_figure)
from oversight_bench.deviations import recorded_deviations
from oversight_bench.errors import BenchError, validation_error
from oversight_bench.protocol import headline_pairs
from oversight_bench.redact import redact_text
from oversight_bench.yamlio import load_json_text

SCHEMA = "oversight-bench/leaderboard/v2"
PAGE_SCHEMA = "oversight-bench/leaderboard-page/v1"
#: a carried cell's `transcripts`: a page of the carried board's own transcripts folder
PAGE_LINK = re.compile(r"transcripts/([A-Za-z0-9][A-Za-z0-9-]{0,120})\.html")
MAX_TRANSCRIPTS = 40  # rooms per page: enough to read, small enough to commit
MIN_N = 64  # cells with fewer questions are hidden by default: too few to rank judges on
QUALITY_BAR = (f"flagged: any argument-less agent turn, > {quality_mod.CUT_BAR:.0%} of agent turns cut, or > "
               f"{quality_mod.POSITION_BAR:.0%} of valid answers on one position")


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


def json_for_html(obj: Any) -> str:
    """JSON safe inside a <script> element: `<`, `>` and `&` escaped as \\u003c etc., so no text
    in it (`</script>`, `<!--<script>`) can end or re-enter the element early."""
    return (json.dumps(obj, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("&", "\\u0026").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _write(path: Path, text: str) -> None:
    """Every page and file of the leaderboard, with secrets redacted (runs written before
    redaction existed may hold them)."""
    path.write_text(redact_text(text))


def _html_text(value: Any) -> Any:
    """The pages' autoescape: text as `html.escape` writes it (the escaping `render_passages`, shared
    with the web app, uses), markup (`Markup`, `script_json`) as it is. Jinja's own escaping filters
    (`join`, `~`, `e`) write `'` as &#39; rather than &#x27;: as safe, but other bytes."""
    return value if hasattr(value, "__html__") else Markup(html.escape(str(value)))


@functools.cache
def _pages() -> jinja2.Environment:
    """The templates under oversight_bench/templates: autoescaped, a missing field an error rather
    than an empty string, and the CSS/JS files inlined verbatim (`inline`: the board opens from disk)."""
    env = jinja2.Environment(loader=jinja2.PackageLoader("oversight_bench", "templates"), autoescape=True,
                             finalize=_html_text, undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    env.filters.update(passages=lambda text: Markup(render_passages(text)),
                       script_json=lambda obj: Markup(json_for_html(obj)), rounded=_r)
    env.globals["inline"] = lambda name: Markup(env.loader.get_source(env, name)[0])
    return env


def render_page(template: str, **context: Any) -> str:
    """A leaderboard page (or fragment) from its template."""
    return _pages().get_template(template).render(**context)


def transcript_html(decision: dict[str, Any], turns: list[dict[str, Any]], question: Any,
                    verdicts: list[dict[str, Any]] | None = None, room_id: str | None = None) -> str:
    """One room, readable: question, the two answers as displayed (correct marked), the turns, then
    the verdict of each judge that judged it (`verdicts`, default the decision's own)."""
    return render_page("room.html.j2", room=_room(decision, turns, question, verdicts, room_id))


def _room(decision: dict[str, Any], turns: list[dict[str, Any]], question: Any,
          verdicts: list[dict[str, Any]] | None = None, room_id: str | None = None) -> dict[str, Any]:
    """What room.html.j2 shows of a room, every field resolved (a missing one reads "–" or "None")."""
    answers = decision.get("answers") or (question.answers(decision["answer_order"]) if question else ["?", "?"])
    ci = decision.get("correct_index")
    return {
        "id": room_id or _slug(decision["job_key"]),
        "question": question.question if question else decision.get("question_id", ""),
        "protocol": str(decision.get("protocol")), "task": str(decision.get("task")),
        "assignment": str(decision.get("assignment") or "–"), "answer_order": str(decision.get("answer_order")),
        "agent": str(decision.get("agent") or "–"),
        "answers": [{"text": str(a), "correct": i == ci} for i, a in enumerate(answers, start=1)],
        "turns": [{"role": str(t.get("role")), "round": _plain(t.get("round")), "speaker": str(t.get("speaker")),
                   "defends": _plain(t.get("defends")), "marks": [str(m) for m in quality_mod.budget_marks(t)],
                   "text": _plain_text(t["shown"] if "shown" in t else t.get("content"))}
                  for t in sorted(turns, key=lambda t: t.get("seq", 0))],
        "verdicts": [{"judge": str(d.get("judge")), "answer": _plain(d.get("answer")), "correct": bool(d.get("correct")),
                      "probs": [round(p, 3) if _finite(p) else None for p in d["probs"]]
                      if isinstance(d.get("probs"), list) and d["probs"] else None}
                     for d in verdicts or [decision]],
    }


def _plain(value: Any) -> int | str | None:
    """A field of a (possibly foreign) store as the page data holds it: a number or None as it is,
    anything else as its text (the template escapes it)."""
    return value if value is None or (isinstance(value, int) and not isinstance(value, bool)) else str(value)


def _plain_text(value: Any) -> str | None:
    return None if value is None else str(value)


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _room_id(d: dict[str, Any], turns: list[dict[str, Any]]) -> str:
    """What makes two decisions verdicts on the same room: the job, the agent and what the debaters
    or consultants said (a re-judged copy matches; another agent's or run's debate never does)."""
    said = [(t.get("round"), t.get("speaker"), t["shown"] if "shown" in t else t.get("content"))
            for t in sorted(turns, key=lambda t: t.get("seq", 0)) if t.get("role") != "judge"]
    return _slug(d["job_key"], d.get("agent"), hashlib.sha1(json.dumps(said, default=str).encode()).hexdigest()[:12])


def _rooms_page(protocol: str, scope: str, decisions: dict[str, list[dict[str, Any]]], turns_of: dict,
                questions: dict) -> dict[str, Any]:
    """One page for a (protocol, scope): up to MAX_TRANSCRIPTS rooms (those with turns first), each
    once, with the verdict of each judge here that judged it (judges re-judging the same transcripts
    share the rooms)."""
    def turns(d: dict[str, Any]) -> list:
        return turns_of.get((d["run_dir"], (d["job_key"], d["judge"]))) or []

    rooms: dict[str, list[dict[str, Any]]] = {}
    for judge in sorted(decisions):
        for d in decisions[judge]:
            rooms.setdefault(_room_id(d, turns(d)), []).append(d)
    keys = sorted(rooms, key=lambda k: not any(turns(d) for d in rooms[k]))[:MAX_TRANSCRIPTS]
    shown = []
    for k in keys:
        ds = rooms[k]
        d = next((d for d in ds if turns(d)), ds[0])
        shown.append(_room(d, turns(d), questions.get((d["run_dir"], (d["task"], d["question_id"]))), ds, room_id=k))
    return {"schema": PAGE_SCHEMA, "title": f"{protocol} · {scope} transcripts", "heading": f"{protocol} · {scope}",
            "rooms": shown, "n_rooms": len(rooms), "judges": ", ".join(sorted(decisions))}


def _write_page(tdir: Path, slug: str, page: dict[str, Any]) -> None:
    """A transcript page and, beside it, the data it was rendered from: a later build that carries
    its cell renders the page again from that data (pages are built, never copied)."""
    _write(tdir / f"{slug}.json", json.dumps(page, ensure_ascii=False, indent=0))
    _write(tdir / f"{slug}.html", render_page("rooms.html.j2", **{k: v for k, v in page.items() if k != "schema"}))


# -- the judge table ---------------------------------------------------------------------------------

SUITE_OF_IMPORT = {"nyu-debate": "nyu-2023", "llm-debate": "llm-debate"}


def _suite_of(cfg: dict[str, Any]) -> str | None:
    """The transcript suite a run holds: an import, or a re-judging of one (`judge --from/--suite`)."""
    for c in (cfg, cfg.get("source_config") or {}):
        imp = c.get("import") or {}
        if imp.get("suite"):  # imported by a registered suite (khan-2024), which names itself
            return str(imp["suite"])
        if imp.get("kind"):
            return SUITE_OF_IMPORT.get(imp["kind"], imp["kind"])
    return None


def _is_crossplay(d: dict[str, Any], cfg: dict[str, Any]) -> bool:
    """Cross-play games rate debaters: they never make judge rows (self-play games of a cross-play run neither)."""
    deb = (d.get("extra") or {}).get("debaters")
    if any(c.get("kind") == "crossplay" or c.get("agent") == "crossplay" for c in (cfg, cfg.get("source_config") or {})):
        return True
    return isinstance(deb, list) and len(deb) == 2 and all(isinstance(x, str) for x in deb) and deb[0] != deb[1]


def _judge_kind(judge: str) -> str:
    return "human" if str(judge).startswith("human:") else "model"


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


def _plot(judges: list[dict[str, Any]], columns: list[dict[str, Any]], path: Path) -> bool:
    """Fig. 2-like: accuracy (bars, 95% CI) per protocol × judge, one panel per scope; small cells
    hatched, cells failing the quality bar pale with a ⚑ above them (the figure is read alone)."""
    scopes = sorted({c["scope"] for c in columns})
    if not scopes:
        return False
    protos = sorted({c["protocol"] for c in columns}, key=_proto_key)
    colour = {p: f"C{i % 10}" for i, p in enumerate(protos)}
    # one panel per scope, stacked, so that the page shows the figure at a readable size; the legend above them
    height = 3.3 * len(scopes) + 0.6
    with saved_figure(path, len(scopes), 1, figsize=(max(6.0, 1.1 * len(judges) + 2), height), squeeze=False,
                      layout={"rect": (0, 0, 1, 1 - 0.5 / height)}) as (fig, axes):
        for ax, sc in zip(axes[:, 0], scopes):
            names = [j["judge"] for j in judges if any(c["scope"] == sc for c in j["cells"].values())]
            ps = [p for p in protos if any(c["protocol"] == p and c["scope"] == sc for j in judges for c in j["cells"].values())]
            width = 0.8 / max(1, len(ps))
            for k, p in enumerate(ps):
                for i, name in enumerate(names):
                    j = next(j for j in judges if j["judge"] == name)
                    c = j["cells"].get(f"{p} · {sc}")
                    if not c or c["accuracy"] is None:
                        continue
                    lo = c["accuracy"] - (c["ci_low"] if c["ci_low"] is not None else c["accuracy"])
                    hi = (c["ci_high"] if c["ci_high"] is not None else c["accuracy"]) - c["accuracy"]
                    x, flagged = i + (k - (len(ps) - 1) / 2) * width, bool(c.get("flagged"))
                    ax.bar(x, c["accuracy"], width, yerr=[[lo], [hi]], capsize=2, color=colour[p],
                           hatch="//" if c["small"] else None, alpha=0.45 if c["small"] or flagged else 1.0,
                           edgecolor="k" if c["small"] else None)
                    if flagged:
                        ax.text(x, min(0.97, c["accuracy"] + hi + 0.02), "⚑", ha="center", va="bottom", fontsize=8, color="#a22")
            ax.axhline(0.5, color="grey", lw=0.8, ls="--")
            ax.set_xticks(range(len(names)))
            ax.set_xticklabels([_label(n) for n in names], rotation=25, ha="right", fontsize=8)
            ax.set_ylim(0, 1)
            ax.set_title(sc)
            ax.set_ylabel("judge accuracy (95% CI)")
        from matplotlib.patches import Patch

        handles = [Patch(color=colour[p], label=p) for p in protos] + [Patch(facecolor="white", edgecolor="k", hatch="//", label=f"n < {MIN_N}"),
                                                                       Patch(facecolor="white", edgecolor="white", label="⚑ fails the quality bar")]
        fig.legend(handles=handles, fontsize=8, loc="upper center", ncol=len(handles), frameon=False)
    return True


def _elo_table(runs: list[Run]) -> dict[str, Any] | None:
    elo = _elo_section(runs)
    if not elo:
        return None
    agg = elo["aggregate"]
    return {"players": [{"player": p, "games": agg["games_by_player"][p], "rating": agg["ratings"][p],
                         "ci_low": agg["ci_low"][p], "ci_high": agg["ci_high"][p]} for p in agg["players"]],
            "n_games": agg["n_games"], "prior": agg.get("prior"), "bootstrap_unit": agg.get("bootstrap_unit"), "full": elo}


def markdown(result: dict[str, Any], show_small: bool = False) -> str:
    from oversight_bench.analysis.report import _fmt

    cols = result["columns"]
    lines = ["# oversight-bench leaderboard: judges", "",
             f"Generated {result['generated']} (code {result['commit'] or 'unknown'}). Accuracy % over valid answers "
             "[95% CI] n (questions; replicates of a question averaged, normal approximation), with the invalid rate "
             f"beside it; the transcript quality of each cell is in the table below. ⚑ marks a cell failing the quality "
             f"bar ({result.get('quality_bar') or QUALITY_BAR}), with its reasons; flagged cells are "
             + ("included in the headline differences (--include-flagged). " if result.get("include_flagged")
                else "left out of the headline differences (`--include-flagged` puts them in). ")
             + (f"Cells with n < {result['min_n']} are flagged ⚠." if show_small else
                f"Cells with n < {result['min_n']} are hidden (`leaderboard --show-small` shows them)."), "",
             "| judge | " + " | ".join(md_text(c["key"]) for c in cols) + " | " + " | ".join(map(md_text, result["headline_names"])) + " | deviations |",
             "|" + "---|" * (len(cols) + 2 + len(result["headline_names"]))]
    for j in result["judges"]:
        cells = []
        for c in cols:
            x = j["cells"].get(c["key"])
            if not x:
                cells.append("–")
            elif x["small"] and not show_small:
                cells.append(f"n<{result['min_n']}" + (" †" if x.get("carried") else ""))
            else:
                ref = f" (human {_fmt(x['reference']['accuracy'], True)}, p={_fmt(x['reference']['p_value'])})" if x.get("reference") else ""
                cells.append(f"{_fmt(x['accuracy'], True)} [{_fmt(x['ci_low'], True)}, {_fmt(x['ci_high'], True)}] n={x['n']}"
                             + _invalid_md(x) + (" ⚠" if x["small"] else "") + (" †" if x.get("carried") else "") + ref
                             + (" ⚑ " + "; ".join(map(md_text, x["flagged"])) if x.get("flagged") else ""))
        heads = [_headline_md(h) for h in j["headlines"]]
        name = md_text(j["judge"]) + (" (human reference)" if j["kind"] == "human" else "")
        devs = "; ".join(map(md_text, j["deviations"])) or "none recorded"
        lines.append("| " + " | ".join([name, *cells, *heads, devs]) + " |")  # what came from the runs is md_text already
    lines += _quality_md(result, show_small)
    carried = sorted({(x["carried"].get("generated") or "?", x["carried"].get("commit") or "?")
                      for j in result["judges"] for x in j["cells"].values() if x.get("carried")})
    if carried:
        lines += ["", "† carried from an earlier build whose runs were not given to this one: "
                  + "; ".join(f"generated {md_text(g)}, code {md_text(c[:12])}" for g, c in carried) + "."]
    elo = result.get("elo")
    lines += ["", "## Debater Elo (cross-play)", ""]
    if elo:
        lines += [f"{elo['n_games']} cross-play games; 95% bootstrap CIs ({md_text(elo.get('bootstrap_unit') or 'games')}). "
                  f"Prior: {md_text(elo.get('prior') or 'not recorded')}."
                  + (f" Carried from the build of {md_text(elo['carried'].get('generated'))}." if elo.get("carried") else ""), "",
                  "| debater | games | Elo | 95% CI |", "|---|---|---|---|"]
        for p in sorted(elo["players"], key=lambda p: -p["rating"]):
            lines.append(f"| {md_text(p['player'])} | {p['games']} | {p['rating']:.0f} | [{_r(p['ci_low'])}, {_r(p['ci_high'])}] |")
    else:
        lines.append("No cross-play runs given.")
    return "\n".join(lines) + "\n"


def _invalid_md(cell: dict[str, Any]) -> str:
    q = cell.get("quality")
    return "" if not q else f", invalid {quality_mod.pct_sign(q['invalid_rate'])}"


def _headline_md(h: dict[str, Any]) -> str:
    from oversight_bench.analysis.report import _fmt

    if h["diff"] is None:
        text = "–"
    else:
        text = f"{100 * h['diff']:+.1f} pts, p={_fmt(h['p_value'])} (n={h['n']})" + (" †" if h.get("carried") else "")
    if h.get("excluded"):
        text += " (without ⚑ " + ", ".join(map(md_text, h["excluded"])) + ")"
    elif h.get("flagged_included"):
        text += " (with ⚑ " + ", ".join(map(md_text, h["flagged_included"])) + ")"
    return text


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
            words = "–" if q["mean_argument_words"] is None else f"{q['mean_argument_words']:.0f}"
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
    return "–" if v is None else f"{v:.0f}"


def _qkey(key: tuple[str, str]) -> str:
    return f"{key[0]}/{key[1]}"


class _Checked(BaseModel):
    """Strict types for the fields the tables, the page and the headlines read; others pass through."""
    model_config = ConfigDict(extra="allow", strict=True)


class _Build(_Checked):
    generated: Optional[str] = None
    commit: Optional[str] = None


class _Reference(_Checked):
    accuracy: Optional[float]
    n: int = Field(ge=0)
    p_value: Optional[float] = None


class _CarriedCell(_Checked):
    protocol: str
    scope: str
    n: int = Field(ge=0)
    accuracy: Optional[float] = Field(default=None, ge=0, le=1)
    ci_low: Optional[float] = None
    ci_high: Optional[float] = None
    per_question: Optional[dict[str, float]] = None
    transcripts: Optional[str] = None
    carried: Optional[_Build] = None
    reference: Optional[_Reference] = None
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
    overwrites results.json, leaderboard.md, index.html and the figure and deletes transcript pages
    it does not link, so: a missing or empty folder is fine; a folder holding a leaderboard (a
    results.json of this SCHEMA) only with `force`; any other non-empty folder never, `force` or not."""
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
        data = load_json_text((out / "results.json").read_bytes(), str(out / "results.json"), "a leaderboard")
        if isinstance(data, dict) and data.get("schema") == SCHEMA:
            board = data
    except (OSError, BenchError):
        pass
    if board is None:
        raise BenchError(f"{out} is not empty and holds no leaderboard (no {SCHEMA} results.json); "
                         "give --output a new or empty folder")
    if not force:
        raise BenchError(f"{out} holds a leaderboard (generated {board.get('generated') or 'unknown'}); "
                         "rebuilding it replaces its pages: add --force")


def load_carry(path: str | Path, board: Path | None = None) -> dict[str, Any]:
    """A previous build's results.json, whose cells this build keeps where it measures nothing for
    them; every carried row, cell and Elo player is checked before anything is written."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise BenchError(f"cannot read --carry {path}: {exc.strerror}; expected a leaderboard's results.json") from None
    prev = load_json_text(raw, f"--carry {path}", "a leaderboard's results.json")
    if not isinstance(prev, dict) or prev.get("schema") != SCHEMA or not isinstance(prev.get("judges"), list):
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
    try:
        fd = os.open(data_file, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as f:
            raw = f.read()
    except OSError as exc:
        raise BenchError(f"cannot read --carry page data {data_file}: {exc.strerror}") from None
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
    with the build it came from, `small` by this build's `min_n`, their transcript page rendered again
    from the data the carried board kept beside it (`load_carry`; unlinked when it kept none); a row's
    headlines are remembered so that one whose cells cannot pair (no per-question scores) keeps them.
    Returns how many cells were carried."""
    rows = {r["judge"]: r for r in judges_out}
    since = {"generated": prev.get("generated"), "commit": prev.get("commit")}
    written = {c.get("transcripts") for r in judges_out for c in r["cells"].values()}  # this build's own pages
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
        for key, cell in (old.get("cells") or {}).items():
            if key in row["cells"]:
                continue
            cell = {**cell, "carried": cell.get("carried") or since, "small": cell["n"] < min_n}
            if cell.get("quality") is None:  # a build that recorded no quality: what its data still shows
                cell["flagged"] = _unmeasured_flags(cell)
            page = cell.get("transcripts")
            if page and page not in built:
                data = prev["_pages"].get(page)
                if data is None or page in written:
                    cell.pop("transcripts")
                else:
                    _write_page(out / "transcripts", PAGE_LINK.fullmatch(page).group(1), data)
                    built.add(page)
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
        pq = {}
        for proto in (a, b):
            vals: dict[str, list[float]] = defaultdict(list)
            for key, c in row["cells"].items():
                if c["protocol"] == proto and (include_flagged or key not in flagged):
                    for k, v in (c.get("per_question") or {}).items():
                        vals[k].append(v)
            pq[proto] = {k: sum(v) / len(v) for k, v in vals.items()}
        h = {"a": a, "b": b, **stats.paired_permutation_test(pq[a], pq[b], n_resamples=n_resamples),
             "excluded": [] if include_flagged else flagged, "flagged_included": flagged if include_flagged else []}
        cells = [c for k, c in row["cells"].items() if c["protocol"] in (a, b) and (include_flagged or k not in flagged)]
        if h["diff"] is None and (a, b) in old and cells and all(c.get("carried") and not c.get("per_question") for c in cells):
            h = old[(a, b)]
        out.append(h)
    return out


def build_leaderboard(dirs: Iterable[str | Path], output: str | Path, *, show_small: bool = False,
                      min_n: int = MIN_N, n_resamples: int = stats.N_RESAMPLES, figures: bool = True,
                      carry: str | Path | None = None, include_flagged: bool = False,
                      force: bool = False) -> dict[str, Any]:
    """Build from run folders; with `carry` (a previous results.json), keep its cells that no run given
    measures (each marked with the build it came from), so a leaderboard can grow across machines.
    Flagged cells stay out of the headline tests unless `include_flagged`. `output` must be missing,
    empty or (with `force`) hold a leaderboard (`check_output`), checked before anything is written."""
    check_output(output, force)
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
    tdir = out / "transcripts"
    try:
        tdir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BenchError(f"cannot create leaderboard folder {out}: {exc.strerror}; expected a writable path") from None
    turns_of = {(str(r.dir), k): v for r in runs for k, v in r.turns.items()}
    turns_for = quality_mod.turns_lookup(runs)
    questions = {(str(r.dir), k): q for r in runs for k, q in r.questions.items()}
    humans = {j for j in by_judge if _judge_kind(j) == "human"}
    human_by_key = {(d["protocol"], d["scope"], d["job_key"]): d for h in humans for d in by_judge[h]}
    columns = sorted({(p, s) for (_, p, s) in cells}, key=lambda ps: (ps[1].startswith("suite:"), ps[1], _proto_key(ps[0])))
    judges_out = []
    shown_of: dict[tuple[str, str], dict[str, list]] = defaultdict(dict)  # (protocol, scope) -> judge -> decisions
    for judge in sorted(by_judge, key=lambda j: (_judge_kind(j) == "human", j)):
        row: dict[str, Any] = {"judge": judge, "kind": _judge_kind(judge), "cells": {}, "headlines": []}
        for (p, s) in columns:
            ds = cells.get((judge, p, s))
            if not ds:
                continue
            c = {"protocol": p, "scope": s, **_cell_stats(ds), "agents": sorted({str(d.get("agent")) for d in ds})}
            c["small"] = c["n"] < min_n
            c.update(_cell_quality(ds, turns_for))
            c["per_question"] = {_qkey(k): v for k, v in stats.per_question(ds).items()}
            if row["kind"] == "model":
                ref = [human_by_key[(p, s, d["job_key"])] for d in ds if (p, s, d["job_key"]) in human_by_key]
                if ref:
                    t = stats.paired_permutation_test(stats.per_question(ds), stats.per_question(ref), n_resamples=n_resamples)
                    c["reference"] = {"judge": ref[0]["judge"], **_cell_stats(ref), "p_value": t["p_value"], "diff": t["diff"]}
            shown_of[(p, s)][judge] = ds
            row["cells"][f"{p} · {s}"] = c
        row["deviations"] = sorted({x for rd in runs_of[judge] for x in recorded_deviations(cfg_of[rd])})
        row["provenance"] = [run_provenance(r) for r in runs if str(r.dir) in runs_of[judge]]
        judges_out.append(row)
    for (p, s), shown in shown_of.items():
        slug = _slug(p, s, *sorted(shown))  # the judges are in the name: a carried page of others is never overwritten
        _write_page(tdir, slug, _rooms_page(p, s, shown, turns_of, questions))
        for row in judges_out:
            if row["judge"] in shown:
                row["cells"][f"{p} · {s}"]["transcripts"] = f"transcripts/{slug}.html"
    n_carried = _carry_cells(prev, judges_out, columns, min_n, out) if prev else 0
    columns.sort(key=lambda ps: (ps[1].startswith("suite:"), ps[1], _proto_key(ps[0])))
    warnings = [f"{row['judge']} · {key}: no human reference (the human judges' {key} cell is carried, without its "
                "rooms); give this build the suite's import folder too"
                for row in judges_out if row["kind"] == "model" for key, c in row["cells"].items()
                if not c.get("carried") and c["scope"].startswith("suite:") and "reference" not in c
                and any(h["kind"] == "human" and h["cells"].get(key, {}).get("carried") for h in judges_out)]
    for row in judges_out:
        row["headlines"] = _headlines(row, n_resamples, include_flagged)
    linked = {c.get("transcripts") for r in judges_out for c in r["cells"].values()}
    for page in [*tdir.glob("*.html"), *tdir.glob("*.json")]:  # pages of cells neither measured nor carried are stale
        if f"transcripts/{page.stem}.html" not in linked:
            page.unlink()
    n_pages = sum(1 for t in linked if t and (out / t).exists())
    elo = _elo_table(runs)
    if elo is None and prev and prev.get("elo"):
        elo = {**prev["elo"], "carried": prev["elo"].get("carried") or {"generated": prev.get("generated"), "commit": prev.get("commit")}}
    result = _clean({"schema": SCHEMA, "generated": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                     "commit": _git_commit(), "min_n": min_n, "include_flagged": include_flagged,
                     "quality_bar": QUALITY_BAR,
                     "columns": [{"key": f"{p} · {s}", "protocol": p, "scope": s} for p, s in columns],
                     "headline_names": [f"{a} − {b}" for a, b in headline_pairs()], "judges": judges_out,
                     "elo": elo, "n_transcripts": n_pages, "n_carried": n_carried, "warnings": warnings, "figure": None})
    if figures and _plot(result["judges"], result["columns"], out / "fig2_judges.png"):
        result["figure"] = "fig2_judges.png"
    _write(out / "results.json", json.dumps(result, indent=1, ensure_ascii=False))
    _write(out / "leaderboard.md", markdown(result, show_small))
    page_data = {k: result[k] for k in ("columns", "headline_names", "min_n", "include_flagged")}
    page_data["judges"] = [{k: j[k] for k in ("judge", "kind", "headlines", "deviations")}
                           | {"cells": {key: {f: v for f, v in c.items() if f != "per_question"} for key, c in j["cells"].items()}}
                           for j in result["judges"]]
    _write(out / "index.html", render_page("leaderboard.html.j2", title="oversight-bench leaderboard",
                                           generated=result["generated"], quality_bar=QUALITY_BAR, min_n=min_n,
                                           include_flagged=include_flagged, figure=result["figure"], elo=elo,
                                           page_data=page_data))
    return result
