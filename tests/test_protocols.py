"""Protocol message flow with scripted models: who sees what, and how the judge decides."""

import asyncio
import itertools
import json
import re
from pathlib import Path

import pytest

from model_adapters.scripted import ScriptedModel, prompt_script, register_script
from oversight_bench.errors import BenchError
from oversight_bench.models import parse_spec, text_of
from oversight_bench.model_text import NO_ARGUMENT, process_turn
from oversight_bench.protocol import Job
from oversight_bench.protocol_options import all_options_model
from oversight_bench.questions import Image, Question
from oversight_bench.scheduler import JobContext, Scheduler
from oversight_bench.rundir.store import Store
from protocol_plugins import register_protocols
from helpers import stored_calls, stored_records

PROTOCOLS: dict = {}
register_protocols(register=lambda p: PROTOCOLS.__setitem__(p.name, p))

ARTICLE = "The sky is blue on clear days. Grass is green in spring."
EXTRACTIVE = Question("q1", "toy", "extractive", "What colour is the sky?", "blue", "green", article=ARTICLE)
CLOSED = Question("q2", "toy", "closed", "What is 2 + 2?", "4", "5")
_ids = itertools.count()



def scripted(fn, options: str = "", replays: bool = False) -> ScriptedModel:
    """A scripted model answering with `fn(prompt_text, n)` (whole replies; see `prompt_script`);
    its `.calls` record every request."""
    name = f"test-protocols-{next(_ids)}"
    register_script(name, prompt_script(fn, replays=replays))
    return ScriptedModel(parse_spec(f"scripted:{name}{options}"))


def prompts_of(model: ScriptedModel, kind: str = "generate") -> list[str]:
    """The prompts a model was sent (a call continuing a begun reply repeats its turn's prompt: left out)."""
    return [text_of(c["messages"][-1]["content"]) for c in model.calls
            if c["kind"] == kind and c["messages"][-1]["role"] != "assistant"]


SPEAKER = re.compile(r"expert (?:debater|consultant) named (\w+)")


def turn_of(prompt: str) -> tuple[str, int] | None:
    """(speaker, round) of an agent prompt: the round is one more than the speaker's turns in the
    transcript shown to it (the prompt itself does not number rounds, as in the paper)."""
    m = SPEAKER.search(prompt)
    if not m or "most persuasive" in prompt:
        return None
    return m.group(1), prompt.count(f"{m.group(1)} (round ") + 1


def agent_fn(body: str = "", qa: str = "Answer: 1", pick: str = "Answer: a"):
    """Arguments name their speaker and round, so tests can see where each one travelled."""
    def fn(prompt, n):
        turn = turn_of(prompt)
        if turn:
            who, r = turn
            return [f"Thinking: SECRET-{who}-r{r}\nArgument: ARG-{who}-r{r} {body}".strip()] * n
        if "most persuasive" in prompt:
            return [pick] * n
        return [qa] * n
    return fn


def judge_fn(answer: str = "Answer: 1"):
    def fn(prompt, n):
        if "question with real impact" in prompt:
            return [f"Why do you claim that QUESTION-{prompt.count('Judge (question after')+1} holds?"] * n
        return [answer] * n
    return fn


class Bench:
    """A runner over a fresh store with scripted judge and agent models."""

    def __init__(self, tmp_path, *, agent=None, judge=None, judge_options="", debias=False, pool=None, **options):
        self.agent = agent or scripted(agent_fn())
        self.judge = judge or scripted(judge_fn(), judge_options)
        self.store = Store.open(tmp_path / f"run{next(_ids)}", write=True)
        self.runner = Scheduler(self.store, judge=self.judge, agent=self.agent, judge_name="judge", agent_name="agent",
                             options=all_options_model()(**options), seed=7, judge_debias=debias, few_shot_pool=pool,
                             protocols=PROTOCOLS)  # sub_run (open roles) needs them

    def run(self, protocol, question=EXTRACTIVE, order="correct_first", assignment=None):
        job = Job(protocol, question, order, assignment)
        ctx = JobContext(self.runner, job, PROTOCOLS[protocol])
        return asyncio.run(PROTOCOLS[protocol].run(ctx, job))

    def rejudge(self, protocol, turns, question=EXTRACTIVE, order="correct_first"):
        job = Job(protocol, question, order)
        return asyncio.run(PROTOCOLS[protocol].judge(JobContext(self.runner, job, PROTOCOLS[protocol]), job, turns))

    def tags(self):
        return [c["tag"] for c in stored_calls(self.store)]


