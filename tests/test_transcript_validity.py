"""What the judge reads: every agent turn reaches it as an argument (thinking and argument have
their own budgets; forced and cut turns are recorded), and the judge prompt names exactly the
speakers its transcript shows, for runs and for imported rooms. These tests read the requests the
judge was actually sent, from the run's stored calls."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from helpers import DATA, cli, stored_calls, stored_records
from model_adapters.scripted import prompt_script, register_script
from oversight_bench.errors import BenchError
from oversight_bench.model_text import NO_ARGUMENT
from oversight_bench.rundir.store import Store

NYU = DATA / "quality" / "michael2023_debates"
LONG_THOUGHT = " ".join(["hmm"] * 3000)


def _ponderer(messages, n, seed):
    """An agent that never stops thinking, then argues when its reply is continued from "Argument:"
    (or asked for the argument alone); a judge that answers 1."""
    last = messages[-1]
    text = last["content"] if isinstance(last["content"], str) else ""
    out = []
    for i in range(n):
        if last["role"] == "assistant" or "write only your argument" in text:
            out.append(f" The answer I defend is right, reason {i}.")
        elif "Thinking:" in text and "Argument:" in text:
            out.append("Thinking: " + LONG_THOUGHT)
        else:
            out.append("Answer: 1")
    return out


def _rambler(prompt, n):
    """Thinks briefly, then argues far past any budget (whole replies: see `prompt_script`)."""
    if "Thinking:" in prompt and "Argument:" in prompt:
        return ["Thinking: short plan.\nArgument: " + " ".join(["because"] * 2000)] * n
    return ["Answer: 2"] * n


register_script("ponderer", _ponderer)
register_script("rambler", prompt_script(_rambler))


def _run(tmp_path: Path, agent: str, *opts: str, protocols: str = "consultancy,debate") -> Path:
    out = tmp_path / "run"
    res = cli("run", "--judge", "scripted:default", "--agent", agent, "--tasks", "mmlu", "--protocols", protocols,
              "--limit", "1", "--data-dir", str(DATA), "--output", str(out), "-o", "rounds=2", "-o", "best_of_n=2",
              "-o", "answer_order=random", *opts)
    assert res.exit_code == 0, res.output
    return out


def _agent_turns(out: Path) -> list[dict]:
    st = Store.open(out)
    try:
        return [r for r in stored_records(st, "turn") if r["role"] in ("consultant", "debater")]
    finally:
        st.close()


def _judge_prompts(out: Path) -> list[str]:
    """The text of every final judge request of the run (verdicts, not questions), as sent."""
    st = Store.open(out)
    try:
        calls = list(stored_calls(st))
    finally:
        st.close()
    return ["".join(m["content"] if isinstance(m["content"], str) else "" for m in c["request"]["messages"])
            for c in calls if c["role"] == "judge" and not str(c["tag"] or "").startswith("round")]


@pytest.mark.parametrize("continuation", ["true", "false"])
def test_thinking_that_never_ends_is_forced_into_an_argument(tmp_path, continuation):
    """The budget runs out inside Thinking: the turn goes on from "Argument:" (the same generation,
    or a second call asking for the argument only), so the judge reads an argument, never the notice."""
    out = _run(tmp_path, f"scripted:ponderer,continuation={continuation}", "-o", "thinking_max_tokens=50")
    turns = _agent_turns(out)
    assert len(turns) == 2 * 2 + 2 * 2  # consultancy: 2 assignments x 2 rounds; debate: 2 debaters x 2 rounds
    for t in turns:
        budget = t["extra"]["budget"]
        assert budget["forced"] is True and budget["thinking_tokens"] == 50
        assert budget["cut"] is False and budget["argument_tokens"] > 0
        assert budget["continued"] == ("same generation" if continuation == "true" else "second call")
        assert t["shown"].startswith("The answer I defend is right")
        assert "hmm" not in t["shown"]  # the thinking stays private
    for prompt in _judge_prompts(out):
        assert NO_ARGUMENT not in prompt
        assert "The answer I defend is right" in prompt and "hmm" not in prompt


def test_an_argument_past_its_budget_is_cut_and_marked(tmp_path):
    out = _run(tmp_path, "scripted:rambler", "-o", "argument_max_tokens=40")
    for t in _agent_turns(out):
        budget = t["extra"]["budget"]
        assert budget == {"thinking_tokens": budget["thinking_tokens"], "argument_tokens": 40, "forced": False,
                          "cut": True, "continued": "same generation"}
        assert len(t["shown"].split()) == 40


def test_a_capable_model_is_neither_forced_nor_cut(tmp_path):
    out = _run(tmp_path, "scripted:default")
    turns = _agent_turns(out)
    assert turns and all(not t["extra"]["budget"]["forced"] and not t["extra"]["budget"]["cut"] for t in turns)
    assert all(t["shown"] != NO_ARGUMENT for t in turns)


def test_budgets_are_declared_deviations(tmp_path):
    out = _run(tmp_path, "scripted:default", "-o", "thinking_max_tokens=64")
    devs = json.loads((out / "config.json").read_text())["deviations"]
    assert any(d.startswith("agent thinking budget 64 tokens") for d in devs)
    assert any(d.startswith("agent argument budget 512 tokens") for d in devs)
    assert any(d.startswith("judge temperature 0.0") for d in devs)


# -- speakers ---------------------------------------------------------------------------------------

_LABEL = re.compile(r"^(.+?) \((?:question after )?round \d+\):$", re.MULTILINE)
_STANCE = re.compile(r"^(.+?) argues for answer (\d) and (.+?) argues for answer (\d)\.$", re.MULTILINE)


def _named_speakers(prompt: str) -> tuple[set[str], set[str]]:
    """(speakers the prompt introduces, speakers its transcript lines are labelled with)."""
    stance = _STANCE.search(prompt)
    introduced = {stance.group(1), stance.group(3)} if stance else set()
    return introduced, set(_LABEL.findall(prompt))


@pytest.mark.skipif(not NYU.is_dir(), reason="needs the NYU debates in the data folder")
def test_imported_rooms_name_the_speakers_the_judge_is_told_of(tmp_path, monkeypatch):
    """Re-judging nyu-2023: the debaters there call each other "Debater A" and "Debater B" in their
    arguments, so the judge prompt introduces exactly those names, and every transcript line below
    it is labelled with one of them (never Alice or Bob)."""
    monkeypatch.setenv("OVERSIGHT_BENCH_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "nyu"
    res = cli("judge", "--suite", "nyu-2023", "--judge", "scripted:default", "--limit", "6", "--output", str(out))
    assert res.exit_code == 0, res.output
    prompts = _judge_prompts(out)
    assert len(prompts) >= 6
    for prompt in prompts:
        introduced, labelled = _named_speakers(prompt)
        assert introduced == {"Debater A", "Debater B"}
        assert labelled and labelled <= introduced, labelled
        assert "Alice argues" not in prompt and "Bob argues" not in prompt


def test_a_run_judge_prompt_names_its_transcript_speakers(tmp_path):
    out = _run(tmp_path, "scripted:default", protocols="debate")
    prompts = _judge_prompts(out)
    assert prompts
    for prompt in prompts:
        introduced, labelled = _named_speakers(prompt)
        assert introduced == {"Alice", "Bob"} and labelled == introduced


def test_consultancy_judge_is_not_told_the_consultant_side(tmp_path):
    """H.3 has no line naming the consultant's answer: the judge learns it from the consultant."""
    out = _run(tmp_path, "scripted:default", protocols="consultancy")
    prompts = _judge_prompts(out)
    assert prompts and all("The consultant argues for answer" not in p for p in prompts)
    assert all("Consultant (round 1):" in p for p in prompts)


