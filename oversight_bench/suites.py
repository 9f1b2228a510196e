"""Transcript suites: stored debates a new judge can be evaluated on with judge calls only.

A suite is a plugin (hook `register_suites(register)`): an object with `name`, `version`,
`description`, `source` and `materialize() -> Path` returning a run directory. Imported suites
(`nyu-2023`) are converted once into the user cache (`locations.cache_dir("suites")/<name>-<version>`,
~/.cache/oversight-bench/suites by default), never into the repository; a run-backed suite is any stored run.

`evaluate_suite` reads the suite's run directory once (`rundir.read_run`), re-judges its
re-judgeable transcripts (`StoredRun.rejudgeable`) through `commands.rejudge` and compares the new judge with the judges already in the source (the human judges of Michael et al.
2023) on the same rooms: accuracy per judgment and per question (replicates averaged, normal CI),
and a paired permutation test. Rooms the source holds no verdict for (`khan-2024`: its CSV's judge
column is empty) give the new judge's figures alone, with no reference. Transcripts that do not fit the judge's context are an error naming
the room (or skipped and counted with `skip_long`): never silently cut.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from oversight_bench.errors import BenchError
from oversight_bench.locations import CACHE_ENV, DEFAULT_DATA, cache_dir as _cache_dir, data_dir as _data_dir
from oversight_bench.rundir import StoredRun, is_run_dir, load_decisions, read_run

if TYPE_CHECKING:
    from oversight_bench.models import Spec
    from oversight_bench.protocol_options import CommonOptions
    from oversight_bench.rundir.records import Decision

RESULT_FILE = "suite.json"


def cache_dir() -> Path:
    return _cache_dir("suites")


def data_dir() -> Path:
    """The data folder by `locations.data_dir`'s rule (where it would be when there is none, for the error)."""
    return _data_dir() or DEFAULT_DATA.resolve()


@dataclass
class RunSuite:
    """A suite backed by a stored run directory (a committed local run, or any run a user names)."""

    name: str
    path: Path
    description: str = "stored run"
    version: str = "run"
    static: tuple[str, ...] = ()
    #: its arguments argue their assigned side faithfully (see ImportedSuite.faithful_arguments)
    faithful_arguments: bool = False

    @property
    def source(self) -> str:
        return str(self.path)

    def materialize(self) -> Path:
        if not is_run_dir(self.path):
            raise BenchError(f"suite {self.name}: {self.path} is not a run directory (no results.sqlite); expected a stored run")
        return Path(self.path)


@dataclass
class ImportedSuite:
    """A suite converted once from published data by `importer(output_dir)` into the user cache."""

    name: str
    version: str
    description: str
    source: str
    importer: Callable[[Path], Any]
    #: protocols shown with their original judges only (not re-judgeable), and why
    static: tuple[str, ...] = ()
    static_reason: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    #: the importer whose runs are this suite's (their config's `import.kind`), so a run imported by it
    #: without the suite's name is still known as this suite (the leaderboard's human rows)
    import_kind: str = ""
    #: its debaters argue their assigned side faithfully, so a stance checker can be calibrated on it:
    #: `report --stance-check` without `--stance-calibration` takes such a suite's cached copy
    faithful_arguments: bool = False

    def cache_path(self) -> Path:
        return cache_dir() / f"{self.name}-{self.version}"

    def materialize(self) -> Path:
        target = self.cache_path()
        if is_run_dir(target) and (target / "config.json").exists():
            return target
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
        except OSError as exc:
            raise BenchError(f"cannot create the suite cache {target.parent} ({exc.strerror}); set {CACHE_ENV} to a writable folder") from None
        try:
            shutil.rmtree(tmp)
            self.importer(tmp)
            if target.exists():
                shutil.rmtree(target)  # an interrupted earlier import: no config.json
            os.replace(tmp, target)  # atomic: a half-written import is never used
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
        return target


def get_suite(name: str):
    """A registered suite by name, or a run directory given as a path."""
    from oversight_bench.registry import get_registry

    p = Path(name)
    if is_run_dir(p):
        return RunSuite(name=p.name, path=p)
    return get_registry().get("suites", name)


# -- size and listing ----------------------------------------------------------------------------

