"""The third-party protocol example (examples/protocol_interactive_debate): Khan et al.'s interactive
debate written on `oversight_bench.api` alone, with its own option (`judge_questions`). On scripted
models in-process (who sees the judge's question, the agent-turn records), through the installed
package's entry point on the command line (its option in config.json, its deviations outside the
paper, "did you mean", its quality columns), and on an embedded model (integration lane)."""

from __future__ import annotations

import asyncio
import importlib.metadata as md
import itertools
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import REPO, cli_subprocess

PACKAGE = REPO / "examples" / "protocol_interactive_debate"
sys.path.insert(0, str(PACKAGE))  # the in-process tests import the package from the source tree

from obench_interactive_debate.protocol import InteractiveDebate  # noqa: E402

from model_adapters.scripted import ScriptedModel, prompt_script, register_script  # noqa: E402
from oversight_bench.api import Job, Question, options_model  # noqa: E402
from oversight_bench.rundir.store import Store  # noqa: E402
from oversight_bench.scheduler import JobContext, Scheduler  # noqa: E402
from oversight_bench.models import parse_spec, text_of  # noqa: E402

ARTICLE = "The sky is blue on clear days. Grass is green in spring."
EXTRACTIVE = Question("q1", "toy", "extractive", "What colour is the sky?", "blue", "green", article=ARTICLE)
_ids = itertools.count()
PROTOCOL = InteractiveDebate()


def scripted(fn) -> ScriptedModel:
    name = f"test-interactive-{next(_ids)}"
    register_script(name, prompt_script(fn))
    return ScriptedModel(parse_spec(f"scripted:{name}"))


def agent_fn(prompt, n):
    if "most persuasive" in prompt:
        return ["Answer: b"] * n
    who = "Alice" if "named Alice" in prompt else "Bob"
    r = prompt.count(f"{who} (round ") + 1
    return [f"Thinking: plan-{who}-{r}\nArgument: ARG-{who}-r{r} <passage>The sky is blue on clear days.</passage>"] * n


def judge_fn(prompt, n):
    if "ask the debaters one short question" in prompt:
        return [f"QUESTION-{prompt.count('(question after round') + 1}?"] * n
    return ["Answer: 1"] * n


def play(tmp_path, **options):
    agent, judge = scripted(agent_fn), scripted(judge_fn)
    store = Store.open(tmp_path / f"run{next(_ids)}", write=True)
    opts = options_model([PROTOCOL])(**options)
    runner = Scheduler(store, judge=judge, agent=agent, judge_name="judge", agent_name="agent", options=opts, seed=1,
                       protocols={PROTOCOL.name: PROTOCOL})
    job = Job(PROTOCOL.name, EXTRACTIVE, "correct_first")
    turns, decision = asyncio.run(PROTOCOL.run(JobContext(runner, job, PROTOCOL), job))
    prompts = [text_of(c["messages"][-1]["content"]) for c in agent.calls if c["messages"][-1]["role"] == "user"]
    return turns, decision, prompts


def test_the_judge_asks_after_each_round_and_the_debaters_answer_it(tmp_path):
    turns, decision, prompts = play(tmp_path, rounds=3, best_of_n=2)
    assert [(t.round, t.speaker) for t in turns] == [(1, "Alice"), (1, "Bob"), (1, "Judge"), (2, "Alice"), (2, "Bob"),
                                                     (2, "Judge"), (3, "Alice"), (3, "Bob")]
    assert [t.shown for t in turns if t.role == "judge"] == ["QUESTION-1?", "QUESTION-2?"]
    round2 = [p for p in prompts if "The debate so far" in p and "Alice (round 1)" in p and "Alice (round 2)" not in p
              and "most persuasive" not in p]
    assert round2 and all('The judge asked the debaters after the last round: "QUESTION-1?"' in p for p in round2)
    assert not any("plan-" in p for p in prompts)  # thinking never reaches the other side
    for t in (t for t in turns if t.role == "debater"):  # the public agent turn: budgets, best-of-N, checked quotes
        assert set(t.extra["budget"]) >= {"thinking_tokens", "argument_tokens", "forced", "cut", "continued"}
        assert t.extra["best_of_n"]["picked"] == 2 and len(t.extra["best_of_n"]["samples"]) == 2
        assert "<v_passage>The sky is blue on clear days.</v_passage>" in t.shown
    assert decision.answer == 1 and decision.correct is True


def test_judge_questions_off_is_a_plain_debate(tmp_path):
    turns, _, prompts = play(tmp_path, rounds=2, best_of_n=1, judge_questions=False)
    assert [t.role for t in turns] == ["debater"] * 4
    assert not any("The judge asked" in p for p in prompts)
    assert PROTOCOL.can_rejudge(options_model([PROTOCOL])(judge_questions=False))
    assert not PROTOCOL.can_rejudge(options_model([PROTOCOL])())


# -- installed, through its entry point ------------------------------------------------------------------


