"""Registry, specs, config validation, the store and the call cache."""

from __future__ import annotations

import importlib.metadata as md
import json
import os

import pytest

from oversight_bench.errors import BenchError
from oversight_bench.models import parse_spec, redact_spec
from oversight_bench.registry import Registry, get_registry, reset_registry

from helpers import FAKE, cli, cli_subprocess, records

EXAMPLE_INSTALLED = any(ep.value == "obench_example_plugin" for ep in md.entry_points(group="oversight_bench"))
needs_example = pytest.mark.skipif(not EXAMPLE_INSTALLED and not os.environ.get("CI"),
                                   reason="pip install -e tests/plugin_example (CI does)")


def test_import_is_light():
    code = ("import sys, oversight_bench, oversight_bench.cli, oversight_bench.registry as r; r.get_registry();"
            "print(sorted(m for m in ('torch','transformers','vllm','llama_cpp','lm_eval') if m in sys.modules))")
    import subprocess, sys
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_spec_parsing_and_redaction():
    s = parse_spec("openai:gpt-4o-mini,base_url=http://x:1/v1,api_key=sk-SECRET,temperature=0.5,logprobs=true")
    assert (s.backend, s.model) == ("openai", "gpt-4o-mini")
    assert s.options["temperature"] == 0.5 and s.options["logprobs"] is True
    assert "sk-SECRET" not in redact_spec(s)
    assert parse_spec("qwen2.5-coder-0.5b").backend == "llamacpp"
    for bad in ("", "gpt4", "openai:m,noequals", "openai:m,=v"):
        with pytest.raises(BenchError):
            parse_spec(bad)


def test_unknown_names_suggest():
    reg = get_registry()
    with pytest.raises(BenchError, match=r"did you mean 'scripted'\?.*Known models: .*scripted"):
        reg.get("models", "scriptd")


def test_broken_plugin_is_reported_not_fatal():
    reg = Registry()

    def boom():
        raise ImportError("no module named missing_dependency")

    reg.add_module_plugin("broken", "broken-pkg", "9.9", loader=boom)
    reg.load_entry_points()
    assert "broken" in [p.name for p in reg.broken()]
    assert "scripted" in reg.names("models")


def test_env_var_limits_plugins():
    """OVERSIGHT_BENCH_LOAD_PLUGINS limits third-party plugins; the built-ins always load."""
    res = cli_subprocess("list", "plugins", env={"OVERSIGHT_BENCH_LOAD_PLUGINS": "obench-example-plugin"})
    assert res.returncode == 0, res.stderr
    assert "oversight-bench" in res.stdout  # the built-ins
    assert "obench-capitals" not in res.stdout
    res = cli_subprocess("list", "models", env={"OVERSIGHT_BENCH_LOAD_PLUGINS": ""})
    assert res.returncode == 0, res.stderr
    assert {"scripted", "llamacpp", "openai"} <= {line.split()[0] for line in res.stdout.splitlines()}
    res = cli_subprocess("list", "protocols", env={"OVERSIGHT_BENCH_LOAD_PLUGINS": ""})
    assert "debate" in res.stdout and "qa_majority" not in res.stdout


@needs_example
def test_third_party_plugin_listed_with_package_and_version():
    res = cli("list", "protocols")
    assert res.exit_code == 0
    line = [l for l in res.output.splitlines() if l.startswith("qa_majority")]
    assert line and "obench-example-plugin" in line[0] and "0.2.0" in line[0]
    res = cli("list", "plugins")
    assert "example" in res.output and "register_protocols" in res.output


@needs_example
def test_run_cache_rerun_makes_zero_calls(tmp_path):
    out = tmp_path / "run"
    args = ("run", "--judge", FAKE, "--agent", FAKE, "--tasks", "arith", "--protocols", "qa_majority",
            "--limit", "6", "--output", str(out), "--quiet")
    res = cli(*args)
    assert res.exit_code == 0, res.output
    assert "model calls: 12" in res.output  # 6 questions x both answer orders (the paper's default)
    first = records(out)
    res = cli(*args)
    assert res.exit_code == 0
    assert "model calls: 0" in res.output and "12 already stored" in res.output
    assert records(out) == first
    # a fresh directory still replays nothing from the old one, but the same requests within
    # one run are cached: deleting the decisions only makes every call a cache hit
    from oversight_bench.rundir.store import Store
    st = Store.open(out, write=True)
    st.conn.execute("DELETE FROM records")
    st.close()
    res = cli(*args)
    assert "model calls: 0" in res.output and "cache hits: 12" in res.output
    assert records(out) == first


