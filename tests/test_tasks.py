"""The nine tasks on the real data directory, the YAML schema, groups, sources and the task pack.

GPQA tests assert counts and flags only and never print question text (its authors ask that it
not appear in plain text online).
"""

from __future__ import annotations

import csv
import importlib.metadata as md
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest

from oversight_bench.errors import BenchError
from oversight_bench.tasks import data_dir, load_yaml_tasks, resolve_tasks

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("OVERSIGHT_BENCH_DATA") or REPO.parent / "shared" / "datasets")
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"data directory {DATA} not found (set OVERSIGHT_BENCH_DATA)")

NINE = {
    "quality": "extractive", "boolq": "extractive", "gpqa_extractive": "extractive",
    "mmlu": "closed", "gsm8kqa": "closed", "prontoqa": "closed", "truthfulqa": "closed", "gpqa": "closed",
    "mmmu": "multimodal",
}


def _norm(s: str) -> str:
    return " ".join(s.split()).casefold()


def builtin(name: str):
    return resolve_tasks([name], [])[0]


# -- every task on the real data --------------------------------------------------------------
@needs_data
@pytest.mark.parametrize("name", sorted(NINE))
def test_task_loads_binary_questions(name):
    task = builtin(name)
    assert task.task_type == NINE[name] and task.sample_size == 128
    res = task.load(DATA, 12, 0)
    qs = res.questions
    assert len(qs) == 12
    assert len({q.id for q in qs}) == 12
    assert all(q.task == name and q.task_type == NINE[name] for q in qs)
    assert all(q.question.strip() and q.correct.strip() and q.incorrect.strip() for q in qs)
    assert all(_norm(q.correct) != _norm(q.incorrect) for q in qs)  # exactly one correct option
    if NINE[name] == "extractive":
        assert all(q.article and len(q.article) > 20 for q in qs)
    else:
        assert all(q.article is None for q in qs)
    if name == "mmmu":
        assert task.needs_images and all(q.images and all(i.mime.startswith("image/") and i.data for i in q.images) for q in qs)
    else:
        assert not getattr(task, "needs_images", False)
    # deterministic under a seed, different under another, and a prefix of a larger sample
    again = task.load(DATA, 12, 0).questions
    assert [(q.id, q.correct, q.incorrect) for q in again] == [(q.id, q.correct, q.incorrect) for q in qs]
    assert [q.id for q in task.load(DATA, 12, 1).questions] != [q.id for q in qs]
    bigger = task.load(DATA, 20, 0).questions
    assert [(q.id, q.incorrect) for q in bigger[:12]] == [(q.id, q.incorrect) for q in qs]


@needs_data
def test_available_counts_and_skips():
    """Sizes of the real pools; skipped rows are counted with their reason."""
    counts = {name: builtin(name).available(DATA) for name in NINE}
    assert counts["boolq"] == 3270
    # 13,942 non-business-ethics rows less 344 whose correct choice refers to the others, 46 duplicates
    # and 2 identical-option rows
    assert counts["mmlu"] == 13550
    assert counts["truthfulqa"] == 817
    assert counts["gpqa"] == counts["gpqa_extractive"] == 448
    assert counts["prontoqa"] == 1000
    assert counts["quality"] >= 360 and counts["mmmu"] == 655 and counts["gsm8kqa"] >= 128
    skipped = builtin("mmlu").load(DATA, 1, 0).skipped
    assert skipped["duplicate_id"] == 46 and skipped["identical_options"] == 2
    assert skipped["answer_refers_to_other_options"] == 344
    assert builtin("mmmu").load(DATA, 1, 0).skipped["not_multiple_choice"] == 20


@needs_data
def test_mmlu_keeps_no_answer_that_refers_to_other_choices():
    """MMLU version 2 (binary.drop_references): on the real rows, no kept answer of any question in
    the pool refers to other choices, the dropped questions and wrong choices are counted, and the
    count is declared with the task's data (as a run's deviations show it)."""
    from oversight_bench.option_refs import refers_to_other_options
    from oversight_bench.yaml_task import convert

    task = builtin("mmlu")
    res = task.load(DATA, 13550, 0)
    assert task.fingerprint["version"] == 2 and len(res.questions) == 13550
    assert not any(refers_to_other_options(q.correct) or refers_to_other_options(q.incorrect) for q in res.questions)
    assert res.deviations == ['344 of 13894 questions dropped because the correct choice refers to other choices '
                              '(all/none of the above, "both A and B", "B and C only"...), and 354 wrong choices that do '
                              "never drawn (binary.drop_references; the paper's binary conversion does not say)"]
    rows = list(csv.DictReader((DATA / "mmlu" / "test" / "astronomy_test.csv").open(encoding="utf-8")))
    row = next(r for r in rows if r["choice" + r["answer"]].strip().lower().startswith("all of the above"))
    assert convert({**row, "_file": "astronomy_test"}, task.config, task.config.fields) == "answer_refers_to_other_options"
    off = task.config.model_copy(update={"binary": task.config.binary.model_copy(update={"drop_references": False})})
    assert convert({**row, "_file": "x"}, off, off.fields).correct.strip().lower().startswith("all of the above")