def agent_prompt(model, who, round_no):
    found = [p for p in prompts_of(model) if turn_of(p) == (who, round_no)]
    assert len(found) == 1, (who, round_no)
    return found[0]


def test_registers_the_six_protocols_and_the_two_derived_from_debate():
    assert sorted(PROTOCOLS) == sorted(["qa_without_article", "qa_with_article", "consultancy", "debate",
                                        "open_consultancy", "open_debate", "verified_evidence", "debate_unverified"])
    paper = {n for n, p in PROTOCOLS.items() if not p.outside_paper}
    assert paper == {"qa_without_article", "qa_with_article", "consultancy", "debate", "open_consultancy", "open_debate"}
    assert {n: p.derived_from for n, p in PROTOCOLS.items() if p.derived_from} == {
        "verified_evidence": ("debate",), "debate_unverified": ("debate",)}
    assert PROTOCOLS["debate"].rejudgeable and not PROTOCOLS["consultancy"].rejudgeable
    assert not PROTOCOLS["open_consultancy"].rejudgeable
    assert PROTOCOLS["qa_with_article"].needs_article


# -- QA ----------------------------------------------------------------------------------------------


def test_qa_without_article_prompt_and_decision(tmp_path):
    bench = Bench(tmp_path, judge=scripted(judge_fn("Answer: 2")))
    turns, decision = bench.run("qa_without_article", EXTRACTIVE, "correct_second")
    prompt = prompts_of(bench.judge)[0]
    assert turns == [] and ARTICLE not in prompt
    assert "1: green\n2: blue" in prompt and "order is random" in prompt and "Answer: <1|2>" in prompt
    assert (decision.answer, decision.correct, decision.probs) == (2, True, None)
    assert bench.tags() == ["judge"]
    assert bench.agent.calls == []


def test_qa_with_article_puts_article_before_question(tmp_path):
    bench = Bench(tmp_path)
    bench.run("qa_with_article")
    prompt = prompts_of(bench.judge)[0]
    assert prompt.index(f"<article>\n{ARTICLE}\n</article>") < prompt.index("Question: What colour")


def test_invalid_judge_answer_is_recorded_not_guessed(tmp_path):
    bench = Bench(tmp_path, judge=scripted(judge_fn("I think the first one.")))
    _, decision = bench.run("qa_without_article")
    assert (decision.raw, decision.answer, decision.correct) == ("I think the first one.", None, None)


def test_cot_mode_asks_for_reasoning_and_records_no_probs(tmp_path):
    bench = Bench(tmp_path, judge_options=",logprobs=true", judge_mode="cot")
    _, decision = bench.run("qa_without_article")
    assert "Start by setting out your reasoning" in prompts_of(bench.judge)[0]
    assert decision.probs is None and prompts_of(bench.judge, "choice_probs") == []


def test_predict_mode_records_probs_with_one_call_each(tmp_path):
    bench = Bench(tmp_path, judge_options=",logprobs=true")
    _, decision = bench.run("qa_without_article")
    assert "Reply with your answer only" in prompts_of(bench.judge)[0]
    assert len(prompts_of(bench.judge)) == 1 and len(prompts_of(bench.judge, "choice_probs")) == 1
    assert decision.probs is not None and sum(decision.probs) == pytest.approx(1)


def test_few_shot_examples_are_solved_with_balanced_order(tmp_path):
    pool = [Question(f"ex{i}", "toy", "extractive", f"Example question {i}?", f"right{i}", f"wrong{i}") for i in range(2)]
    bench = Bench(tmp_path, pool={"toy": pool}, few_shot=2)
    bench.run("debate")
    prompt = prompts_of(bench.judge)[0]
    assert "Example question 0?\nChoices:\n1: right0\n2: wrong0\nAnswer: 1" in prompt
    assert "Example question 1?\nChoices:\n1: wrong1\n2: right1\nAnswer: 2" in prompt
    assert prompt.index("Example question 1") < prompt.index("What colour is the sky?")