def describe(suite, source: StoredRun | None = None) -> dict[str, Any]:
    """name, rooms and questions per protocol (re-judged or static), judges, source (`source`: the
    suite's run directory already read)."""
    if source is None:
        source = read_run(suite.materialize())
    run, ds = source.dir, source.decisions
    protos: dict[str, dict[str, Any]] = {}
    for p in sorted({d.protocol for d in ds}):
        mine = [d for d in ds if d.protocol == p]
        static = p in getattr(suite, "static", ()) or not source.rejudgeable(p)
        protos[p] = {"rooms": len({d.job_key for d in mine}), "questions": len({(d.task, d.question_id) for d in mine}),
                     "mode": "static" if static else "re-judged"}
    return {"name": suite.name, "version": suite.version, "description": suite.description, "source": suite.source,
            "rooms": len({d.job_key for d in ds}), "questions": len({(d.task, d.question_id) for d in ds}),
            "protocols": protos, "judges": sorted({d.judge for d in ds}), "run_dir": str(run)}


def list_lines(warn: Callable[[str], None] = print) -> list[str]:
    """One line per registered suite: its rooms and questions per protocol, source and package; one
    whose data is missing says so (a BenchError), and one that raises anything else is listed BROKEN
    with one warning (`registry.listed`), the others still listed."""
    from oversight_bench.registry import get_registry, listed

    reg = get_registry()

    def line(name: str, e) -> str:
        try:
            info = describe(e.obj)
        except BenchError as exc:
            return f"{name:<14} unavailable: {exc}"
        protos = ", ".join(f"{p} {v['rooms']} rooms/{v['questions']} q ({v['mode']})" for p, v in info["protocols"].items())
        return (f"{name:<14} {info['rooms']} rooms, {info['questions']} questions · {protos} · source: {info['source']} "
                f"· {e.package} {e.version}")

    return [listed("suites", e, lambda: line(name, e), warn, width=14)
            for name in reg.names("suites") for e in [reg.entries["suites"][name]]]


# -- the context check ---------------------------------------------------------------------------

def _capture_context(options):
    """A protocol Context that records the judge's prompts instead of calling a model."""
    from oversight_bench.protocol import Context

    class Capture(_CaptureMixin, Context):
        pass

    return Capture(options)


class _CaptureMixin:
    judge_debias = False  # a debiased judge asks both orders: prompts of the same length

    def __init__(self, options):
        self.options = options
        self.prompts: list[list[dict]] = []

    def supports_images(self, role) -> bool:
        return False

    async def sample(self, role, messages, **kw):
        from oversight_bench.models import Completion

        self.prompts.append(messages)
        return [Completion("Answer: 1")]

    async def choice_probs(self, role, messages, tag=""):
        self.prompts.append(messages)
        return None

    def few_shot_examples(self, question, k):
        return []

    def best_of_n(self, speaker=None):
        return 1

    async def sub_run(self, job):
        raise BenchError("suite transcripts cannot start sub-runs")


def judge_prompt_tokens(model, protocol, job, turns, options) -> int | None:
    """Tokens of the longest prompt the judge would see for this transcript (None: cannot count)."""
    import asyncio

    from oversight_bench.protocol_options import own_options

    ctx = _capture_context(own_options(protocol, options))
    asyncio.run(protocol.judge(ctx, job, turns))
    counts = [model.count_tokens(m) for m in ctx.prompts]
    if not counts or any(c is None for c in counts):
        return None
    return max(counts)


def check_context(source: StoredRun, keys: list[str], judge: Spec | str, options_over: CommonOptions | dict | None
                  ) -> tuple[list[str], list[tuple[str, int]]]:
    """(keys that fit, [(room, tokens)] that do not) for the judge's context (`judge`: its spec, as
    `models.judge_spec` parsed it; `options_over`: the judging's options, or the overrides of the
    source's); free when it has no limit."""
    from oversight_bench.models import build_model
    from oversight_bench.protocol_options import CommonOptions
    from oversight_bench.registry import get_registry

    model = build_model(judge)
    limit = model.context_length()
    if limit is None:
        return keys, []
    wanted = set(keys)
    rooms = {d.job_key: (d, turns) for d, turns in source.transcripts() if d.job_key in wanted}  # as `rejudge` takes them
    options = options_over if isinstance(options_over, CommonOptions) else source.options(options_over)
    reserve = {"probs": 1, "predict": options.predict_max_tokens}.get(options.judge_mode, options.judge_max_tokens)
    reg = get_registry()
    fit, long = [], []
    for k in keys:
        d, turns = rooms[k]
        n = judge_prompt_tokens(model, reg.get("protocols", d.protocol), source.job(d), turns, options)
        if n is not None and n + reserve > limit:
            long.append(((d.extra.room if d.extra is not None else None) or k, n))
        else:
            fit.append(k)
    return fit, long