def test_store_refuses_a_job_whose_speakers_its_protocol_lacks(tmp_path):
    st = Store.open(tmp_path / "s", write=True)
    fields = {"judge": "j", "agent": "a", "protocol": "debate", "task": "t", "question_id": "q", "assignment": None,
              "answer_order": "correct_first"}
    turn = {"round": 1, "role": "debater", "speaker": "Consultant", "content": "x", "shown": "x", "defends": 1}
    try:
        with pytest.raises(BenchError, match=r"'Consultant'.*protocol debate.*expected Alice, Bob, Debater A, Debater B, Judge"):
            st.write_job("k", fields, [turn], {"answer": 1})
        st.write_job("k", fields, [dict(turn, speaker="Alice")], {"answer": 1})
    finally:
        st.close()


def _mentioner(prompt, n):
    """Mentions the header inside its thinking before writing it at a line start."""
    if "Thinking:" in prompt and "Argument:" in prompt:
        return ['Thinking: I will put the case under "Argument:" below. Secret plan.\nArgument: final public case'] * n
    return ["Answer: 1"] * n


register_script("mentioner", prompt_script(_mentioner))


def test_argument_mentioned_inside_the_thinking_does_not_end_it(tmp_path):
    """Only a header at a line start ends the thinking, as the parser reads it: the judge reads the
    argument, never the rest of the plan."""
    out = _run(tmp_path, "scripted:mentioner", protocols="debate")
    turns = _agent_turns(out)
    assert turns and all(t["shown"] == "final public case" and not t["extra"]["budget"]["forced"] for t in turns)
    assert all("Secret plan" not in p for p in _judge_prompts(out))