# -- debate ------------------------------------------------------------------------------------------


def test_simultaneous_debate_hides_current_round(tmp_path):
    bench = Bench(tmp_path, rounds=3)
    turns, _ = bench.run("debate")
    assert [(t.speaker, t.round, t.defends) for t in turns] == [
        ("Alice", 1, 1), ("Bob", 1, 2), ("Alice", 2, 1), ("Bob", 2, 2), ("Alice", 3, 1), ("Bob", 3, 2)]
    bob1, bob2, alice2 = (agent_prompt(bench.agent, "Bob", 1), agent_prompt(bench.agent, "Bob", 2),
                          agent_prompt(bench.agent, "Alice", 2))
    assert "ARG-Alice-r1" not in bob1
    assert "ARG-Alice-r1" in bob2 and "ARG-Alice-r2" not in bob2
    assert "ARG-Bob-r1" in alice2 and "ARG-Bob-r2" not in alice2


def test_sequential_debate_shows_bob_the_current_round(tmp_path):
    bench = Bench(tmp_path, rounds=2, turn_style="sequential")
    bench.run("debate")
    assert "ARG-Alice-r1" in agent_prompt(bench.agent, "Bob", 1)
    assert "ARG-Alice-r2" in agent_prompt(bench.agent, "Bob", 2)
    assert "ARG-Bob-r2" not in agent_prompt(bench.agent, "Alice", 2)


def test_round_specific_debater_instructions(tmp_path):
    bench = Bench(tmp_path, rounds=3)
    bench.run("debate")
    r1, r2, r3 = (agent_prompt(bench.agent, "Alice", r) for r in (1, 2, 3))
    assert "Sketch, step by step" in r1 and "passages from the article for your argument" in r1
    assert "build your opening argument" in r1 and "build your next argument" in r2 and "build your next argument" in r3
    assert "largest weaknesses in your opponent's argument" in r2 and "refute your opponent's argument" in r2
    assert "criticisms your opponent has made" in r3 and "refute your opponent's criticisms" in r3
    assert 'arguing that the answer to "What colour is the sky?" is "blue" and not "green"' in r1
    assert "Thinking:" in r1 and "Argument:" in r1 and "150 words" in r1


def test_thinking_never_reaches_judge_or_opponent(tmp_path):
    bench = Bench(tmp_path, rounds=3)
    turns, _ = bench.run("debate")
    judge_prompt = prompts_of(bench.judge)[0]
    for t in turns:
        assert f"SECRET-{t.speaker}-r{t.round}" in t.content  # the raw output is kept for the record
        assert "SECRET" not in t.shown and f"ARG-{t.speaker}-r{t.round}" in judge_prompt
    assert "SECRET" not in judge_prompt
    assert not any("SECRET" in p for p in prompts_of(bench.agent))


def test_passages_verified_for_judge_and_opponent_on_extractive_tasks(tmp_path):
    body = 'Look: <passage>The sky is blue</passage> and <passage>The sky is red</passage> and "Grass is green"'
    bench = Bench(tmp_path, agent=scripted(agent_fn(body)), rounds=2)
    turns, _ = bench.run("debate")
    judge_prompt = prompts_of(bench.judge)[0]
    assert "<v_passage>The sky is blue</v_passage>" in judge_prompt
    assert "<u_passage>The sky is red</u_passage>" in judge_prompt
    assert '"Grass is green"' in judge_prompt and "<passage>" not in judge_prompt
    assert "<u_passage>The sky is red</u_passage>" in agent_prompt(bench.agent, "Bob", 2)
    assert "<passage>The sky is red</passage>" in turns[0].content
    assert "quotation marks" in judge_prompt and "<v_passage></v_passage>" in judge_prompt
    # agents read the article; the judge does not
    assert ARTICLE in agent_prompt(bench.agent, "Alice", 1) and ARTICLE not in judge_prompt