# -- evaluation -----------------------------------------------------------------------------------

def select_rooms(source: StoredRun, static: tuple[str, ...], limit: int | None, seed: int = 0) -> list[str]:
    """Re-judgeable rooms, in a seeded order (so a --limit slice mixes debater kinds); first `limit`."""
    decisions = source.decisions
    ok = {p: source.rejudgeable(p) for p in {d.protocol for d in decisions}}
    keys = sorted({d.job_key for d in decisions if d.protocol not in static and ok[d.protocol]})
    random.Random(seed).shuffle(keys)
    return keys[:limit] if limit else keys


def _acc_rows(label: str, ds: list[Decision], turns: dict | None = None) -> dict[str, Any]:
    """Accuracy per judgment and per question (over valid answers), the invalid answers, and the
    quality figures of `analysis.quality` (accuracy with invalid answers counted wrong, answer-1 share,
    the judged transcripts' agent turns from `turns` by room, flags)."""
    from oversight_bench.analysis.quality import quality
    from oversight_bench.analysis.rows import DecisionRow
    from oversight_bench.analysis.stats import accuracy, mean_ci
    from oversight_bench.render.quality_text import worded

    valid = [float(d.correct) for d in ds if d.correct is not None]
    m, lo, hi = mean_ci(valid)
    rows = [DecisionRow.of(d) for d in ds]  # what the analysis functions read
    pq = accuracy(rows)
    turns_of = (lambda d: turns.get(d.job_key)) if turns is not None else None  # noqa: E731
    return {"judge": label, "per_judgment": {"accuracy": m, "ci_low": lo, "ci_high": hi, "n": len(valid)},
            "per_question": {k: pq[k] for k in ("accuracy", "ci_low", "ci_high", "n")},
            "invalid": sum(1 for d in ds if d.answer is None), "records": len(ds),
            "quality": worded(quality(rows, turns_of))}


def compare(new: list[Decision], reference: list[Decision], *, n_resamples: int | None = None,
            turns: dict | None = None) -> dict[str, Any]:
    """The new judge against the reference judges on the rooms both judged (`turns`: the rooms'
    arguing turns by job_key, for the quality figures)."""
    from oversight_bench.analysis.rows import DecisionRow
    from oversight_bench.analysis.stats import N_RESAMPLES, paired_permutation_test, per_question

    shared = {d.job_key for d in new} & {d.job_key for d in reference}
    new = [d for d in new if d.job_key in shared]
    reference = [d for d in reference if d.job_key in shared]
    nres = n_resamples or N_RESAMPLES
    by_room = lambda ds: {d.job_key: float(d.correct) for d in ds if d.correct is not None}  # noqa: E731
    by_question = lambda ds: per_question([DecisionRow.of(d) for d in ds])  # noqa: E731
    return {"rooms": len(shared), "judge": _acc_rows(new[0].judge if new else "?", new, turns),
            "reference": _acc_rows(reference[0].judge if reference else "?", reference, turns),
            "test_per_question": paired_permutation_test(by_question(new), by_question(reference), n_resamples=nres),
            "test_per_judgment": paired_permutation_test(by_room(new), by_room(reference), n_resamples=nres)}


def has_verdict(d: Decision) -> bool:
    """Whether a source decision is a judge's verdict (an imported room nobody judged is not)."""
    return not (d.extra is not None and d.extra.unjudged) and not d.unjudged and d.judge != "unjudged"


