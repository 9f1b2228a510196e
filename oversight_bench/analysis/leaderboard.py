"""The judge-centric leaderboard's rows, honest about their evidence: cells, references, headlines,
paired tests, the figure's bars (`publish.leaderboard.build_leaderboard` builds and writes them).

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
  invalid_wrong_ci_high), flagged (reasons the cell fails the quality bar, in words; [] passes), self_judged
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

index.html and leaderboard.md draw the table (`render.leaderboard`); `fig2_judges.png` is a Fig. 2-like
plot of it (`figure_bars` here, drawn by `render.figures.fig_judges`); carried cells are checked and
merged by `analysis.carry`.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from typing import Any, Iterable

from oversight_bench.analysis import quality as quality_mod
from oversight_bench.analysis import stats
from oversight_bench.analysis.elo import elo_of_runs
from oversight_bench.analysis.load import Run
from oversight_bench.analysis.report import _proto_key
from oversight_bench.analysis.rows import DecisionRow
from oversight_bench.protocol import derived_pairs, headline_pairs

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


def _is_crossplay(d: DecisionRow, cfg: dict[str, Any]) -> bool:
    """Cross-play games rate debaters: they never make judge rows (self-play games of a cross-play run neither)."""
    deb = d.extra.debaters
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


def _cell_stats(ds: list[DecisionRow]) -> dict[str, Any]:
    a = stats.accuracy(ds)
    return {k: a[k] for k in ("n", "n_records", "accuracy", "ci_low", "ci_high", "n_invalid")}


def _cell_quality(ds: list[DecisionRow], turns_for) -> dict[str, Any]:
    """A cell's `quality` (`analysis.quality`: agent turns forced / cut / argument-less, mean argument
    words, invalid answers, accuracy with them counted wrong, answer-1 share) and `flagged` (the
    reasons it fails the quality bar, `analysis.quality.Flag`s, empty when it passes; the publisher words them)."""
    fig = quality_mod.quality(ds, turns_for)
    flagged = fig.pop("flagged")
    fig.pop("accuracy_valid")  # the cell's own `accuracy`
    return {"quality": fig, "flagged": flagged}


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


def _elo_table(runs: list[Run]) -> dict[str, Any] | None:
    elo = elo_of_runs(runs)
    if not elo:
        return None
    agg = elo["aggregate"]
    return {"players": [{"player": p, "games": agg["games_by_player"][p], "rating": agg["ratings"][p],
                         "ci_low": agg["ci_low"][p], "ci_high": agg["ci_high"][p]} for p in agg["players"]],
            "n_games": agg["n_games"], "prior": agg.get("prior"), "bootstrap_unit": agg.get("bootstrap_unit"), "full": elo}


def _qkey(key: tuple[str, str]) -> str:
    return f"{key[0]}/{key[1]}"


def _argued(protocol: str) -> bool:
    """Whether a protocol's transcripts hold agent arguments (an unknown protocol is assumed to)."""
    from oversight_bench.registry import get_registry

    reg = get_registry()
    return protocol not in reg.names("protocols") or bool(reg.get("protocols", protocol).uses_agent)


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


def _by_job(ds: list[DecisionRow]) -> dict[tuple[str, str, str], list[DecisionRow]]:
    out: dict[tuple[str, str, str], list[DecisionRow]] = defaultdict(list)
    for d in ds:
        out[(d.protocol, d.scope, d.job_key)].append(d)
    return out