def test_closed_tasks_have_no_article_and_no_passage_system(tmp_path):
    bench = Bench(tmp_path, agent=scripted(agent_fn("<passage>4</passage>")), rounds=1)
    turns, _ = bench.run("debate", CLOSED)
    for prompt in prompts_of(bench.agent) + prompts_of(bench.judge):
        assert "<article>" not in prompt and "passage" not in prompt.replace(turns[0].shown, "").replace(turns[1].shown, "")
    assert turns[0].shown == "ARG-Alice-r1 <passage>4</passage>"


def test_word_limit_is_asked_not_cut_by_default(tmp_path):
    """The paper asks for the word limit and does not cut (H intro); the record notes the overrun."""
    words = " ".join(f"w{i}" for i in range(300))
    bench = Bench(tmp_path, agent=scripted(agent_fn(words)), rounds=1, word_limit=20)
    turns, _ = bench.run("debate", CLOSED)
    assert turns[0].shown.endswith("w299") and "w299" in prompts_of(bench.judge)[0]
    assert turns[0].extra["format"] == {"over_word_limit": 301}
    assert "Keep each argument to 20 words or fewer" in agent_prompt(bench.agent, "Alice", 1)


def test_truncate_words_cuts_what_others_see(tmp_path):
    words = " ".join(f"w{i}" for i in range(300))
    bench = Bench(tmp_path, agent=scripted(agent_fn(words)), rounds=1, word_limit=20, truncate_words=True)
    turns, _ = bench.run("debate", CLOSED)
    assert len(turns[0].shown.split()) == 20 and turns[0].shown.endswith("w18")
    assert turns[0].extra["format"]["truncated_from_words"] == 301
    assert "w19" not in prompts_of(bench.judge)[0] and "w299" in turns[0].content


def test_best_of_n_samples_once_and_keeps_the_pick(tmp_path):
    def agent(prompt, n):
        if "most persuasive" in prompt:
            return ["Response c is strongest. Answer: c"]
        return [f"Thinking: SECRET{i}\nArgument: SAMPLE-{i + 1}" for i in range(n)]

    bench = Bench(tmp_path, agent=scripted(agent), rounds=1, best_of_n=4)
    turns, _ = bench.run("debate", CLOSED)
    first = [c for c in bench.agent.calls if c["messages"][-1]["role"] == "user"]  # not the argument continuations
    assert [c["n"] for c in first if "most persuasive" not in text_of(c["messages"][-1]["content"])] == [4, 4]
    assert turns[0].shown == "SAMPLE-3" and turns[0].content == "Thinking: SECRET2\nArgument: SAMPLE-3"
    assert turns[0].extra["best_of_n"]["picked"] == 3 and "pick_fallback" not in turns[0].extra["best_of_n"]
    pick_prompt = next(p for p in prompts_of(bench.agent) if "most persuasive" in p)
    assert "d. <response>\nSAMPLE-4\n</response>" in pick_prompt and "SECRET" not in pick_prompt
    assert {"bon_pick/round1/Alice", "bon_pick/round1/Bob", "round1/Alice"} <= set(bench.tags())


def test_best_of_n_scorer_is_the_debate_judge_prompt(tmp_path):
    """H.7: the debate judge's prompt (quote rules on extractive tasks) for the transcript so far,
    then the lettered candidates and a letter answer."""
    def agent(prompt, n):
        if "most persuasive" in prompt:
            return ["Answer: b"]
        turn = turn_of(prompt)
        return [f"Thinking: SECRET{i}\nArgument: {turn[0]}-r{turn[1]}-S{i} <passage>The sky is blue</passage>" for i in range(n)]

    bench = Bench(tmp_path, agent=scripted(agent), rounds=2, best_of_n=2)
    turns, _ = bench.run("debate")
    picks = [p for p in prompts_of(bench.agent) if "most persuasive" in p]
    assert len(picks) == 4
    alice2 = next(p for p in picks if "candidate responses for Alice's next turn" in p and "Bob (round 1)" in p)
    assert alice2.startswith("You are an expert judge of a debate")
    assert "How quotes are checked" in alice2 and "Alice argues for answer 1 and Bob argues for answer 2." in alice2
    assert "Bob-r1-S1 <v_passage>The sky is blue</v_passage>" in alice2  # the transcript so far, processed
    assert "a. <response>\nAlice-r2-S0 <v_passage>The sky is blue</v_passage>\n</response>" in alice2
    assert 'with x being one of a, b.' in alice2 and "SECRET" not in alice2
    assert [t.shown.split()[0] for t in turns] == ["Alice-r1-S1", "Bob-r1-S1", "Alice-r2-S1", "Bob-r2-S1"]