def test_the_reference_rule_on_choices_seen_in_mmlu():
    from oversight_bench.option_refs import refers_to_other_options as refers

    for text in ("all of the above", "None of these choices is correct.", "All the above", "none of above.",
                 "All of these options. To make non-compliance too costly...", "Moons contribute to all of the above.",
                 "both A and B", "neither (a) nor (b)", "Both A & C", "B and C only", "A, B and C", "(B) (C) and (D).",
                 "a and b", "Options A and B", "All choices are false", "both A and D are correct."):
        assert refers(text), text
    for text in ("I and II only", "firms A and B are substitutes because ...", "Country A and B have identical living standards",
                 "Core", "all of the hominids that evolved from Homo habilis", "answer a question", "A decrease in both "
                 "aggregate demand and aggregate supply.", "The ring {a + b * sqrt(2) : a and b are rational numbers}", ""):
        assert not refers(text), text


@needs_data
def test_mmlu_excludes_business_ethics_and_uses_test_split():
    qs = builtin("mmlu").load(DATA, 2000, 3).questions
    subjects = {q.meta["_file"] for q in qs}
    assert "business_ethics_test" not in subjects and all(s.endswith("_test") for s in subjects)


@needs_data
def test_quality_default_mix_is_real_binary_subsets():
    res = builtin("quality").load(DATA, 400, 0)
    subsets = {q.meta["quality_subset"] for q in res.questions}
    assert subsets == {"khan_th", "michael2023"}
    assert res.skipped["duplicate_across_subsets"] == 12
    assert all("-LSB-" not in q.article and "``" not in q.article for q in res.questions)


@needs_data
@pytest.mark.skipif(shutil.which("unzip") is None, reason="Info-ZIP unzip not installed")
def test_gpqa_decrypts_the_same_through_unzip_and_zipfile(monkeypatch, tmp_path):
    from task_configs.loaders import gpqa

    zip_path = DATA / "gpqa" / "dataset.zip"
    fast = gpqa._decrypt(zip_path, "dataset/gpqa_diamond.csv")
    monkeypatch.setattr(gpqa.shutil, "which", lambda name: None)
    assert fast == gpqa._decrypt(zip_path, "dataset/gpqa_diamond.csv")
    monkeypatch.undo()
    broken = tmp_path / "dataset.zip"  # unzip refuses a damaged zip: zipfile's error is the one raised
    broken.write_bytes(zip_path.read_bytes()[:-5000])
    with pytest.raises((zipfile.BadZipFile, KeyError, RuntimeError)):
        gpqa._decrypt(broken, "dataset/gpqa_diamond.csv")


@needs_data
def test_gpqa_is_marked_and_never_written(tmp_path):
    before = set(os.listdir(tempfile.gettempdir()))
    for name in ("gpqa", "gpqa_extractive"):
        qs = builtin(name).load(DATA, 448, 0).questions
        assert len(qs) == 448
        assert all(q.meta.get("contains_gpqa") is True for q in qs)
    with zipfile.ZipFile(DATA / "gpqa" / "dataset.zip") as z:
        data = z.read("dataset/gpqa_main.csv", pwd=b"deserted-untie-orchid").decode()
    canary = next(csv.DictReader(io.StringIO(data)))["Canary String"].strip().encode()
    assert canary.startswith(b"gpqa:")
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True).stdout.split(b"\0")
    leaked = [f for f in tracked if f and (REPO / f.decode()).is_file() and canary in (REPO / f.decode()).read_bytes()]
    assert not leaked, "GPQA canary found in committed files"
    new = set(os.listdir(tempfile.gettempdir())) - before
    for n in new:
        p = Path(tempfile.gettempdir()) / n
        if p.is_file() and p.stat().st_size < 50_000_000:
            assert canary not in p.read_bytes(), "GPQA plaintext left in a temporary file"


@needs_data
def test_gsm8kqa_pairs_execute_as_claimed():
    from task_configs.sandbox import run_programs

    everything = builtin("gsm8kqa").load(DATA, 1000, 0).questions
    runs = [q.meta["runs"]["correct"] for q in everything]
    assert runs.count("few-shot") == runs.count("zero-shot")  # no style shortcut to the right program
    assert all("# Question:" not in q.correct + q.incorrect for q in everything)
    qs = everything[:4]
    results = run_programs([p for q in qs for p in (q.correct, q.incorrect)])
    for i, q in enumerate(qs):
        gold = q.meta["ground_truth"]
        assert results[2 * i].matches(gold)
        assert results[2 * i + 1].ok and not results[2 * i + 1].matches(gold)