def judge_only(new: list[Decision], *, turns: dict | None = None) -> dict[str, Any]:
    """The new judge on rooms the source holds no verdict for: its figures, no reference and no test."""
    return {"rooms": len({d.job_key for d in new}), "judge": _acc_rows(new[0].judge if new else "?", new, turns),
            "reference": None, "test_per_question": None, "test_per_judgment": None}


def evaluate_suite(name: str, judge_spec: str, output: str, *, limit: int | None = None, skip_long: bool = False,
                   progress: bool = True, concurrency: int | None = None, option_overrides: dict | None = None,
                   log: Callable[[str], None] = print, cache_from: tuple[str, ...] = (),
                   max_total_tokens: int | None = None, max_cost: float | None = None):
    """Import (once) and re-judge a suite; write `suite.json` into `output`; return (outcome, result)."""
    from oversight_bench.commands import judge_plan
    from oversight_bench.models import redact_spec
    from oversight_bench.pipeline import execute

    if limit is not None and limit < 1:
        raise BenchError(f"--limit {limit}: expected a positive number of rooms")
    suite = get_suite(name)
    source = read_run(suite.materialize())  # the one read of the source: every step below uses it
    src = source.decisions
    static = tuple(getattr(suite, "static", ()))
    keys = select_rooms(source, static, limit)
    if not keys:
        raise BenchError(f"suite {suite.name} holds no re-judgeable transcripts")
    options = source.options(option_overrides)  # validated once: the checks and the re-judging use these
    plan = judge_plan(source, judge_spec, output, concurrency=concurrency, only=set(keys), options=options,
                      cache_from=cache_from, max_total_tokens=max_total_tokens, max_cost=max_cost)
    plan.judge_tool()  # the rooms' tasks: said before check_context builds the model; the run reuses this check
    judge = plan.judge  # parsed once: the context check and the re-judging use this Spec
    fit, long = check_context(source, keys, judge, options)
    if long and not skip_long:
        room, n = max(long, key=lambda x: x[1])
        raise BenchError(f"suite {suite.name}: room {room} needs {n} prompt tokens, more than the judge's context allows "
                         f"({len(long)} of {len(keys)} rooms do not fit); pass a larger n_ctx=… in the judge spec, or --skip-long")
    if long:
        log(f"skipped {len(long)} of {len(keys)} rooms longer than the judge's context (longest {max(n for _, n in long)} tokens)")
    if not fit:
        raise BenchError(f"suite {suite.name}: no room fits the judge's context")
    plan.keep(set(fit))
    outcome = execute(plan, progress=progress)
    fitted = set(fit)
    new = [d for d in load_decisions(Path(output)) if d.job_key in fitted]
    src_fit = [d for d in src if d.job_key in fitted]
    ref_all = [d for d in src_fit if has_verdict(d)]  # an imported room nobody judged is no reference
    turns = source.argument_turns()
    result: dict[str, Any] = {"suite": describe(suite, source), "judge": new[0].judge if new else redact_spec(judge),
                              "limit": limit, "skipped_long": [{"room": r, "tokens": n} for r, n in long], "rows": []}
    groups: dict[str, list] = {"all": fit}
    for agent in sorted({d.agent for d in src_fit}):
        groups[f"debaters: {agent}"] = [d.job_key for d in src_fit if d.agent == agent]
    for label, ks in groups.items():
        ks = set(ks)
        if len(groups) == 2 and label != "all":
            continue  # one debater kind only: the 'all' row says it
        mine, ref = [d for d in new if d.job_key in ks], [d for d in ref_all if d.job_key in ks]
        if {d.job_key for d in mine} <= {d.job_key for d in ref}:
            row = compare(mine, ref, turns=turns)
            row["subset"] = label
            result["rows"].append(row)
            continue
        # rooms without an original verdict: the new judge alone on all of them, then (if any has
        # one) the comparison on those that have
        row = judge_only(mine, turns=turns)
        row["subset"] = label
        result["rows"].append(row)
        if ref:
            row = compare(mine, ref, turns=turns)
            row["subset"] = f"{label}, rooms with an original verdict"
            result["rows"].append(row)
    result["static"] = []
    for p in static:
        sds = [d for d in src if d.protocol == p]
        if sds:
            result["static"].append({"protocol": p, "reason": getattr(suite, "static_reason", ""),
                                     **_acc_rows(sds[0].judge, sds, turns)})
    Path(output, RESULT_FILE).write_text(json.dumps(result, indent=1, ensure_ascii=False, default=str))
    return outcome, result