@pytest.mark.parametrize("reply, picked", [("Answer: 2", None), ("Answer: e", None), ("Answer: a or b", None),
                                           ("**Answer:** (B)", 2), ("They are all good.", None)])
def test_best_of_n_pick_is_parsed_strictly(tmp_path, reply, picked):
    def agent(prompt, n):
        if "most persuasive" in prompt:
            return [reply]
        return [f"Thinking: t{i}\nArgument: SAMPLE-{i + 1}" for i in range(n)]

    bench = Bench(tmp_path, agent=scripted(agent), rounds=1, best_of_n=2)
    turns, _ = bench.run("debate", CLOSED)
    info = turns[0].extra["best_of_n"]
    assert turns[0].shown == f"SAMPLE-{picked or 1}" and info["picked"] == (picked or 1)
    assert info.get("pick_fallback", False) is (picked is None)


def test_malformed_agent_output_is_recorded_not_fatal(tmp_path):
    """A model that writes nothing, or thinks and stops, is continued from "Argument:"; one that
    adds nothing there either leaves the notice, and the record says so."""
    outputs = iter(["", "Thinking: I forgot the argument"])
    bench = Bench(tmp_path, agent=scripted(lambda prompt, n: [next(outputs)], replays=True), rounds=1,
                  turn_style="sequential")
    turns, decision = bench.run("debate", CLOSED)
    assert [t.shown for t in turns] == [NO_ARGUMENT, NO_ARGUMENT]
    assert "I forgot" not in prompts_of(bench.judge)[0]
    assert [t.content for t in turns] == ["Argument:", "Thinking: I forgot the argument\nArgument:"]
    assert turns[0].extra["format"] == turns[1].extra["format"] == {"empty_argument": True}
    assert turns[1].extra["budget"] == {"thinking_tokens": 7, "argument_tokens": 0, "forced": False, "cut": False,
                                        "continued": "same generation"}
    assert decision.answer == 1


def test_debate_rejudges_stored_turns_with_judge_calls_only(tmp_path):
    turns, _ = Bench(tmp_path, rounds=1).run("debate")
    fresh = Bench(tmp_path, judge=scripted(judge_fn("Answer: 2")))
    decision = fresh.rejudge("debate", turns)
    assert decision.answer == 2 and fresh.agent.calls == []
    assert "ARG-Bob-r1" in prompts_of(fresh.judge)[0]


# -- consultancy -------------------------------------------------------------------------------------


def test_consultancy_questions_reach_the_consultant(tmp_path):
    bench = Bench(tmp_path, rounds=3)
    turns, decision = bench.run("consultancy", assignment="incorrect")
    assert [(t.role, t.round) for t in turns] == [
        ("consultant", 1), ("judge", 1), ("consultant", 2), ("judge", 2), ("consultant", 3)]
    assert "QUESTION-1" in turns[1].shown and "QUESTION-2" in turns[3].shown
    assert "QUESTION-1" not in agent_prompt(bench.agent, "Consultant", 1)
    assert "QUESTION-1" in agent_prompt(bench.agent, "Consultant", 2)
    assert "QUESTION-2" in agent_prompt(bench.agent, "Consultant", 3)
    question_prompt = next(p for p in prompts_of(bench.judge) if "question with real impact" in p)
    assert "second person" in question_prompt and "Why do you claim that" in question_prompt
    assert "SECRET" not in "".join(prompts_of(bench.judge))
    assert bench.tags() == ["round1/Consultant", "round1/Consultant/argument", "round1/question", "round2/Consultant",
                            "round2/Consultant/argument", "round2/question", "round3/Consultant",
                            "round3/Consultant/argument", "judge"]
    assert decision.answer == 1