@needs_data
def test_loading_is_fast():
    import time

    for name in ("mmlu", "boolq", "truthfulqa", "prontoqa"):
        t = time.perf_counter()
        builtin(name).load(DATA, 128, 7)
        assert time.perf_counter() - t < 5


# -- groups, names, data directory ------------------------------------------------------------
def test_groups_expand_in_paper_order():
    order = list(NINE)
    for group in ("extractive", "closed", "multimodal", "all"):
        names = [t.name for t in resolve_tasks([group], []) if t.name in NINE]
        expected = [n for n in order if group == "all" or NINE[n] == group]
        assert names == expected
    mixed = [t.name for t in resolve_tasks(["boolq", "extractive", "boolq"], [])]
    assert mixed[0] == "boolq" and mixed.count("boolq") == 1


def test_unknown_task_suggests_a_name():
    with pytest.raises(BenchError, match="did you mean 'mmlu'"):
        resolve_tasks(["mmlx"], [])


def test_data_dir_resolution(tmp_path, monkeypatch):
    monkeypatch.delenv("OVERSIGHT_BENCH_DATA", raising=False)
    assert data_dir(str(tmp_path)) == tmp_path.resolve()
    with pytest.raises(BenchError, match="does not exist"):
        data_dir(str(tmp_path / "nope"))
    monkeypatch.setenv("OVERSIGHT_BENCH_DATA", str(tmp_path))
    assert data_dir(None) == tmp_path.resolve()
    monkeypatch.delenv("OVERSIGHT_BENCH_DATA")
    monkeypatch.chdir(tmp_path)
    assert data_dir(None) is None
    (tmp_path / "work").mkdir()
    (tmp_path / "shared" / "datasets").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "work")
    assert data_dir(None) == (tmp_path / "shared" / "datasets").resolve()


# -- YAML schema and include paths ------------------------------------------------------------
GOOD = """
name: tiny
task_type: closed
loader: table
source:
  local: {files: [tiny/*.jsonl]}
fields: {question: q, correct: good, incorrect: [bad1, bad2]}
binary: {mode: pair}
sample_size: 4
"""


@pytest.mark.parametrize("text, needle", [
    (GOOD.replace("task_type: closed", "task_type: open"), "field task_type='open' is not valid"),
    (GOOD.replace("binary: {mode: pair}", ""), "field 'binary' is required"),
    (GOOD.replace("sample_size: 4", "sample_size: lots"), "field sample_size='lots' is not valid"),
    (GOOD + "colour: red\n", "unknown field 'colour'; expected one of"),
    (GOOD.replace("binary: {mode: pair}", "binary: {mode: pears}"), "field binary.mode='pears' is not valid"),
    ("name: [unclosed", "invalid YAML at line"),
    ("- just\n- a list\n", "expected a mapping"),
])
def test_bad_yaml_names_file_and_field(tmp_path, text, needle):
    p = tmp_path / "bad.yaml"
    p.write_text(text)
    with pytest.raises(BenchError) as exc:
        load_yaml_tasks(p)
    msg = str(exc.value)
    assert str(p) in msg and needle in msg and "\n" not in msg


def _tiny_data(tmp_path: Path) -> Path:
    d = tmp_path / "data" / "tiny"
    d.mkdir(parents=True)
    lines = [json.dumps({"q": f"What is {i} plus one?", "good": str(i + 1), "bad1": str(i + 2), "bad2": str(i)}) for i in range(10)]
    lines += [
        json.dumps({"q": "", "good": "1", "bad1": "2"}),  # missing question
        json.dumps({"q": "Same?", "good": "x", "bad1": "x ", "bad2": "X"}),  # identical options
        json.dumps({"q": "No wrong answer?", "good": "y"}),  # missing incorrect answer
        "{not json",  # malformed line
        json.dumps({"q": "What is 0 plus one?", "good": "1", "bad1": "5"}),  # duplicate id (same question+answer)
    ]
    (d / "rows.jsonl").write_text("\n".join(lines) + "\n")
    return tmp_path / "data"


def test_include_path_yaml_task_and_skipped_rows(tmp_path):
    data = _tiny_data(tmp_path)
    tasks_dir = tmp_path / "tasks"
    tasks_dir.mkdir()
    (tasks_dir / "tiny.yaml").write_text(GOOD)
    with pytest.raises(BenchError, match="did you mean 'tiny'"):
        resolve_tasks(["tinny"], [str(tasks_dir)])
    (task,) = resolve_tasks(["tiny"], [str(tasks_dir)])
    res = task.load(data, None, 0)
    assert len(res.questions) == 4 and task.available(data) == 10
    assert dict(res.skipped) == {"missing_question": 1, "identical_options": 1, "missing_incorrect_answer": 1,
                                 "malformed_row": 1, "duplicate_id": 1}
    many = task.load(data, 50, 0)
    assert len(many.questions) == 10 and any("only 10 of 50" in n for n in many.notes)


