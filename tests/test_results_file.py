"""lm-eval's output conventions (issue 36, item 7): `results.json` and `samples.jsonl` in every run
folder at the end of a run, rewritten whole on a resume; the schema committed in the docs is the
model's; lm-eval's flags accepted or answered in one line; every option of every command has help."""

from __future__ import annotations

import json

import click
import pytest

from helpers import FAKE, REPO, cli, stored_records

RUN = ["run", "--judge", FAKE, "--agent", FAKE, "--tasks", "prontoqa", "--limit", "2", "--quiet",
       "--protocols", "qa_without_article,consultancy", "--rounds", "1"]


def _decisions(out) -> list[dict]:
    from oversight_bench.rundir.store import Store

    store = Store.open(out)
    try:
        return list(stored_records(store, "decision"))
    finally:
        store.close()


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "r"
    res = cli(*RUN, "--output", str(out))
    assert res.exit_code == 0, res.output
    return out


def test_results_json_holds_each_cell_as_the_table_computes_it(finished):
    from oversight_bench.end_of_run import summarize
    from oversight_bench.rundir.results_file import read_results
    from oversight_bench.rundir.store import Store

    results = read_results(finished)  # validated by the model (extra fields forbidden)
    store = Store.open(finished)
    try:
        rows = summarize(store)
    finally:
        store.close()
    assert [(c.protocol, c.task, c.n, c.accuracy, c.ci_low, c.ci_high, c.n_invalid) for c in results.cells] == \
           [(r["protocol"], r["task"], r["n"], r["accuracy"], r["ci_low"], r["ci_high"], r["n_invalid"]) for r in rows]
    assert {c.protocol for c in results.cells} == {"qa_without_article", "consultancy"}
    assert all(c.n == 2 and c.quality["n_records"] == c.n_records for c in results.cells)
    assert results.deviations and any("limit 2" in d for d in results.deviations)
    assert results.jobs.decisions == len(_decisions(finished)) == results.jobs.done
    assert {(c.role, c.model) for c in results.calls} == {("judge", FAKE), ("agent", FAKE)}
    assert all(c.calls > 0 and c.prompt_tokens > 0 for c in results.calls)
    assert results.versions["versions"]["oversight-bench"] and results.versions["python"]
    assert results.config["judge"] == FAKE and results.timings.seconds >= 0
    assert results.timings.started <= results.timings.finished


def test_samples_jsonl_has_one_line_per_decision_with_what_the_judge_read(finished):
    lines = (finished / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines]
    stored = _decisions(finished)
    assert len(rows) == len(stored)
    assert sorted((r["job_key"], r["answer"], r["correct"], r["raw"]) for r in rows) == \
           sorted((d["job_key"], d["answer"], d["correct"], d["raw"]) for d in stored)
    consult = [r for r in rows if r["protocol"] == "consultancy"]
    assert consult and all(r["turns"] and r["turns"][0]["role"] == "consultant" and r["turns"][0]["shown"]
                           for r in consult)
    assert all(r["turns"] == [] for r in rows if r["protocol"] == "qa_without_article")
    assert all(r["invalid"] is (r["answer"] is None) for r in rows)


def test_a_resume_rewrites_both_files_whole(tmp_path):
    out = tmp_path / "r"
    assert cli(*RUN[:-4], "--protocols", "qa_without_article", "--output", str(out)).exit_code == 0
    first = json.loads((out / "results.json").read_text())
    (out / "samples.jsonl").write_text("stale\n")
    res = cli(*RUN[:-4], "--protocols", "qa_without_article", "--output", str(out))
    assert res.exit_code == 0, res.output
    again = json.loads((out / "results.json").read_text())
    assert again["jobs"]["done"] == 0 and again["jobs"]["already_stored"] == first["jobs"]["done"] > 0
    assert again["cells"] == first["cells"]
    lines = (out / "samples.jsonl").read_text().splitlines()
    assert len(lines) == first["jobs"]["decisions"] and "stale" not in lines
    assert not list(out.glob("*.tmp"))