@pytest.mark.parametrize("order, assignment, defends, text", [
    ("correct_first", "correct", 1, "blue"), ("correct_first", "incorrect", 2, "green"),
    ("correct_second", "correct", 2, "blue"), ("correct_second", "incorrect", 1, "green"),
])
def test_consultant_defends_its_assignment(tmp_path, order, assignment, defends, text):
    bench = Bench(tmp_path, rounds=1)
    turns, _ = bench.run("consultancy", order=order, assignment=assignment)
    assert turns[0].defends == defends
    assert f'is "{text}" and not' in agent_prompt(bench.agent, "Consultant", 1)
    assert f"<your_answer>{text}</your_answer>" in agent_prompt(bench.agent, "Consultant", 1)
    assert "The consultant argues for answer" not in prompts_of(bench.judge)[0]  # H.3 has no such line


def test_consultancy_runs_both_assignments(tmp_path):
    bench = Bench(tmp_path, rounds=1)
    protocol = PROTOCOLS["consultancy"]
    work = [(protocol, Job("consultancy", EXTRACTIVE, "correct_first", a), None) for a in protocol.assignments()]
    stats = asyncio.run(bench.runner.run(work, total=len(work), workers=2))
    assert stats.jobs_done == 2
    decisions = list(stored_records(bench.store, "decision"))
    assert sorted(d["assignment"] for d in decisions) == ["correct", "incorrect"]


# -- position-debiased judge -------------------------------------------------------------------------


class BiasedJudge(ScriptedModel):
    """P(1) = 0.6 when "blue" (correct) is shown first, 0.9 when it is shown second: a judge that
    leans towards position 1 and, once that lean is averaged out, prefers "green"."""

    async def choice_probs(self, messages, prefix="Answer: ", choices=("1", "2")):
        self.calls.append({"kind": "choice_probs", "messages": messages})
        return [0.6, 0.4] if "1: blue\n2: green" in text_of(messages[-1]["content"]) else [0.9, 0.1]


def biased_judge():
    register_script("test-protocols-biased", lambda messages, n, seed: ["Answer: 1"] * n)
    return BiasedJudge(parse_spec("scripted:test-protocols-biased,logprobs=true"))


def test_debias_averages_over_both_orders(tmp_path):
    bench = Bench(tmp_path, judge=biased_judge(), debias=True, rounds=1)
    _, decision = bench.run("debate")
    # P(blue) = (0.6 + 0.1) / 2 = 0.35, P(green) = (0.4 + 0.9) / 2 = 0.65; green is answer 2 here
    assert decision.probs == pytest.approx([0.35, 0.65])
    assert (decision.answer, decision.correct) == (2, False)
    orders = decision.extra["orders"]
    assert [o["answer_order"] for o in orders] == ["correct_first", "correct_second"]
    assert [o["answer"] for o in orders] == [1, 1] and orders[1]["probs"] == [0.9, 0.1]
    swapped = next(p for p in prompts_of(bench.judge) if "1: green\n2: blue" in p)
    assert 'Alice argues for answer 2 and Bob argues for answer 1.' in swapped
    assert sorted(t for t in bench.tags() if t.startswith("judge")) == [
        "judge", "judge/probs", "judge/swapped", "judge/swapped/probs"]


def test_without_debias_the_same_judge_follows_its_position_bias(tmp_path):
    bench = Bench(tmp_path, judge=biased_judge(), rounds=1)
    _, decision = bench.run("debate")
    assert (decision.answer, decision.probs) == (1, [0.6, 0.4])
    assert len(prompts_of(bench.judge)) == 1 and len(prompts_of(bench.judge, "choice_probs")) == 1


def test_debias_relabels_the_consultant_side(tmp_path):
    bench = Bench(tmp_path, judge=biased_judge(), debias=True, rounds=1)
    _, decision = bench.run("consultancy", assignment="correct", order="correct_second")
    assert decision.answer == 1  # "green" is answer 1 in this job's order
    swapped = next(p for p in prompts_of(bench.judge) if "1: blue\n2: green" in p)
    assert "The consultant argues for answer" not in swapped  # H.3: the judge learns the side from the consultant


