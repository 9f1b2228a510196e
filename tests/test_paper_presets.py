"""The paper's defaults and presets: the option models' defaults are the paper's, every run declares its
deviations, and each configs/paper preset runs on scripted models at --limit 2 and `report` (or
`elo`) draws its figure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import REPO, cli, stored_records
from oversight_bench.config import RunConfig, expand_variants, load_run_config
from oversight_bench.deviations import PAPER_OPTIONS, deviations, elo_prior_deviation, invalid_answer_deviation
from oversight_bench.errors import BenchError
from oversight_bench.models import parse_spec
from oversight_bench.protocol import NO_PAPER_VALUE
from oversight_bench.protocol_options import OUTSIDE_PAPER
from oversight_bench.protocol_options import all_options_model

PRESETS = REPO / "configs" / "paper"
#: the tasks whose data here is not the paper's (their task files say how; mmlu: answers that refer to other choices dropped)
SUBSTITUTED = ("quality", "gsm8kqa", "prontoqa", "gpqa", "mmmu", "mmlu")
# scripted stand-ins that can see MMMU's images; never a result
MODEL = "scripted:default,images=true"
FIGURE_OF = {  # preset -> the figure `report` must draw for it
    "fig2_assigned": "fig2_accuracy.png",
    "fig3_open_roles": "fig3_open_role.png",
    "ablation_rounds": "figA_ablation.png",
    "ablation_best_of_n": "figA_ablation.png",
    "ablation_few_shot": "figA_ablation.png",
    "ablation_cot": "figA_ablation.png",
    "ablation_answer_order": "figA8_position_bias.png",
    "ablation_turn_style": "figA_ablation.png",
}


#: option defaults that are not the paper's: our reading of "default sampling options" for judges,
#: and the token budgets, which the paper leaves to the API; each is declared in every run
DECLARED_DEFAULTS = {"judge_temperature": (0.0, 1.0), "thinking_max_tokens": (1024, NO_PAPER_VALUE),
                     "argument_max_tokens": (512, NO_PAPER_VALUE), "judge_max_tokens": (256, NO_PAPER_VALUE),
                     "predict_max_tokens": (24, NO_PAPER_VALUE)}


def test_defaults_are_the_papers():
    opts = all_options_model()()
    # an installed plugin protocol's own option (outside the paper) is not a default of the paper's protocols
    differ = {k: (getattr(opts, k), v) for k, v in PAPER_OPTIONS.items() if getattr(opts, k) != v and v != OUTSIDE_PAPER}
    assert differ == DECLARED_DEFAULTS
    assert opts.rounds == 3 and opts.best_of_n == 4 and opts.answer_order == "both" and opts.truncate_words is False
    assert "debias" not in parse_spec(RunConfig().judge).options
    # a bare run: the declared defaults, the three default tasks and how invalid answers count; nothing else
    assert deviations(RunConfig()) == [
        'judge temperature 0.0 (paper: "default sampling options", read as the API default 1.0)',
        'agent thinking budget 1024 tokens, then the turn is continued from "Argument:" (in the same generation, or by '
        'a second call asking for the argument alone where the backend cannot continue one; paper: no cap)',
        "agent argument budget 512 tokens, a longer argument is cut and marked (paper: no cap)",
        "judge question and chain-of-thought budget 256 tokens (paper: no cap)",
        "judge predict-mode verdict budget 24 tokens (paper: no cap)",
        "3 of the paper's 9 tasks (boolq, mmlu, prontoqa)",
        invalid_answer_deviation()]
    paper = RunConfig(tasks=["all"], options=all_options_model()(judge_temperature=1.0))
    assert [d for d in deviations(paper) if "budget" not in d] == [invalid_answer_deviation()]


def test_deviations_name_each_setting_that_differs():
    cfg = RunConfig(judge="scripted:default,debias=true", limit=16,
                    options=all_options_model()(rounds=2, best_of_n=1, answer_order="random", truncate_words=True))
    devs = deviations(cfg)
    for text in ("rounds 2 (paper 3)", "best-of-N 1 (paper 4)", "answer order random (paper: both)",
                 "limit 16 questions/task (paper 128)", "arguments cut at the word limit (paper: asked, not cut)"):
        assert text in devs
    assert any(d.startswith("judge debiased") and "(paper: plain)" in d for d in devs)
    # a stored config of an older version (judge name carrying the option) says the same
    assert any(d.startswith("judge debiased") for d in deviations({"judge": "llamacpp:x,debias=True", "options": {}}))
    assert deviations({"kind": "crossplay", "judge": "j", "options": {"rounds": 1, "best_of_n": 4}}) == [
        elo_prior_deviation(), invalid_answer_deviation("crossplay")]


def test_main_job_keeps_its_small_settings_and_says_so():
    cfg = load_run_config(str(REPO / "configs" / "main.yaml"), {})
    devs = deviations(cfg)
    assert "rounds 2 (paper 3)" in devs and "best-of-N 1 (paper 4)" in devs and "limit 1 questions/task (paper 128)" in devs
    assert "answer order random (paper: both)" in devs and any(d.startswith("judge debiased") for d in devs)


def test_run_writes_deviations_and_plain_judge_name(tmp_path):
    out = tmp_path / "run"
    res = cli("run", "--judge", "scripted:default,logprobs=true,debias=true", "--agent", "scripted:default",
              "--tasks", "mmlu", "--protocols", "debate", "--limit", "1", "--rounds", "1", "--best-of-n", "1",
              "--output", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["judge"] == "scripted:default,logprobs=True" and cfg["judge_debias"] is True
    assert "rounds 1 (paper 3)" in cfg["deviations"] and any(d.startswith("judge debiased") for d in cfg["deviations"])
    assert "deviations from the paper:" in res.output and "rounds 1 (paper 3)" in res.output
    # resuming with the same settings works; a store of the older format is refused with a clear line
    assert cli("run", "--judge", "scripted:default,logprobs=true,debias=true", "--agent", "scripted:default",
               "--tasks", "mmlu", "--protocols", "debate", "--limit", "1", "--rounds", "1", "--best-of-n", "1",
               "--output", str(out), "--quiet").exit_code == 0
    legacy = {k: v for k, v in cfg.items() if k != "judge_debias"} | {"judge": "scripted:default,logprobs=True,debias=True"}
    (out / "config.json").write_text(json.dumps(legacy))
    res = cli("run", "--judge", "scripted:default,logprobs=true,debias=true", "--agent", "scripted:default",
              "--tasks", "mmlu", "--protocols", "debate", "--limit", "1", "--output", str(out), "--quiet")
    assert res.exit_code == 2 and "earlier oversight-bench" in res.output


def test_truncate_words_decides_whether_the_argument_is_cut(tmp_path):
    from oversight_bench.model_text import process_turn

    long = "Thinking: plan.\nArgument: " + " ".join(f"w{i}" for i in range(30))
    assert len(process_turn(long, None, 10).split()) == 10  # a limit given: cut (truncate_words=true)
    assert len(process_turn(long, None).split()) == 30  # none given: shown whole (the paper's default)


def test_variants_expand_into_one_run_each():
    cfg = load_run_config(str(PRESETS / "ablation_rounds.yaml"), {"output": "x", "options": {"best_of_n": 1}})
    runs = expand_variants(cfg)
    assert [(Path(r.output).name, r.options.rounds, r.options.best_of_n) for r in runs] == [("rounds-1", 1, 1), ("rounds-3", 3, 1)]
    with pytest.raises(BenchError, match="variant"):
        load_run_config(None, {"variants": {"../x": {"rounds": 1}}})
    with pytest.raises(BenchError):
        load_run_config(None, {"variants": {"a": {"rounds": 99}}})


@pytest.mark.parametrize("name", sorted(FIGURE_OF))
def test_preset_runs_and_report_draws_its_figure(name, tmp_path):
    out = tmp_path / name
    # the figure presets run on all nine tasks; the ablations (same task list) on two, to stay fast
    tasks = [] if name.startswith("fig") else ["--tasks", "boolq,mmlu"]
    res = cli("run", "--config", str(PRESETS / f"{name}.yaml"), "--judge", MODEL, "--agent", MODEL,
              "--limit", "2", "--output", str(out), "--quiet", *tasks)
    assert res.exit_code == 0, res.output
    configs = sorted(out.glob("**/config.json"))
    assert configs
    for c in configs:
        devs = json.loads(c.read_text())["deviations"]
        assert "limit 2 questions/task (paper 128)" in devs
        # the preset itself is the paper's setting but for the ablated option, the declared defaults
        # (judge temperature, token budgets, invalid answers), the task subset and the substituted data
        assert all(d.startswith(("limit", "rounds 1", "best-of-N 1", "judge 6-shot", "judge mode cot", "answer order random",
                                 "turn style sequential", "judge temperature 0.0", "agent thinking budget",
                                 "agent argument budget", "judge question and", "judge predict-mode", "accuracy is over valid",
                                 "2 of the paper's 9 tasks (boolq, mmlu)", *(f"{t} data: " for t in SUBSTITUTED)))
                   for d in devs), devs
        if not tasks:  # all nine: each substituted dataset is named, with its count
            assert {d.split(" data: ")[0] for d in devs if " data: " in d} == set(SUBSTITUTED)
    rep = cli("report", str(out), "--output", str(tmp_path / "report"))
    assert rep.exit_code == 0, rep.output
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    assert {g["task"] for g in report["groups"] if g["level"] == "task"} >= {"boolq", "mmlu"}
    assert (tmp_path / "report" / FIGURE_OF[name]).stat().st_size > 1000
    if name == "fig2_assigned":
        assert {g["task"] for g in report["groups"] if g["level"] == "task"} == {
            "quality", "boolq", "gpqa_extractive", "mmlu", "gsm8kqa", "prontoqa", "truthfulqa", "gpqa", "mmmu"}


def test_elo_preset_runs_and_draws_figure_4(tmp_path):
    res = cli("elo", "--config", str(PRESETS / "fig4_elo.yaml"), "--judge", "scripted:default",
              "--debaters", "scripted:default,scripted:default,delay=0", "--tasks", "boolq,mmlu", "--pairings", "4",
              "--bootstrap", "20", "--output", str(tmp_path / "elo"))
    assert res.exit_code == 0, res.output
    assert (tmp_path / "elo" / "elo.json").exists() and (tmp_path / "elo" / "fig4_elo.png").stat().st_size > 1000


NINE = ["quality", "boolq", "gpqa_extractive", "mmlu", "gsm8kqa", "prontoqa", "truthfulqa", "gpqa", "mmmu"]


def test_elo_preset_plays_all_nine_tasks_mmmu_included(tmp_path):
    """Fig. 4's preset as written (its nine tasks) on image-reading scripted debaters and judge, two
    cross-play games per task (--limit 2): each debater's own model is checked for images, so MMMU
    is played, not refused or failed."""
    from oversight_bench.rundir.store import Store

    res = cli("elo", "--config", str(PRESETS / "fig4_elo.yaml"), "--judge", MODEL,
              "--debaters", f"{MODEL},{MODEL},delay=0", "--limit", "2", "--bootstrap", "10", "--output", str(tmp_path / "elo"))
    assert res.exit_code == 0, res.output
    store = Store.open(tmp_path / "elo" / "crossplay")
    try:
        decisions = list(stored_records(store, "decision"))
    finally:
        store.close()
    assert {d["task"] for d in decisions} == set(NINE)
    mmmu = [d for d in decisions if d["task"] == "mmmu"]
    assert mmmu and all(d["answer"] in (1, 2) for d in mmmu)
    assert any(len(set(d["extra"]["debaters"])) == 2 for d in mmmu)  # cross-play, not only self-play
    assert sum(len(set(d["extra"]["debaters"])) == 2 for d in decisions) == 2 * len(NINE)
    cfg = json.loads((tmp_path / "elo" / "crossplay" / "config.json").read_text())
    assert not any("of the paper's 9 tasks" in d for d in cfg["deviations"])


def test_a_text_only_debater_is_refused_for_mmmu(tmp_path):
    out = tmp_path / "elo"
    res = cli("elo", "--judge", MODEL, "--debaters", f"{MODEL},scripted:default,delay=0", "--tasks", "mmmu",
              "--pairings", "2", "--output", str(out))
    assert res.exit_code == 2
    assert res.output.strip() == ("error: task mmmu shows images but debater scripted:default,delay=0 is text-only; "
                                  "use image-capable debaters or drop the task")
    assert not (out / "crossplay" / "results.sqlite").exists()


def test_ambiguous_readings_are_options():
    """PrOntoQA negation and GPQA "full dataset": our choice is the built-in task, the other reading a task file."""
    from task_configs.loaders.prontoqa_rows import wrong_trace
    from oversight_bench.tasks import resolve_tasks

    trace = ["Fae is a cat.", "Cats are carnivores.", "Fae is a carnivore."]
    assert wrong_trace(trace) == ["Fae is a cat.", "Cats are not carnivores.", "Fae is not a carnivore."]
    assert wrong_trace(trace, "every_statement") == ["Fae is not a cat.", "Cats are not carnivores.", "Fae is not a carnivore."]
    tasks = {t.name: t for t in resolve_tasks(["prontoqa", "prontoqa_negate_all", "gpqa_full"], [str(PRESETS / "tasks")])}
    assert tasks["gpqa_full"].task_type == "closed"
    from helpers import DATA

    plain = {q.id: q for q in tasks["prontoqa"].load(DATA, 60, 0).questions}
    other = {q.id: q for q in tasks["prontoqa_negate_all"].load(DATA, 60, 0).questions}
    shared = sorted(set(plain) & set(other))
    assert shared  # the same rows, sampled under another task name
    assert all(plain[i].correct == other[i].correct and plain[i].incorrect != other[i].incorrect for i in shared)


def test_best_of_n_applies_to_debaters_only_by_default(tmp_path):
    """§4.1: debaters best-of-4 (the debater model picks the most persuasive); consultants sample once."""
    from oversight_bench.rundir.store import Store

    out = tmp_path / "run"
    res = cli("run", "--judge", "scripted:default", "--agent", "scripted:default", "--tasks", "mmlu",
              "--protocols", "consultancy,debate", "--limit", "1", "--rounds", "1", "--output", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    store = Store.open(out)
    try:
        turns = list(stored_records(store, "turn"))
    finally:
        store.close()
    debaters = [t for t in turns if t["role"] == "debater"]
    consultants = [t for t in turns if t["role"] == "consultant"]
    assert len(debaters) == 4 and len(consultants) == 4  # both orders; consultancy: both assignments
    assert all(len(t["extra"]["best_of_n"]["samples"]) == 4 for t in debaters)
    assert all("best_of_n" not in t["extra"] for t in consultants)


def test_elo_selfplay_zero_runs_cross_play_only(tmp_path):
    """`--selfplay 0` spends every game on cross-play (the Elo fit); a negative count is a one-line error."""
    args = ["elo", "--judge", "scripted:default", "--debaters", "scripted:default,scripted:default,delay=0",
            "--tasks", "boolq,mmlu", "--pairings", "4", "--bootstrap", "20"]
    res = cli(*args, "--selfplay", "0", "--output", str(tmp_path / "elo"))
    assert res.exit_code == 0, res.output
    assert "no self-play" in res.output and json.loads((tmp_path / "elo" / "elo.json").read_text())["aggregate"]["n_games"] == 4
    res = cli(*args, "--selfplay", "-1", "--output", str(tmp_path / "bad"))
    assert res.exit_code == 2 and "--selfplay" in res.output


def test_elo_option_values_are_checked(tmp_path):
    """A YAML value of the wrong type and --selfplay without new debates are one-line errors, exit 2."""
    (tmp_path / "elo.yaml").write_text("selfplay: many\n")
    res = cli("elo", "--config", str(tmp_path / "elo.yaml"), "--judge", "scripted:default",
              "--debaters", "scripted:default,scripted:default,delay=0", "--tasks", "boolq", "--output", str(tmp_path / "o"))
    assert res.exit_code == 2 and "field selfplay='many' is not valid" in res.output
    (tmp_path / "elo.yaml").write_text("pairings: 1.5\n")
    res = cli("elo", "--config", str(tmp_path / "elo.yaml"), "--judge", "scripted:default",
              "--debaters", "scripted:default,scripted:default,delay=0", "--tasks", "boolq", "--output", str(tmp_path / "o"))
    assert res.exit_code == 2 and "pairings" in res.output
    res = cli("elo", str(tmp_path), "--selfplay", "0", "--output", str(tmp_path / "o"))
    assert res.exit_code == 2 and "--selfplay" in res.output
    assert not (tmp_path / "o").exists()