def test_missing_local_files_explain_where(tmp_path):
    tasks_dir = tmp_path / "tasks"
    tasks_dir.mkdir()
    (tasks_dir / "tiny.yaml").write_text(GOOD)
    (task,) = load_yaml_tasks(tasks_dir)
    with pytest.raises(BenchError, match="tiny/\\*.jsonl"):
        task.load(tmp_path, 2, 0)


def test_hub_without_access_names_local_files(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("OVERSIGHT_BENCH_SOURCE", "hub")
    task = load_yaml_tasks(REPO / "task_configs" / "boolq.yaml")[0]
    with pytest.raises(BenchError, match=r"cannot load hub dataset google/boolq.*boolq/boolq_validation\.json"):
        task.load(None, 2, 0)


def test_unreachable_hub_fails_in_seconds(monkeypatch):
    import socket
    import time

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("OVERSIGHT_BENCH_SOURCE", "hub")
    task = load_yaml_tasks(REPO / "task_configs" / "boolq.yaml")[0]
    t0 = time.monotonic()
    with pytest.raises(BenchError, match=rf"cannot reach 127.0.0.1:{port}.*boolq_validation\.json"):
        task.load(None, 2, 0)
    assert time.monotonic() - t0 < 5


# -- PrOntoQA ---------------------------------------------------------------------------------
def test_prontoqa_negation():
    from task_configs.loaders.prontoqa_rows import negate, wrong_trace

    assert negate("Max is a wumpus.") == "Max is not a wumpus."
    assert negate("Max is not sour.") == "Max is sour."
    assert negate("Tumpuses are not sour.") == "Tumpuses are sour."
    assert negate("Every impus is opaque.") == "Every impus is not opaque."
    trace = ["Max is a yumpus.", "Each yumpus is a dumpus.", "Max is a dumpus.", "Dumpuses are not sour.", "Max is not sour."]
    assert wrong_trace(trace) == trace[:3] + ["Dumpuses are sour.", "Max is sour."]


@needs_data
def test_prontoqa_options_reach_opposite_verdicts():
    for q in builtin("prontoqa").load(DATA, 30, 0).questions:
        truth = q.meta["answer"]
        assert q.correct.endswith("is true." if truth else "is false.")
        assert q.incorrect.endswith("is false." if truth else "is true.")


def _entails(context: str, statement: str) -> bool:
    """An independent check of a generated context: follow the "is a" chain from the entity to
    the first concept that states the property."""
    isa, props, facts = {}, {}, {}
    for s in [x.strip() for x in context.split(".") if x.strip()]:
        w = s.split()
        if w[0] in ("Every", "Each"):
            subj, rest = w[1], w[3:]
        elif w[1] == "are":
            subj, rest = w[0].lower()[:-2], w[2:]
        else:
            assert w[1] == "is" and w[2] in ("a", "an"), s
            facts[w[0]] = w[3]
            continue
        neg = rest[0] == "not"
        rest = rest[1:] if neg else rest
        if rest[0] in ("a", "an"):
            isa[subj] = rest[1]
        elif rest[0].endswith("puses"):
            isa[subj] = rest[0][:-2]
        else:
            props.setdefault(subj, {})[rest[0]] = not neg
    name, rest = statement.rstrip(".").split(" is ", 1)
    neg = rest.startswith("not ")
    adj = rest[4:] if neg else rest
    concept, value = facts[name], None
    while concept is not None and value is None:
        value = props.get(concept, {}).get(adj)
        concept = isa.get(concept)
    assert value is not None, statement
    return value != neg


def test_prontoqa_generator_answers_follow_from_ontology():
    from task_configs.loaders.prontoqa_gen import generate_rows

    rows = generate_rows(60, (3, 5), seed=1)
    assert rows == generate_rows(60, (3, 5), seed=1) and rows != generate_rows(60, (3, 5), seed=2)
    assert {r["_meta"]["hops"] for r in rows} == {3, 4, 5}
    for r in rows:
        context, statement = r["question"].split("\n\n")
        statement = statement.split("? ", 1)[1]
        assert _entails(context, statement) == r["_meta"]["answer"]


def test_prontoqa_runs_with_no_data():
    res = builtin("prontoqa").load(None, 8, 0)
    assert len(res.questions) == 8 and all(q.meta["prontoqa_source"] == "generated" for q in res.questions)


# -- QuALITY: Khan et al. T_L rebuild on a synthetic file -------------------------------------
def _qset(set_id, title, source="Gutenberg", **q):
    base = dict(question=f"Q {set_id}?", options=["alpha", "beta", "gamma", "delta"], gold_label=2, writer_label=2,
                difficult=1,
                validation=[dict(untimed_answer=2, untimed_eval1_answerability=1, untimed_eval2_context=2,
                                 untimed_best_distractor=3) for _ in range(3)],
                speed_validation=[dict(speed_answer=1)] * 4 + [dict(speed_answer=2)])
    base.update(q)
    return {"article_id": set_id, "set_unique_id": set_id, "source": source, "title": title,
            "article": f"Story {set_id}\u2028 text\xa0here.", "questions": [base]}


def test_quality_khan_tl_filter(tmp_path):
    from task_configs.loaders.quality import khan_tl_questions

    sets = [
        _qset("a", "T1"),
        _qset("b", "T2", source="Slate"),
        _qset("c", "T3", difficult=0),
        _qset("d", "T4", writer_label=1),
        _qset("e", "Boys Do Bleed"),
        _qset("f", "T5", speed_validation=[dict(speed_answer=2)] * 3),
        _qset("g", "T6", options=["alpha", "beta", "All of the above", "delta"]),
        _qset("h", "T7", validation=[dict(untimed_answer=2, untimed_eval1_answerability=1, untimed_eval2_context=1,
                                          untimed_best_distractor=3)]),
    ] + [_qset(f"s{i}", "Same story") for i in range(7)]
    rows, filtered, skipped = khan_tl_questions(sets)
    ids = {r["id"].split("/")[1] for r in rows}
    assert "a" in ids and not ids & {"b", "c", "d", "e", "f", "h"}
    assert sum(1 for i in ids if i.startswith("s")) == 5  # at most 5 questions per story
    assert filtered["not_gutenberg"] == 1 and filtered["story_cap"] == 2 and skipped["incompatible_options"] == 1
    a = next(r for r in rows if r["id"].split("/")[1] == "a")
    assert (a["correct"], a["incorrect"]) == ("beta", "gamma") and "\u2028" not in a["article"] and "\xa0" not in a["article"]
    # the task uses T_L automatically when the file is in the data directory
    qdir = tmp_path / "quality"
    qdir.mkdir()
    (qdir / "QuALITY.v1.0.1.htmlstripped.train").write_text("\n".join(json.dumps(s) for s in sets) + "\n")
    res = builtin("quality").load(tmp_path, 50, 0)
    assert len(res.questions) == 6 and {q.meta["quality_subset"] for q in res.questions} == {"khan_tl"}


def test_detokenize():
    from task_configs.loaders.quality import detokenize

    toks = ["``", "I", "do", "n't", "know", ",", "''", "he", "said", "-LRB-", "twice", "-RRB-", ".", "\n", "\n", "Next"]
    assert detokenize(toks) == '"I don\'t know," he said (twice).\n\nNext'


# -- GSM8KQA built sets and the build-task command --------------------------------------------
def _gsm_data(tmp_path: Path) -> Path:
    d = tmp_path / "data" / "gsm8k"
    d.mkdir(parents=True)
    rows = [{"question": "A farmer has 3 pens with 6 sheep each. How many sheep?", "answer": "3*6=18\n#### 18"},
            {"question": "Tom reads 5 pages a day for 4 days. How many pages?", "answer": "5*4=20\n#### 20"}]
    (d / "test.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return tmp_path / "data"


def test_build_task_gsm8kqa_with_scripted_model(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from model_adapters.scripted import register_script
    from task_configs.build_task import build_task

    def programs(messages, n, seed):
        text = messages[-1]["content"]
        gold = 18 if "sheep" in text else 20
        return [f"```python\ndef solution():\n    return {gold + (i % 2)}\n```" for i in range(n)]

    register_script("gsm_programs", programs)
    data = _gsm_data(tmp_path)
    out = tmp_path / "built.jsonl"
    monkeypatch.setenv("OVERSIGHT_BENCH_CACHE", str(tmp_path / "cache"))
    result = CliRunner().invoke(build_task, ["gsm8kqa", "--model", "scripted:gsm_programs", "--k", "4",
                                             "--data-dir", str(data), "--output", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(rows) == 2 and all(r["status"] == "pair" and r["n_correct"] == 2 and r["n_incorrect"] == 2 for r in rows)
    again = CliRunner().invoke(build_task, ["gsm8kqa", "--model", "scripted:gsm_programs", "--data-dir", str(data),
                                            "--output", str(out)], catch_exceptions=False)
    assert "nothing to build" in again.output  # resumable: built questions are not rebuilt
    # the task reads the built set
    task = load_yaml_tasks(REPO / "task_configs" / "gsm8kqa.yaml")[0]
    task.config.options["built"] = [str(out)]
    res = task.load(data, 5, 0)
    assert len(res.questions) == 2 and all("return" in q.correct and q.correct != q.incorrect for q in res.questions)


# -- the example task pack --------------------------------------------------------------------
PACK = REPO / "examples" / "task_pack"


def test_example_pack_loader_and_yaml(monkeypatch):
    monkeypatch.syspath_prepend(str(PACK))
    import obench_capitals

    from oversight_bench.registry import get_registry, reset_registry

    reg = get_registry()
    if "capitals" not in reg.names("loaders"):  # the pack's loader, as its entry point would register it
        reg.add_module_plugin("capitals", "obench-capitals", "test", module=obench_capitals)
    tasks = load_yaml_tasks(Path(obench_capitals.__file__).parent)
    assert [t.name for t in tasks] == ["capitals", "elements"]  # each YAML beside its own data file
    try:
        qs = tasks[0].load(None, 5, 0).questions
    finally:
        reset_registry()
    assert len(qs) == 5 and all(q.question.startswith("What is the capital of") and q.correct != q.incorrect for q in qs)
    registered = []
    obench_capitals.register_tasks(register=registered.append)
    assert [t.name for t in registered] == ["capitals", "elements"]


def test_example_pack_entry_point_when_installed(tmp_path):
    try:
        md.distribution("obench-capitals")
    except md.PackageNotFoundError:
        if os.environ.get("CI"):
            raise AssertionError("CI must pip install -e examples/task_pack") from None
        pytest.skip("examples/task_pack is not installed (CI runs pip install -e examples/task_pack)")
    assert "capitals" in {ep.name for ep in md.entry_points(group="oversight_bench")}
    from oversight_bench.registry import reset_registry

    reset_registry()
    assert [t.name for t in resolve_tasks(["capitals"], [])] == ["capitals"]
    from helpers import cli

    listed = [l for l in cli("list", "tasks").output.splitlines() if l.startswith("capitals")]
    assert listed and "obench-capitals" in listed[0]
    res = cli("run", "--tasks", "capitals", "--judge", "scripted:default", "--agent", "scripted:default",
              "--protocols", "qa_without_article,debate", "--limit", "4", "--output", str(tmp_path / "run"), "--quiet")
    assert res.exit_code == 0, res.output
    assert "debate" in res.output and "capitals" in res.output


def test_the_package_ships_the_nine_paper_tasks_and_no_other():
    """`list tasks` shows the paper's nine tasks as the package's own, each with its type; plugins' tasks
    are listed with their own distribution."""
    from helpers import cli

    rows = [line.split() for line in cli("list", "tasks").output.splitlines()]
    own = {r[0]: r[1] for r in rows if len(r) >= 3 and "oversight-bench" in r}
    assert own == NINE


# -- reading files through `datasets` ----------------------------------------------------------
@pytest.fixture
def fresh_reads(tmp_path, monkeypatch):
    """An empty datasets cache and no rows parsed yet in this process; returns the cache folder."""
    from oversight_bench import arrow_cache, data_files

    monkeypatch.setenv("OVERSIGHT_BENCH_CACHE", str(tmp_path / "cache"))
    data_files._read_cached.cache_clear()
    yield arrow_cache.datasets_cache_dir()
    data_files._read_cached.cache_clear()


def _reread_from_cache_only(monkeypatch):
    """Forget this process's parsed rows and make any new parse fail: a read must come from the cache."""
    from oversight_bench import arrow_cache, data_files

    data_files._read_cached.cache_clear()
    monkeypatch.setattr(arrow_cache, "convert", lambda *a, **k: pytest.fail("parsed again instead of read from the cache"))


def test_datasets_cache_dir_is_under_the_cache_root(monkeypatch, tmp_path):
    from oversight_bench.arrow_cache import datasets_cache_dir

    monkeypatch.setenv("OVERSIGHT_BENCH_CACHE", str(tmp_path / "root"))
    assert datasets_cache_dir() == tmp_path / "root" / "datasets"
    monkeypatch.delenv("OVERSIGHT_BENCH_CACHE")
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert datasets_cache_dir() == tmp_path / "home" / ".cache" / "oversight-bench" / "datasets"


CSV_TEXT = ('\ufeffq,a,b\n"two\r\nlines, ""quoted""",NA,None\n'
            '1,2,3,4\n'  # too many cells
            '5,6\n'  # too few
            ',,\n0.50,007,\n')


def test_csv_cells_read_as_written_and_malformed_rows_counted(fresh_reads, tmp_path, monkeypatch):
    from oversight_bench.data_files import read_csv_bytes, read_rows

    path = tmp_path / "t.csv"
    path.write_bytes(CSV_TEXT.encode())
    want = [{"q": 'two\r\nlines, "quoted"', "a": "NA", "b": "None"}, {"q": "", "a": "", "b": ""},
            {"q": "0.50", "a": "007", "b": ""}]
    assert read_rows(path) == (want, 2)
    assert read_csv_bytes(CSV_TEXT.encode()) == (want, 2)  # GPQA's way, in memory: the same rule
    with pytest.raises(BenchError, match=r"^cannot read mem.csv as csv: unexpected end of data$"):
        read_csv_bytes(b'a,b\n1,"never closed\n2,3\n', "mem.csv")
    assert any(fresh_reads.iterdir())
    _reread_from_cache_only(monkeypatch)
    assert read_rows(path) == (want, 2)  # the skip count survives the cache


def test_jsonl_bad_lines_skipped_and_counted(fresh_reads, tmp_path, monkeypatch):
    from oversight_bench.data_files import read_rows

    path = tmp_path / "t.jsonl"
    path.write_text('{"q": "a", "n": 1}\n{"q": "unclosed\n[1, 2]\n\n{"q": "b", "extra": {"k": [1, "x"]}}\n')
    assert read_rows(path) == ([{"q": "a", "n": 1}, {"q": "b", "extra": {"k": [1, "x"]}}], 2)
    good = tmp_path / "good.jsonl"
    good.write_text('{"q": "a", "answer": "B"}\n{"q": "b", "answer": ["1", "2"], "only_here": true}\n')
    want = [{"q": "a", "answer": "B"}, {"q": "b", "answer": ["1", "2"], "only_here": True}]
    assert read_rows(good) == (want, 0)  # mixed types kept, and no key a line did not have
    nested = tmp_path / "nested.jsonl"  # objects whose keys differ between rows, explicit nulls
    nested.write_text('{"q": "a", "o": {"k": 1}, "l": [{"x": "1"}, {"y": null}]}\n{"q": "b", "o": {"j": "s", "k": null}}\n')
    want_nested = [{"q": "a", "o": {"k": 1}, "l": [{"x": "1"}, {}]}, {"q": "b", "o": {"j": "s"}}]
    assert read_rows(nested) == (want_nested, 0)
    _reread_from_cache_only(monkeypatch)
    assert read_rows(good) == (want, 0)
    assert read_rows(nested) == (want_nested, 0)


@pytest.mark.parametrize("bad_value", ["NaN", "-Infinity", "1e999"])
def test_a_jsonl_row_holding_a_non_finite_number_is_malformed(fresh_reads, tmp_path, monkeypatch, bad_value):
    """The strict reader's rule for data rows: NaN, Infinity or 1e999 (Arrow reads the first two, the
    line-by-line fallback json.loads read all three) makes its row malformed, counted like any other;
    in a one-document .json file it makes the file unreadable (one line)."""
    from oversight_bench.data_files import read_rows

    path = tmp_path / "t.jsonl"
    path.write_text(f'{{"q": "a", "n": 1.5}}\n{{"q": "b", "n": {bad_value}}}\n{{"q": "c", "n": 2.5}}\n')
    want = ([{"q": "a", "n": 1.5}, {"q": "c", "n": 2.5}], 1)
    assert read_rows(path) == want
    if bad_value != "1e999":  # Arrow refuses 1e999: that file is read line by line, never cached
        _reread_from_cache_only(monkeypatch)
        assert read_rows(path) == want  # the count survives the cache
    doc = tmp_path / "t.json"
    doc.write_text(f'[{{"q": "a"}}, {{"q": "b", "n": {bad_value}}}]')
    with pytest.raises(BenchError, match=r"^cannot read .*t\.json as json: non-finite number"):
        read_rows(doc)


def test_parquet_rows_as_stored(fresh_reads, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from oversight_bench.data_files import read_rows

    rows = [{"q": "a", "image": {"bytes": b"\x89PNG", "path": "x.png"}, "n": None}, {"q": "b", "image": None, "n": 2}]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "t.parquet")
    assert read_rows(tmp_path / "t.parquet") == (rows, 0)


@pytest.mark.parametrize("name, content, fmt", [
    ("broken.parquet", b"PAR1 not really parquet", "auto"),
    ("binary.jsonl", b"\xff\xfe\x00\x01garbage\n", "auto"),
    ("unclosed.csv", b'a,b\n1,"never closed\n2,3\n', "auto"),
    ("latin1.csv", "a,b\ncaf\xe9,1\n".encode("latin-1"), "csv"),
    ("dup.csv", b"a,a\n1,2\n", "csv"),
])
def test_corrupt_file_is_one_line_error_naming_it(fresh_reads, tmp_path, name, content, fmt):
    from oversight_bench.data_files import read_rows

    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(BenchError) as exc:
        read_rows(path, fmt)
    msg = str(exc.value)
    assert name in msg and "\n" not in msg and "cannot read" in msg


def test_yaml_task_from_csv_counts_malformed_rows_and_fingerprints_the_file(fresh_reads, tmp_path):
    data = tmp_path / "data" / "tiny"
    data.mkdir(parents=True)
    rows = "".join(f"What is {i} plus one?,{i + 1},{i + 2}\n" for i in range(5))
    text = "q,good,bad\n" + rows + "too,many,cells,here\nfew,cells\n"
    (data / "rows.csv").write_text(text)
    tasks_dir = tmp_path / "tasks"
    tasks_dir.mkdir()
    (tasks_dir / "tiny.yaml").write_text(GOOD.replace("tiny/*.jsonl", "tiny/*.csv").replace("[bad1, bad2]", "bad"))
    (task,) = load_yaml_tasks(tasks_dir)
    res = task.load(tmp_path / "data", None, 0)
    assert len(res.questions) == 4 and dict(res.skipped) == {"malformed_row": 2}
    import hashlib

    assert res.files == {"tiny/rows.csv": hashlib.sha256(text.encode()).hexdigest()}


@needs_data
def test_gpqa_is_never_in_the_datasets_cache(fresh_reads):
    assert len(builtin("gpqa").load(DATA, 4, 0).questions) == 4
    assert not fresh_reads.exists() or not any(fresh_reads.iterdir())


def test_unwritable_cache_root_still_reads(tmp_path, monkeypatch):
    from oversight_bench import data_files

    (tmp_path / "a_file").write_text("")
    monkeypatch.setenv("OVERSIGHT_BENCH_CACHE", str(tmp_path / "a_file" / "cache"))  # cannot be a folder
    data_files._read_cached.cache_clear()
    path = tmp_path / "t.jsonl"
    path.write_text('{"q": "a"}\n')
    assert data_files.read_rows(path) == ([{"q": "a"}], 0)
    data_files._read_cached.cache_clear()


def test_jsonl_nested_objects_keep_only_their_keys(fresh_reads, tmp_path):
    from oversight_bench.data_files import read_rows

    path = tmp_path / "sets.jsonl"
    sets = [{"title": "A", "questions": [{"q": "x", "validation": [{"answer": 1}]}, {"q": "y"}]},
            {"questions": [{"q": "z", "speed": [1, 2]}]}]
    path.write_text("".join(json.dumps(s) + "\n" for s in sets))
    assert read_rows(path) == (sets, 0)


def test_files_of_one_format_read_together_keep_their_own_columns(fresh_reads, tmp_path, monkeypatch):
    from oversight_bench.data_files import read_many

    a, b, empty = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "blank.jsonl"
    a.write_text('{"q": "a", "n": 1}\n{"q": "b", "n": 2.5}\n')
    b.write_text('{"x": "s", "y": [1, "z"]}\n')
    empty.write_text("\n\n")
    want = [([{"q": "a", "n": 1.0}, {"q": "b", "n": 2.5}], 0), ([{"x": "s", "y": [1, "z"]}], 0), ([], 0)]
    assert read_many([a, b, empty]) == want
    _reread_from_cache_only(monkeypatch)
    assert read_many([a, b, empty]) == want


def test_cached_files_are_read_without_importing_datasets(tmp_path):
    """A process that finds its files in the Arrow cache memory-maps them and never imports
    `datasets` or pandas (about a second of CPU), nor does reading a CSV held in memory (GPQA's);
    the first one parses the files with `datasets`."""
    (tmp_path / "t.csv").write_text("q,a\nx,1\ny,2\n")
    (tmp_path / "t.jsonl").write_text('{"q": "x", "mixed": [1, "a"]}\n')
    code = ("import sys; from pathlib import Path; from oversight_bench.data_files import read_csv_bytes, read_rows; "
            f"p = Path({str(tmp_path)!r}); "
            "print(read_rows(p / 't.csv'), read_rows(p / 't.jsonl'), read_csv_bytes(b'q\\nz\\n'), "
            "'datasets' in sys.modules, 'pandas' in sys.modules)")
    env = {**os.environ, "OVERSIGHT_BENCH_CACHE": str(tmp_path / "cache"), "PYTHONPATH": str(REPO)}
    runs = [subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
            for _ in range(2)]
    rows = "([{'q': 'x', 'a': '1'}, {'q': 'y', 'a': '2'}], 0) ([{'q': 'x', 'mixed': [1, 'a']}], 0) ([{'q': 'z'}], 0)"
    assert runs == [f"{rows} True True\n", f"{rows} False False\n"]


@pytest.mark.parametrize("name", ["boolq", "mmlu", "quality", "gpqa", "mmmu", "gsm8kqa", "truthfulqa"])
def test_every_builtin_loader_names_the_missing_file_and_where_it_looked(tmp_path, name):
    """An empty data directory (no hub here): each task's error is one line naming what it needed and
    the folders it looked in. (PrOntoQA falls back to its generator, and says so.)"""
    from oversight_bench.tasks import resolve_tasks

    (task,) = resolve_tasks([name])
    with pytest.raises(BenchError) as err:
        task.load(tmp_path, 2, 0)
    line = str(err.value)
    assert "\n" not in line and str(tmp_path) in line and "task_configs" in line, line
    assert any(w in line for w in ("not found in", "no files match", "use the local files")), line