def test_a_rejudging_writes_its_own_results(finished, tmp_path):
    out = tmp_path / "j"
    res = cli("judge", "--from", str(finished), "--judge", FAKE, "--output", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    results = json.loads((out / "results.json").read_text())
    assert results["kind"] == "judge" and {c["judge"] for c in results["cells"]} == {FAKE}
    assert len((out / "samples.jsonl").read_text().splitlines()) == results["jobs"]["decisions"] > 0


def test_the_committed_schema_is_the_models():
    from oversight_bench.rundir.results_file import results_schema

    committed = json.loads((REPO / "docs" / "results-schema.json").read_text())
    assert committed == results_schema(), ("docs/results-schema.json is stale: regenerate it with "
                                           "python -c 'import json; from oversight_bench.rundir.results_file import "
                                           "results_schema; print(json.dumps(results_schema(), indent=1))'")
    assert "cells" in committed["properties"] and "CellResult" in committed["$defs"]


# -- lm-eval's flags -------------------------------------------------------------------------------


def test_lm_eval_output_and_include_path_spellings(tmp_path):
    res = cli("list", "tasks", "--include_path", str(tmp_path / "missing"))
    assert res.exit_code == 2 and "--include-path" in res.output and "no such file" in res.output
    out = tmp_path / "o"
    res = cli(*RUN[:-4], "--protocols", "qa_without_article", "--output_path", str(out), "--include_path",
              str(tmp_path / "missing"))
    assert res.exit_code == 2 and "no such file" in res.output and not out.exists()


def test_log_samples_is_accepted_and_says_samples_are_always_stored(tmp_path):
    out = tmp_path / "o"
    res = cli(*RUN[:-4], "--protocols", "qa_without_article", "--output_path", str(out), "--log_samples")
    assert res.exit_code == 0, res.output
    assert "always stored" in res.output and (out / "samples.jsonl").exists()


@pytest.mark.parametrize("flags", [["--model", "hf"], ["--model_args", "pretrained=gpt2"]])
def test_model_and_model_args_are_answered_with_the_flags_here(flags, tmp_path):
    res = cli(*RUN, *flags, "--output", str(tmp_path / "o"))
    assert res.exit_code == 2
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "--judge SPEC" in lines[0] and "--agent SPEC" in lines[0], res.output
    assert not (tmp_path / "o").exists()


def test_tasks_list_lists_the_tasks(tmp_path):
    res = cli("run", "--tasks", "list", "--output", str(tmp_path / "o"))
    assert res.exit_code == 0, res.output
    assert res.output.splitlines()[0].split()[:2] == ["task", "type"]
    assert "prontoqa" in res.output and "quality" in res.output and "did you mean" not in res.output
    assert not (tmp_path / "o").exists()


def _commands(group: click.Group, ctx: click.Context, path: str):
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        if cmd is None:
            continue
        yield f"{path} {name}", cmd
        if isinstance(cmd, click.Group):
            yield from _commands(cmd, click.Context(cmd, parent=ctx, info_name=name), f"{path} {name}")


def test_every_option_of_every_command_has_help():
    """Walks the click commands (plugins' included): an option a user can see says what it does."""
    from oversight_bench.cli import cli as group
    from oversight_bench.registry import reset_registry

    reset_registry()
    ctx = click.Context(group, info_name="oversight-bench")
    missing, seen = [], 0
    for path, cmd in _commands(group, ctx, "oversight-bench"):
        for p in cmd.params:
            if isinstance(p, click.Option) and not p.hidden and p.name not in ("help", "version"):
                seen += 1
                if not (p.help or "").strip():
                    missing.append(f"{path} {p.opts[0]}")
    assert seen > 50
    assert not missing, f"options without help: {missing}"