class IndifferentJudge(BiasedJudge):
    """Always P(1) = 0.8: pure position bias, no preference between the answers themselves."""

    async def choice_probs(self, messages, prefix="Answer: ", choices=("1", "2")):
        return [0.8, 0.2]


def test_debias_tie_is_invalid(tmp_path):
    register_script("test-protocols-indifferent", lambda messages, n, seed: ["Answer: 1"] * n)
    judge = IndifferentJudge(parse_spec("scripted:test-protocols-indifferent,logprobs=true"))
    _, decision = Bench(tmp_path, judge=judge, debias=True).run("qa_without_article")
    assert decision.probs == pytest.approx([0.5, 0.5]) and (decision.answer, decision.correct) == (None, None)


def test_debias_without_probabilities_fails_clearly(tmp_path):
    bench = Bench(tmp_path, debias=True)
    with pytest.raises(BenchError, match="probabilities"):
        bench.run("qa_without_article")


def test_debias_with_cot_fails_clearly(tmp_path):
    bench = Bench(tmp_path, judge=biased_judge(), debias=True, judge_mode="cot")
    with pytest.raises(BenchError, match="predict"):
        bench.run("qa_without_article")


# -- open roles --------------------------------------------------------------------------------------


@pytest.mark.parametrize("order, qa, assignment, protagonist_correct", [
    ("correct_first", "Answer: 1", "correct", True), ("correct_first", "Answer: 2", "incorrect", False),
    ("correct_second", "Answer: 1", "incorrect", False), ("correct_second", "Answer: 2", "correct", True),
])
def test_open_consultancy_reuses_the_matching_assigned_run(tmp_path, order, qa, assignment, protagonist_correct):
    bench = Bench(tmp_path, agent=scripted(agent_fn(qa=qa)), judge=scripted(judge_fn("Answer: 2")), rounds=2)
    assigned_turns, _ = bench.run("consultancy", order=order, assignment=assignment)
    calls_before = len(bench.agent.calls) + len(bench.judge.calls)
    turns, decision = bench.run("open_consultancy", order=order)
    assert turns[0].role == "agent" and turns[0].defends == int(qa[-1])
    assert [t.shown for t in turns[1:]] == [t.shown for t in assigned_turns]
    # only the agent's direct-QA call is new; the consultancy came from the cache
    assert len(bench.agent.calls) + len(bench.judge.calls) == calls_before + 1
    assert "Question: What colour" in prompts_of(bench.agent)[-1] and ARTICLE in prompts_of(bench.agent)[-1]
    outcome = PROTOCOLS["open_consultancy"].describe_outcome(None, turns, decision)
    assert outcome == {"agent_choice": int(qa[-1]), "protagonist": "Consultant",
                       "protagonist_correct": protagonist_correct, "win": int(qa[-1]) == 2}


@pytest.mark.parametrize("qa, protagonist", [("Answer: 1", "Alice"), ("Answer: 2", "Bob")])
def test_open_debate_protagonist_matches_agent_answer(tmp_path, qa, protagonist):
    bench = Bench(tmp_path, agent=scripted(agent_fn(qa=qa)), rounds=1)
    turns, decision = bench.run("open_debate", CLOSED, order="correct_second")
    assert decision.extra["protagonist"] == protagonist
    assert decision.extra["protagonist_correct"] == (protagonist == "Bob")  # correct is answer 2
    assert decision.extra["win"] == (protagonist == "Alice")  # the judge answers 1
    assert "agent_qa" in bench.tags() and "<article>" not in prompts_of(bench.agent)[0]
    assert [t.speaker for t in turns] == ["Agent", "Alice", "Bob"]


def test_open_debate_can_be_rejudged(tmp_path):
    turns, _ = Bench(tmp_path, agent=scripted(agent_fn(qa="Answer: 2")), rounds=1).run("open_debate")
    fresh = Bench(tmp_path, judge=scripted(judge_fn("Answer: 2")))
    decision = fresh.rejudge("open_debate", turns)
    assert (decision.answer, decision.extra["protagonist"], decision.extra["win"]) == (2, "Bob", True)
    assert fresh.agent.calls == []