def _pct(x) -> str:
    """A rate in %, five wide, by the one rounding rule (`render.numbers.pct`)."""
    from oversight_bench.render.numbers import pct

    return "  –  " if x is None else f"{pct(x):>5}"


def _signed_pct(d: float) -> str:
    """A difference in percentage points with its sign ("+12.5", "-3.0"), by the one rounding rule."""
    from oversight_bench.render.numbers import pct

    return ("-" if d < 0 else "+") + pct(abs(d))


def _acc_text(a: dict) -> str:
    ci = "      –      " if a["ci_low"] is None else f"[{_pct(a['ci_low'])}, {_pct(a['ci_high'])}]"
    return f"{_pct(a['accuracy'])} {ci} n={a['n']:<4}"


def _quality_lines(a: dict) -> list[str]:
    """Under a judge's line: invalid answers, accuracy with them counted wrong, answer-1 share (and a
    debiased judge's plain per-order share), flags."""
    q = a.get("quality")
    if not q:
        return []
    from oversight_bench.render.numbers import pct, pct_sign
    from oversight_bench.render.quality_text import answer1_text

    ci = "" if q["invalid_wrong_ci_low"] is None else f" [{pct(q['invalid_wrong_ci_low'])}, {pct(q['invalid_wrong_ci_high'])}]"
    lines = [f"    invalid {q['n_invalid']}/{q['n_records']} ({pct_sign(q['invalid_rate'])}) · acc per question with invalid "
             f"as wrong {pct(q['accuracy_invalid_wrong'])}{ci} · {answer1_text(q)}"]
    if q["flagged"]:
        lines.append("    ⚑ " + "; ".join(q["flagged"]))
    return lines


def _transcript_line(a: dict) -> list[str]:
    """The judged transcripts' agent turns (the same rooms for both judges): argument-less, forced, cut,
    mostly-unverified-quote arguments."""
    from oversight_bench.render.quality_text import arguments_text

    q = a.get("quality") or {}
    text = arguments_text(q)
    return [f"  transcripts: {q['n_agent_turns']} agent turns · {text}"] if text else []


def format_result(result: dict[str, Any]) -> list[str]:
    """The comparison as terminal lines: per judgment (as Michael et al. report) and per question."""
    s = result["suite"]
    lines = [f"suite {s['name']} ({s['source']}): {result['rows'][0]['rooms'] if result['rows'] else 0} rooms re-judged"
             + (f", {len(result['skipped_long'])} skipped as too long" if result["skipped_long"] else ""),
             f"{'':<42}{'per judgment: acc % [95% CI]':<34}per question (paper CI): acc % [95% CI]"]
    for row in result["rows"]:
        lines.append(f"[{row['subset']}]")
        for who in ("judge", "reference"):
            a = row[who]
            if a is None:
                lines.append(f"  no reference: the source holds no original verdict for these {row['rooms']} rooms")
                continue
            inv = f"  ({a['invalid']} invalid)" if a["invalid"] else ""
            lines.append(f"  {a['judge'][:39]:<40}{_acc_text(a['per_judgment']):<34}{_acc_text(a['per_question'])}{inv}")
            lines += _quality_lines(a)
        lines += _transcript_line(row["judge"])
        tq, tj = row["test_per_question"], row["test_per_judgment"]
        if tq is None:
            continue
        fmt = lambda t: "–" if t["diff"] is None else f"{_signed_pct(t['diff'])} pts, p = {t['p_value']:.3g} (n={t['n']})"  # noqa: E731
        lines.append(f"  paired permutation test, judge − reference: per question {fmt(tq)}; per judgment {fmt(tj)}")
    for st in result.get("static", []):
        lines.append(f"[{st['protocol']}: static transcripts, not re-judged — {st['reason']}]")
        lines.append(f"  {st['judge'][:39]:<40}{_acc_text(st['per_judgment']):<34}{_acc_text(st['per_question'])}")
        lines += _quality_lines(st) + _transcript_line(st)
    return lines