@pytest.fixture(scope="module")
def plugin_env(tmp_path_factory) -> dict[str, str]:
    """The environment under which the package is installed: as it is (CI installs it), else
    installed here into a private folder on PYTHONPATH (never into the shared venv)."""
    try:  # (metadata a local build left in the source tree, which this module puts on sys.path, is not an install)
        where = Path(md.distribution("obench-interactive-debate").locate_file("")).resolve()
        if where != PACKAGE.resolve() and PACKAGE.resolve() not in where.parents:
            return {}
    except md.PackageNotFoundError:
        pass
    target, source = tmp_path_factory.mktemp("site"), tmp_path_factory.mktemp("src") / "pkg"
    shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--no-build-isolation",
                    "--target", str(target), str(source)], check=True, capture_output=True, timeout=300)
    return {"PYTHONPATH": str(target)}


BASE = ["--judge", "scripted:default", "--agent", "scripted:default", "--tasks", "capitals", "--limit", "2",
        "--answer-order", "random", "--quiet"]


def test_its_option_reaches_config_json_and_its_deviations_say_outside_the_paper(plugin_env, tmp_path):
    out = tmp_path / "run"
    res = cli_subprocess("run", *BASE, "--protocols", "interactive_debate", "--rounds", "2", "--output", str(out),
                         env=plugin_env)
    assert res.returncode == 0, res.stderr
    config = json.loads((out / "config.json").read_text())
    assert config["options"]["judge_questions"] is True and "qa_samples" not in config["options"]
    assert "judge asks the debaters a question after each round: True (outside the paper)" in config["deviations"]
    assert any(d.startswith("protocol interactive_debate is not the paper's") for d in config["deviations"])

    off = tmp_path / "off"
    res = cli_subprocess("run", *BASE, "--protocols", "interactive_debate", "-o", "judge_questions=false",
                         "--rounds", "1", "--output", str(off), env=plugin_env)
    assert res.returncode == 0, res.stderr
    assert json.loads((off / "config.json").read_text())["options"]["judge_questions"] is False

    rep = tmp_path / "report"
    res = cli_subprocess("report", str(out), "--output", str(rep), "--no-figures", env=plugin_env)
    assert res.returncode == 0, res.stderr
    rows = [g for g in json.loads((rep / "report.json").read_text())["groups"] if g.get("protocol") == "interactive_debate"]
    assert rows and all(g["forced_rate"] is not None and g["cut_rate"] is not None for g in rows), rows


@pytest.mark.parametrize("args, expected", [
    (["--protocols", "interactive_debate", "-o", "judge_question=false"], "did you mean 'judge_questions'?"),
    (["--protocols", "debate", "-o", "judge_questions=false"],
     "option 'judge_questions' belongs to protocol interactive_debate, which this run does not include"),
    (["--protocols", "interactive_debate", "-o", "judge_questions=maybe"], "judge_questions"),
])
def test_its_option_is_checked_like_a_built_in_one(plugin_env, tmp_path, args, expected):
    res = cli_subprocess("run", *BASE, *args, "--output", str(tmp_path / "r"), env=plugin_env)
    assert res.returncode == 2, res.stderr
    assert expected in res.stderr.strip().splitlines()[-1], res.stderr
    assert not (tmp_path / "r").exists()


def test_run_help_lists_its_option(plugin_env):
    res = cli_subprocess("run", "--help", env=plugin_env)
    assert "judge_questions=true (outside the paper)" in " ".join(res.stdout.split()), res.stdout


@pytest.mark.integration
def test_on_an_embedded_model(plugin_env, tmp_path):
    """Smollm2-135m as judge and debaters: one question, two rounds (so one judge question), small budgets."""
    spec = "llamacpp:smollm2-135m,n_threads=2,n_ctx=2048"
    out = tmp_path / "run"
    res = cli_subprocess("run", "--judge", spec, "--agent", spec, "--tasks", "capitals", "--limit", "1",
                         "--answer-order", "random", "--protocols", "interactive_debate", "--rounds", "2",
                         "--best-of-n", "1", "-o", "thinking_max_tokens=24", "-o", "argument_max_tokens=48",
                         "-o", "judge_max_tokens=32", "--quiet", "--output", str(out), env=plugin_env, timeout=180)
    assert res.returncode == 0, res.stderr
    config = json.loads((out / "config.json").read_text())
    assert config["options"]["judge_questions"] is True
    assert any("(outside the paper)" in d for d in config["deviations"])
    rep = tmp_path / "report"
    res = cli_subprocess("report", str(out), "--output", str(rep), "--no-figures", env=plugin_env)
    assert res.returncode == 0, res.stderr
    rows = [g for g in json.loads((rep / "report.json").read_text())["groups"] if g.get("protocol") == "interactive_debate"]
    assert rows and all(g["n_budget_turns"] == 4 and g["forced_rate"] is not None and g["cut_rate"] is not None
                        for g in rows if g.get("level") == "task"), rows
