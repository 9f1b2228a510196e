"""Each protocol owns its options: a run's options are the common ones and those of its protocols,
validated once; a third-party option with a paper value is declared like a built-in one, one without
says "outside the paper"; stored runs from before protocols owned options still read and resume."""

from __future__ import annotations

import pytest

import oversight_bench.protocol as protocol_module
from oversight_bench.api import (CommonOptions, Decision, Protocol, option, options_model, run_options_model,
                                 stored_options)
from oversight_bench.config import RunConfig, expand_variants
from oversight_bench.deviations import deviations, option_deviations
from oversight_bench.errors import BenchError
from oversight_bench.protocol_options import option_clash, same_options


class StanceOptions(CommonOptions):
    stances: int = option(2, 2, "{v} stances (paper {p})", ge=1, description="stances a debater may take")
    second_judge: bool = option(False, label="a second judge: {v}")


class Stance(Protocol):
    name = "stance"
    Options = StanceOptions

    async def play(self, ctx, job):
        return []

    async def judge(self, ctx, job, turns):
        return Decision("", None, None)


@pytest.fixture
def with_stance(monkeypatch):
    """The built-in protocols and a third-party one, registered (for this test) in the registry every
    lookup of the installed protocols reads."""
    from oversight_bench.registry import Entry, get_registry

    monkeypatch.setitem(get_registry().entries["protocols"], "stance", Entry("stance", Stance(), "obench-stance", "1"))
    return protocol_module.registered_protocols()


def test_a_run_has_the_options_of_its_protocols():
    assert "turn_style" in run_options_model(["debate"]).model_fields
    assert "qa_samples" not in run_options_model(["debate"]).model_fields
    both = run_options_model(["qa_without_article", "debate", "consultancy"])
    assert {"turn_style", "qa_samples", "rounds"} <= set(both.model_fields)
    assert run_options_model(["consultancy"]) is CommonOptions


def test_an_option_of_another_protocol_is_refused_naming_it():
    with pytest.raises(BenchError, match="option 'qa_samples' belongs to protocol qa_without_article"):
        RunConfig(protocols=["debate"], options={"qa_samples": 3})
    with pytest.raises(BenchError, match="did you mean 'turn_style'"):
        RunConfig(protocols=["debate"], options={"turn_styl": "sequential"})
    cfg = RunConfig(protocols=["debate"], options={"turn_style": "sequential"})
    assert cfg.options.turn_style == "sequential"
    assert cfg.model_dump(mode="json")["options"]["turn_style"] == "sequential"  # config.json holds it


def test_variants_are_validated_by_the_same_model():
    cfg = RunConfig(protocols=["debate"], options={"rounds": 2}, variants={"seq": {"turn_style": "sequential"}})
    (one,) = expand_variants(cfg)
    assert one.options.turn_style == "sequential" and one.options.rounds == 2
    with pytest.raises(BenchError, match="belongs to protocol qa_without_article"):
        RunConfig(protocols=["debate"], variants={"x": {"qa_samples": 1}})


def test_a_third_party_option_is_declared_like_a_built_in_one(with_stance):
    assert option_deviations({"stances": 2}) == []  # the paper's value
    assert option_deviations({"stances": 3}) == ["3 stances (paper 2)"]
    # an option without a paper value is outside the paper at every value
    assert option_deviations({"second_judge": False}) == ["a second judge: False (outside the paper)"]
    devs = deviations({"options": StanceOptions().model_dump(mode="json"), "protocols": ["stance"]})
    assert "a second judge: False (outside the paper)" in devs


def test_an_option_of_a_protocol_not_installed_is_still_declared():
    assert option_deviations({"rounds": 3, "mystery": 1}) == ["mystery=1 (outside the paper: an option of a protocol not installed here)"]


def test_two_protocols_declaring_one_option_differently_clash():
    class Other(CommonOptions):
        stances: str = option("x", "x", "stances {v}")

    assert option_clash(Other, [StanceOptions]) == "stances"
    assert option_clash(StanceOptions, [CommonOptions, run_options_model(["debate"])]) is None  # inherited: shared


def test_a_run_stored_before_protocols_owned_their_options_still_reads_and_resumes():
    old = {**CommonOptions().model_dump(mode="json"), "turn_style": "simultaneous", "qa_samples": 0}
    opts = stored_options(["debate"], old, {"judge_mode": "cot"})
    assert type(opts) is run_options_model(["debate"]) and opts.judge_mode == "cot"
    now = run_options_model(["debate"])().model_dump(mode="json")
    assert same_options(old, now)
    assert not same_options({**old, "qa_samples": 4}, now)
    assert not same_options({**old, "rounds": 2}, now)


def test_options_model_merges_any_protocols():
    merged = options_model([Stance(), protocol_module.registered_protocols()["debate"]])
    m = merged(stances=3, turn_style="sequential")
    assert (m.stances, m.turn_style, m.rounds) == (3, "sequential", 3)
    with pytest.raises(BenchError, match="unknown protocol option 'nope'"):
        merged(nope=1)