@pytest.mark.parametrize("protocol", ["open_consultancy", "open_debate"])
def test_open_role_drops_question_when_agent_answer_is_invalid(tmp_path, protocol):
    bench = Bench(tmp_path, agent=scripted(agent_fn(qa="Both are plausible.")))
    turns, decision = bench.run(protocol)
    assert len(turns) == 1 and decision.answer is None and decision.extra["agent_choice"] is None
    assert "did not parse" in decision.extra["reason"]
    assert bench.tags() == ["agent_qa"]


# -- multimodal --------------------------------------------------------------------------------------

IMAGE_Q = Question("q3", "toy", "multimodal", "What is shown?", "a cat", "a dog", images=(Image(b"PNG"),))


def test_images_come_before_the_text_for_judge_and_agents(tmp_path):
    bench = Bench(tmp_path, agent=scripted(agent_fn(), ",images=true"), judge=scripted(judge_fn(), ",images=true"), rounds=1)
    bench.run("debate", IMAGE_Q)
    for call in bench.agent.calls + bench.judge.calls:
        message = call["messages"][0]  # an argument continuation adds the begun reply after it
        assert message["role"] == "user"
        assert [p["type"] for p in message["content"]] == ["image_url", "text"]
        assert message["content"][0]["image_url"]["url"] == Image(b"PNG").data_url()


def test_images_with_a_text_only_model_fail_clearly(tmp_path):
    bench = Bench(tmp_path)
    with pytest.raises(BenchError, match="text-only"):
        bench.run("qa_without_article", IMAGE_Q)


def test_no_system_role_anywhere(tmp_path):
    bench = Bench(tmp_path, rounds=2)
    bench.run("consultancy", assignment="correct")
    bench.run("debate")
    # the only assistant message is a begun reply being continued (the agent's own thinking, then "Argument:")
    assert {m["role"] for c in bench.agent.calls + bench.judge.calls for m in c["messages"]} == {"user", "assistant"}
    assert all(c["messages"][-1]["content"].endswith("Argument:") for c in bench.agent.calls if len(c["messages"]) > 1)


def test_real_model_outputs_never_show_thinking_to_judge_or_opponent(tmp_path):
    """The raw turns of the local models (tests/fixtures/real_agent_outputs.json) replayed as a
    debate: no private snippet reaches the judge, the opponent or the best-of-N scorer."""
    real = json.loads((Path(__file__).parent / "fixtures" / "real_agent_outputs.json").read_text(encoding="utf-8"))
    cases = real["outputs"]
    replay = itertools.cycle([c["raw"] for c in cases])
    q = Question("r1", "toy", "extractive", "Why did the lamp fail?", "late oil", "neglect", article=real["article"])

    def agent(messages, n, seed):
        prompt = text_of(messages[-1]["content"])
        if messages[-1]["role"] == "assistant":  # continued from "Argument:": what the raw turn argued after its header
            thinking = prompt.removesuffix("Argument:").rstrip("\n")
            rest = next((c["raw"][len(thinking):] for c in cases if thinking and c["raw"].startswith(thinking)), "")
            return [re.sub(r"^\s*[>#*_ ]*Argument[*_ ]*:[*_ ]*", "", rest) if re.match(r"^\s*[>#*_ ]*Argument", rest) else ""] * n
        return ["Answer: a"] if "most persuasive" in prompt else [next(replay) for _ in range(n)]

    name = "test-protocols-replay"
    register_script(name, agent)
    bench = Bench(tmp_path, agent=ScriptedModel(parse_spec(f"scripted:{name}")), rounds=3, best_of_n=2)
    turns, _ = bench.run("debate", q)
    seen = prompts_of(bench.judge) + prompts_of(bench.agent)
    for case in cases:
        for private in case["private"]:
            assert not any(private in p for p in seen), (case["id"], private)
    assert len(cases) <= 12  # 3 rounds x 2 debaters x 2 samples: every case is drawn and scored
    # in two calls the judge sees what the raw turn shows when read as one reply
    assert all(any(t.shown == process_turn(c["raw"], q.article) for c in cases) for t in turns)