@needs_example
def test_export_jsonl_has_explicit_fields(tmp_path):
    out = tmp_path / "run"
    cli("run", "--judge", FAKE, "--agent", FAKE, "--tasks", "arith", "--protocols", "qa_majority",
        "--limit", "3", "--output", str(out), "--quiet")
    res = cli("export", str(out))
    lines = [json.loads(l) for l in res.output.splitlines()]
    kinds = {l["kind"] for l in lines}
    assert kinds == {"call", "decision"}
    for l in lines:
        for f in ("judge", "agent", "protocol", "task", "question_id", "answer_order"):
            assert f in l
    call = next(l for l in lines if l["kind"] == "call")
    assert call["request"]["n"] == 5 and "latency_s" in call and "prompt_tokens" in call


@needs_example
def test_config_yaml_and_errors(tmp_path):
    cfg = tmp_path / "run.yaml"
    cfg.write_text(f"judge: {FAKE}\nagent: {FAKE}\ntasks: [arith]\nprotocols: qa_majority\nlimit: 2\n"
                   f"output: {tmp_path / 'r'}\noptions:\n  rounds: 1\n")
    assert cli("run", "--config", str(cfg), "--quiet").exit_code == 0
    cfg2 = tmp_path / "bad.yaml"
    cfg2.write_text("judge: [unclosed\n")
    res = cli("run", "--config", str(cfg2))
    assert res.exit_code == 2 and "bad.yaml" in res.output and "line" in res.output
    cfg2.write_text("options:\n  rounds: zero\n")
    res = cli("run", "--config", str(cfg2))
    assert res.exit_code == 2 and "options.rounds" in res.output
    cfg2.write_text("tasks: [arith]\nbogus_field: 1\n")
    res = cli("run", "--config", str(cfg2))
    assert res.exit_code == 2 and "bogus_field" in res.output


@needs_example
def test_resume_with_other_settings_refused(tmp_path):
    out = tmp_path / "run"
    base = ("run", "--judge", FAKE, "--agent", FAKE, "--tasks", "arith", "--protocols", "qa_majority",
            "--limit", "2", "--output", str(out), "--quiet")
    assert cli(*base).exit_code == 0
    res = cli(*base, "--seed", "5")
    assert res.exit_code == 2 and "different seed" in res.output


def test_output_dir_locked(tmp_path):
    from oversight_bench.rundir.store import Store

    a = Store.open(tmp_path / "d", write=True)
    try:
        with pytest.raises(BenchError, match="in use by another"):
            Store.open(tmp_path / "d", write=True)
    finally:
        a.close()
    Store.open(tmp_path / "d", write=True).close()


def test_store_job_is_atomic_and_unique(tmp_path):
    from oversight_bench.rundir.store import Store

    st = Store.open(tmp_path, write=True)
    fields = dict(judge="j", agent="a", protocol="debate", task="t", question_id="q1", assignment=None,
                  answer_order="correct_first")
    turn = {"round": 1, "role": "debater", "speaker": "Debater A", "content": "x"}
    st.write_job("k1", fields, [turn], {"answer": 1})
    st.write_job("k1", fields, [turn], {"answer": 1})
    assert st.count("turn") == 1 and st.count("decision") == 1
    assert st.done_jobs("j") == {"k1"}
    # a record its own reader would call damaged is refused before anything is written
    with pytest.raises(BenchError, match="job k2: its turn record cannot be stored: it has no field role"):
        st.write_job("k2", fields, [{"round": 1, "x": 1}], {"answer": 1})
    assert st.count("turn") == 1 and st.done_jobs("j") == {"k1"}
    st.close()


def test_canonical_json_is_the_stdlib_form():
    """Cache keys hash the canonical JSON: orjson must write exactly what json.dumps(sort_keys=True,
    ensure_ascii=False, compact) wrote, or every stored call would miss."""
    from oversight_bench.rundir.store import canonical_json, request_key

    request = {"kind": "generate", "model": "openai:m", "temperature": 0.7, "n": 2, "seed": 2**31 - 1, "stop": None,
               "top": 1.0, "tiny": 1e-7, "flag": True,
               "messages": [{"role": "user", "content": "Zoë's “quote” — 日本語 🙂\n\ttab \u0001 \\ \"q\" </script>"},
                            {"role": "user", "content": [{"type": "text", "text": "x"},
                                                         {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]}]}
    class Key(str):
        pass

    odd = {**request, Key("sub"): 0.5, "tup": (1, (2.5, "x")), "big": 10**30, "inf": float("inf")}
    for req in (request, {**request, "tiny": 0.5}, odd):
        expected = json.dumps(req, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        assert canonical_json(req) == expected
        assert request_key(req) == request_key(expected)
