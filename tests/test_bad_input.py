"""Bad input of every kind ends in one line that names the problem and what was expected.

Each case runs the CLI and must exit with status 2, print no traceback, and end its stderr with one
`error:` line (click's own usage errors end with its `Error:` line) containing the words that name
the problem and the expectation. Cases that point at a run directory holding finished records must
leave those records exactly as they were, including the ones that fail in the middle of a run (a key
the server starts rejecting, a model that starts returning nothing).

The cases run in-process (click's CliRunner: the same `cli` group, exit status and stderr), one after
another; the few whose meaning is the process itself (`Case.process`: the environment or PYTHONPATH
read at interpreter start-up, the real exit status and stderr of a fresh `python -m
oversight_bench.cli`) run as subprocesses through helpers.cli_subprocess.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import textwrap
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from helpers import REPO, cli, cli_subprocess, records
from test_core import needs_example

sys.path.insert(0, str(REPO / "benchmarks"))
from fake_openai_server import ServerConfig, start_server  # noqa: E402

# the first case also pays for the module fixture (every case, a few in fresh processes): the limit
# catches a hang, not a slow machine
pytestmark = [needs_example, pytest.mark.timeout(600)]

S = "scripted:default"
# one answer order per question (the paper's default is both): the cases count one job per question
BASE = ["--judge", S, "--agent", S, "--tasks", "arith", "--protocols", "qa_without_article", "--seed", "0", "--quiet",
        "--answer-order", "random"]


@dataclass
class Case:
    id: str
    args: list[str]
    expect: list[str]  # substrings of the last stderr line (case-insensitive)
    env: dict[str, str] = field(default_factory=dict)
    #: run against a copy of a finished run and check nothing is lost (False: a fresh directory,
    #: where the model settings differ and the resume check would speak first)
    keeps_records: bool = True
    #: damage a copy of the finished run's store this way first (see `_damage`); the command points
    #: at it as {out}, and the damaged file must be left byte for byte as it was
    damage: str | None = None
    #: files removed from the copy of the finished run first (e.g. config.json)
    remove: tuple[str, ...] = ()
    #: run as a real subprocess (the reason), not in-process: the case depends on the process
    #: itself (an environment variable or PYTHONPATH read at start-up, the real exit status and stderr)
    process: str = ""


def _yaml_task(name: str, body: str) -> str:
    return textwrap.dedent(body).replace("NAME", name)


GOOD_TASK = """\
name: NAME
task_type: closed
loader: table
source:
  local:
    files: [rows.jsonl]
fields:
  question: q
  correct: right
  incorrect: wrong
binary:
  mode: pair
sample_size: 8
"""

def _damaged(cid: str, how: str, args: list[str]) -> Case:
    return Case(cid, args, ["results.sqlite", "damaged", "salvage"], keeps_records=False, damage=how)


RUN_OUT = [*BASE, "--limit", "4", "--output", "{out}"]

CASES = [
    # run.yaml
    Case("config_broken_yaml", ["--config", "{tmp}/broken.yaml"], ["broken.yaml", "invalid yaml", "line"],
         process="the real exit status and stderr of a fresh interpreter"),
    Case("config_not_a_mapping", ["--config", "{tmp}/list.yaml"], ["list.yaml", "expected a mapping"]),
    Case("config_unknown_field", ["--config", "{tmp}/extra.yaml"], ["bogus_field"]),
    Case("config_missing_file", ["--config", "{tmp}/nope.yaml"], ["cannot read", "nope.yaml", "no such file"]),
    Case("config_bad_option_type", ["--config", "{tmp}/rounds.yaml"], ["options.rounds", "zero"]),
    # names
    Case("unknown_task", [*BASE, "--tasks", "arithh"], ["unknown task", "arithh", "did you mean 'arith'"]),
    Case("unknown_protocol", [*BASE, "--protocols", "debat"], ["unknown protocol", "did you mean 'debate'", "known protocols"]),
    Case("unknown_backend", [*BASE, "--judge", "openaj:gpt-4o"], ["unknown model", "openaj", "did you mean 'openai'"],
         keeps_records=False),
    Case("spec_without_backend", [*BASE, "--judge", "gpt4"], ["has no backend", "backend:model"]),
    Case("spec_option_not_kv", [*BASE, "--judge", "scripted:default,delay"], ["'delay'", "not key=value"]),
    Case("spec_empty_key", [*BASE, "--agent", "scripted:default,=3"], ["empty key"]),
    Case("scripted_unknown_option", [*BASE, "--judge", "scripted:default,bogus=1"],
         ["unknown option", "bogus", "expected"], keeps_records=False),
    Case("scripted_unknown_script", [*BASE, "--judge", "scripted:nosuch"], ["nosuch", "not registered", "known scripts"],
         keeps_records=False),
    Case("openai_unknown_option", [*BASE, "--judge", "openai:m,base_url=http://127.0.0.1:9/v1,temprature=0.5"],
         ["unknown option", "temprature", "expected"], keeps_records=False),
    Case("openai_base_url_not_http", [*BASE, "--judge", "openai:m,base_url=localhost:8000/v1"],
         ["base_url", "not an http(s) url", "expected an http(s) url such as http://"], keeps_records=False),
    Case("openai_key_with_control_char", [*BASE, "--judge", "openai:m,base_url=http://127.0.0.1:9/v1,api_key=sk-abc\tdef"],
         ["api key", "control or non-ascii", "expected the key alone"], keeps_records=False),
    Case("no_tasks", [*BASE, "--tasks", ","], ["no tasks selected", "group"]),
    # protocol options
    Case("rounds_zero", [*BASE, "--rounds", "0"], ["rounds", "greater than or equal to 1"]),
    Case("rounds_too_many", [*BASE, "--rounds", "99"], ["rounds", "less than or equal to 10"]),
    Case("unknown_option", [*BASE, "-o", "bogus_opt=1"], ["bogus_opt"]),
    Case("option_not_kv", [*BASE, "-o", "rounds"], ["rounds", "not key=value"]),
    Case("option_wrong_type", [*BASE, "-o", "word_limit=lots"], ["word_limit", "lots"]),
    Case("limit_zero", [*BASE, "--limit", "0"], ["limit", "greater than or equal to 1"]),
    # probe round 8, case 021: a 30-digit count was a traceback (islice's bound) after the run folder was made
    Case("limit_huge", [*BASE, "--limit", "1" + "0" * 30], ["limit", "less than or equal to 1000000000"]),
    Case("seed_huge", [*BASE, "--seed", "9" * 30], ["seed", "less than 9223372036854775808"]),
    Case("concurrency_zero", [*BASE, "--concurrency", "0"], ["concurrency", "greater than or equal to 1"]),
    Case("bad_choice_flag", [*BASE, "--judge-mode", "guess"], ["--judge-mode", "guess", "predict", "cot"]),
    Case("debias_without_logprobs", [*BASE, "--judge", "scripted:default,debias=true"],
         ["answer probabilities", "debias"], keeps_records=False),
    Case("debias_with_cot", [*BASE, "--judge", "scripted:default,debias=true,logprobs=true", "--judge-mode", "cot"],
         ["debias", "predict"], keeps_records=False),
    # data and task configs
    Case("missing_data_dir", [*BASE, "--data-dir", "{tmp}/no-such-data"], ["data directory", "no-such-data", "does not exist"]),
    Case("missing_data_dir_env", BASE, ["OVERSIGHT_BENCH_DATA", "does not exist"],
         env={"OVERSIGHT_BENCH_DATA": "/nonexistent/obench-data"}, process="environment"),
    Case("data_files_absent", [*BASE, "--tasks", "boolq", "--data-dir", "{tmp}/emptydata"],
         ["boolq", "boolq_validation.json", "--data-dir"], env={"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"},
         keeps_records=False, process="HF_*_OFFLINE, read when the hub libraries are imported"),
    Case("include_path_missing", [*BASE, "--include-path", "{tmp}/no-tasks-here", "--tasks", "x"],
         ["--include-path", "no such file or directory"]),
    Case("include_path_no_yaml", [*BASE, "--include-path", "{tmp}/emptydata", "--tasks", "x"], ["no *.yaml"]),
    Case("task_yaml_broken", [*BASE, "--include-path", "{tmp}/tasks_broken", "--tasks", "t_broken"],
         ["t_broken.yaml", "invalid yaml", "line"]),
    Case("task_yaml_missing_field", [*BASE, "--include-path", "{tmp}/tasks_nofields", "--tasks", "t_nofields"],
         ["t_nofields.yaml", "fields", "required"]),
    Case("task_yaml_bad_type", [*BASE, "--include-path", "{tmp}/tasks_badtype", "--tasks", "t_badtype"],
         ["task_type", "extractive", "closed"]),
    Case("task_files_absent", [*BASE, "--include-path", "{tmp}/tasks_nofiles", "--tasks", "t_nofiles",
                               "--data-dir", "{tmp}/emptydata"], ["t_nofiles", "rows.jsonl", "not found"],
         keeps_records=False),
    Case("dataset_rows_all_malformed", [*BASE, "--include-path", "{tmp}/tasks_bad_rows", "--tasks", "t_bad_rows",
                                        "--data-dir", "{tmp}/baddata"], ["t_bad_rows", "no questions"],
         keeps_records=False),
    # plugins
    Case("broken_plugin_protocol", [*BASE, "--protocols", "broken_proto"], ["unknown protocol", "broken_proto"],
         env={"PYTHONPATH": "{tmp}/broken_plugin"}, process="PYTHONPATH: plugins found at start-up"),
    # output directory
    Case("output_under_a_file", [*BASE, "--output", "{tmp}/a_file/run"], ["cannot write to output directory", "writable"],
         keeps_records=False),
    Case("output_unwritable", [*BASE, "--output", "/proc/obench-run"], ["cannot write to output directory", "writable"],
         keeps_records=False),
    Case("other_settings_same_dir", [*BASE, "--seed", "5"], ["different seed", "same settings"]),
    # commands other than run
    Case("export_not_a_run", ["export", "{tmp}/emptydata"], ["not a run directory", "results.sqlite"],
         keeps_records=False),
    Case("judge_from_not_a_run", ["judge", "--from", "{tmp}/emptydata", "--judge", S, "--output", "{tmp}/rj"],
         ["not a run directory"], keeps_records=False),
    # model options every backend shares (issue 13)
    # every replica of URL1|URL2 checked before the run: a bad port in the second crashed the end of the run
    Case("spec_second_replica_bad_port", [*BASE, "--judge", "openai:m,base_url=http://127.0.0.1:9/v1|http://127.0.0.1:99999/v1"],
         ["base_url", "not a valid url", "99999", "server 2 of 2", "expected an http(s) url such as http://"]),
    Case("spec_base_url_without_host", [*BASE, "--judge", "openai:m,base_url=http:///v1"],
         ["base_url", "names no host", "expected an http(s) url such as http://"]),
    Case("spec_base_url_empty_replicas", [*BASE, "--judge", "openai:m,base_url=|"],
         ["base_url", "no server", "expected an http(s) url such as http://"]),
    Case("spec_base_url_unclosed_ipv6", [*BASE, "--judge", "openai:m,base_url=http://[::1"],
         ["base_url", "not a valid url", "expected e.g. http://"]),
    Case("spec_timeout_not_a_number", [*BASE, "--judge", "openai:m,base_url=http://127.0.0.1:9/v1,timeout=abc"],
         ["timeout", "abc", "number of seconds"]),
    Case("spec_max_retries_negative", [*BASE, "--agent", "openai:m,base_url=http://127.0.0.1:9/v1,max_retries=-1"],
         ["max_retries", "-1", "from 0 to 100"]),
    Case("spec_max_retries_unbounded", [*BASE, "--agent", "openai:m,base_url=http://127.0.0.1:9/v1,max_retries=1000000000"],
         ["max_retries", "1000000000", "from 0 to 100"]),
    Case("spec_concurrency_zero", [*BASE, "--judge", "scripted:default,concurrency=0"], ["concurrency", ">= 1"]),
    # task YAML files outside the data directory
    Case("task_files_absolute", [*BASE, "--include-path", "{tmp}/tasks_abs", "--tasks", "t_abs"],
         ["t_abs.yaml", "/etc/passwd", "absolute path", "relative to the data"]),
    Case("task_files_dotdot", [*BASE, "--include-path", "{tmp}/tasks_dotdot", "--tasks", "t_dotdot"],
         ["t_dotdot.yaml", "'..'", "relative to the data"]),
    # a damaged results.sqlite, from every command that reads or writes one
    _damaged("store_zero_bytes_run", "zero", ["run", *RUN_OUT]),
    _damaged("store_zero_bytes_judge", "zero", ["judge", "--from", "{out}", "--judge", S, "--output", "{tmp}/rj_zero"]),
    _damaged("store_zero_bytes_report", "zero", ["report", "{out}", "--output", "{tmp}/rep_zero", "--no-figures"]),
    _damaged("store_zero_bytes_export", "zero", ["export", "{out}"]),
    _damaged("store_zero_bytes_leaderboard", "zero", ["leaderboard", "{out}", "--output", "{tmp}/lb_zero"]),
    _damaged("store_zero_bytes_elo", "zero", ["elo", "{out}", "--output", "{tmp}/elo_zero"]),
    _damaged("store_truncated_run", "truncated", ["run", *RUN_OUT]),
    _damaged("store_truncated_judge", "truncated", ["judge", "--from", "{out}", "--judge", S, "--output", "{tmp}/rj_tr"]),
    _damaged("store_truncated_leaderboard", "truncated", ["leaderboard", "{out}", "--output", "{tmp}/lb_tr"]),
    _damaged("store_corrupt_page_run", "page", ["run", *RUN_OUT]),
    _damaged("store_corrupt_page_report", "page", ["report", "{out}", "--output", "{tmp}/rep_page", "--no-figures"]),
    _damaged("store_corrupt_page_export", "page", ["export", "{out}"]),
    _damaged("store_corrupt_header_elo", "header", ["elo", "{out}", "--output", "{tmp}/elo_header"]),
    _damaged("store_corrupt_header_export", "header", ["export", "{out}"]),
    _damaged("store_corrupt_header_run", "header", ["run", *RUN_OUT]),
    # validated before the output folder is touched (issue 13.5): the folder is left exactly as it was
    Case("output_empty_name", [*BASE, "--output", ""], ["--output", "empty", "expected"], keeps_records=False),
    Case("output_is_a_file", [*BASE, "--output", "{tmp}/a_file"], ["not a folder", "expected"], keeps_records=False),
    Case("output_folder_not_a_run", [*BASE, "--output", "{tmp}/not_a_run"], ["holds other files", "notes.txt", "no run"],
         keeps_records=False),
    Case("protocols_only_commas", [*BASE, "--protocols", ","], ["no protocols selected", "expected"]),
    # issue 37 (probe 817, 822): a name given twice was stored twice, and the same run resumed with it once refused
    Case("protocols_twice", [*BASE, "--protocols", "debate,,debate"], ["protocol 'debate' is given twice", "once"]),
    Case("tasks_twice", [*BASE, "--tasks", "arith,arith"], ["task 'arith' is given twice", "once"]),
    Case("judge_concurrency_zero", ["judge", "--from", "{tmp}/base_run", "--judge", S, "--output", "{out}",
                                    "--concurrency", "0"], ["--concurrency 0", ">= 1"], keeps_records=False),
    Case("scripted_option_ill_typed", [*BASE, "--judge", "scripted:default,delay=soon"],
         ["option delay='soon'", "expected seconds >= 0"]),
    Case("llamacpp_unknown_option", [*BASE, "--judge", "llamacpp:qwen2.5-coder-0.5b,n_ctxx=2048"],
         ["unknown option 'n_ctxx'", "expected one of", "n_ctx"]),
    Case("llamacpp_option_ill_typed", [*BASE, "--agent", "llamacpp:qwen2.5-coder-0.5b,n_ctx=big"],
         ["option n_ctx='big'", "expected a context length"]),
    Case("llamacpp_option_out_of_range", [*BASE, "--judge", "llamacpp:qwen2.5-coder-0.5b,n_threads=0"],
         ["option n_threads=0", ">= 1"]),
    Case("openai_option_ill_typed", [*BASE, "--judge", "openai:m,base_url=http://127.0.0.1:9/v1,top_logprobs=many"],
         ["option top_logprobs='many'", "whole number"]),
    Case("openai_option_not_bool", [*BASE, "--agent", "openai:m,base_url=http://127.0.0.1:9/v1,logprobs=maybe"],
         ["option logprobs='maybe'", "true or false"]),
    # a run's identity lives in the store (issue 13.4): config.json gone, a different seed is still refused
    Case("other_seed_without_config", [*BASE, "--seed", "5"], ["different seed", "recorded in its store", "same settings"],
         remove=("config.json",)),
    Case("other_judge_without_config", [*BASE, "--judge", "scripted:default,delay=0"], ["different judge", "recorded in its store"],
         remove=("config.json",)),
    Case("salvage_into_a_run", ["salvage", "{tmp}/base_run", "--output", "{tmp}/base_run"], ["inside run directory", "never write"],
         keeps_records=False),
    # untrusted input files read bounded and as UTF-8 (round-4 probes 190, 210, 241)
    Case("serve_judges_file_not_utf8", ["serve", "--from", "{tmp}/base_run", "--output", "{tmp}/st1", "--judges-file",
                                        "{tmp}/binary.bin"], ["--judges-file", "not utf-8", "byte 0x", "one judge name a line"],
         keeps_records=False),
    Case("serve_judges_file_a_device", ["serve", "--from", "{tmp}/base_run", "--output", "{tmp}/st2", "--judges-file",
                                        "/dev/zero"], ["--judges-file", "/dev/zero", "a device", "expected a regular file"],
         keeps_records=False, process="reads /dev/zero: a regression would fill this process's memory (old code: killed)"),
    Case("build_task_output_not_utf8", ["build-task", "gsm8kqa", "--model", "openai:m,base_url=http://127.0.0.1:9/v1",
                                        "--limit", "1", "--output", "{tmp}/binary.bin"],
         ["--output", "not utf-8", "the jsonl an earlier build-task wrote"], keeps_records=False),
    # round-7 probe: /dev/zero swallowed every row with exit 0 (a FIFO there blocked the open for ever)
    Case("build_task_output_a_device", ["build-task", "gsm8kqa", "--model", "openai:m,base_url=http://127.0.0.1:9/v1",
                                        "--limit", "1", "--output", "/dev/zero"],
         ["--output '/dev/zero' is not a regular file", "expected the jsonl"], keeps_records=False),
    # round-5 probes: a value given twice is refused, not silently the last one; no empty judge list; no NaN
    Case("config_key_given_twice", ["--config", "{tmp}/twice.yaml"], ["twice.yaml", "line 2", "'seed' is given twice"],
         keeps_records=False),
    Case("spec_option_given_twice", [*BASE, "--judge", "openai:m,base_url=http://127.0.0.1:9/v1,timeout=2,timeout=3"],
         ["option 'timeout' is given twice", "expected each option once"]),
    Case("spec_base_url_with_crlf", [*BASE, "--judge", "openai:m,base_url=http://127.0.0.1:9/v1\r\nX-Evil: 1"],
         ["base_url", "space or control character", "expected an http(s) url such as http://"]),
    Case("serve_judges_names_none", ["serve", "--from", "{tmp}/base_run", "--output", "{tmp}/st3", "--judges", ","],
         ["--judges", "names no judge", "expected names separated by commas"], keeps_records=False),
    Case("build_task_temperature_nan", ["build-task", "gsm8kqa", "--model", "openai:m,base_url=http://127.0.0.1:9/v1",
                                        "--limit", "1", "--temperature", "nan", "--output", "{tmp}/bt.jsonl"],
         ["--temperature", "expected a number from 0 to 2"], keeps_records=False),
    # round-6 probes: a protocol option given twice, or as its flag and as -o, is refused
    Case("option_given_twice", [*BASE, "-o", "word_limit=100", "-o", "word_limit=200"],
         ["--option 'word_limit' is given twice", "expected each option once"]),
    Case("option_as_flag_and_o", [*BASE, "--rounds", "2", "-o", "rounds=3"],
         ["option rounds is given both as --rounds and as -o rounds=", "expected it once"]),
    # importers name the file and the row they could not read
    Case("nyu_metadata_garbage", ["import", "nyu-debate", "{tmp}/nyu_badmeta", "--output", "{tmp}/imp_nyu1"],
         ["debates-metadata.jsonl", "line 2", "expected a json object"], keeps_records=False),
    Case("nyu_room_garbage", ["import", "nyu-debate", "{tmp}/nyu_badroom", "--output", "{tmp}/imp_nyu2"],
         ["debates_official.tar.xz", "room r1", "no field 'setup'"], keeps_records=False),
    Case("nyu_archive_garbage", ["import", "nyu-debate", "{tmp}/nyu_badtar", "--output", "{tmp}/imp_nyu3"],
         ["debates_official.tar.xz", "cannot read it", "tar.xz"], keeps_records=False),
    Case("llm_debate_row_garbage", ["import", "llm-debate", "{tmp}/khan_bad.csv", "--output", "{tmp}/imp_khan"],
         ["khan_bad.csv", "row 2", "id '7'"], keeps_records=False),
]

COMMANDS = ("export", "judge", "report", "leaderboard", "elo", "import", "salvage", "run", "serve", "build-task")


def _damage(db: Path, how: str) -> None:
    """zero: 0 bytes (beside config.json); truncated: the first half; page: page 2 overwritten with
    junk; header: the SQLite header overwritten."""
    data = db.read_bytes()
    assert len(data) >= 4 * 4096, len(data)
    if how == "zero":
        db.write_bytes(b"")
    elif how == "truncated":
        db.write_bytes(data[: len(data) // 2])
    elif how == "page":
        db.write_bytes(data[:4096] + bytes(range(256)) * 16 + data[8192:])
    elif how == "header":
        db.write_bytes(b"not a database!\0" + data[16:])
    else:
        raise ValueError(how)


def _prepare(tmp: Path) -> None:
    (tmp / "broken.yaml").write_text("judge: [unclosed\ntasks: arith\n")
    (tmp / "list.yaml").write_text("- judge\n- agent\n")
    (tmp / "extra.yaml").write_text(f"judge: {S}\nbogus_field: 1\n")
    (tmp / "rounds.yaml").write_text(f"judge: {S}\nagent: {S}\ntasks: [arith]\noptions:\n  rounds: zero\n")
    (tmp / "emptydata").mkdir()
    (tmp / "twice.yaml").write_text(f"seed: 1\nseed: 2\njudge: {S}\nagent: {S}\ntasks: [arith]\n")
    (tmp / "binary.bin").write_bytes(b"alice\n" + bytes(range(128, 256)) * 20)
    (tmp / "a_file").write_text("not a folder")
    (tmp / "not_a_run").mkdir()
    (tmp / "not_a_run" / "notes.txt").write_text("someone's notes")
    for name, body in {
        "t_broken": "name: t_broken\ntask_type: closed\nfields: {question: q\n",
        "t_nofields": "name: t_nofields\ntask_type: closed\nsource: {local: {files: [rows.jsonl]}}\nbinary: {mode: pair}\n",
        "t_badtype": GOOD_TASK.replace("closed", "multiple_choice"),
        "t_nofiles": GOOD_TASK,
        "t_bad_rows": GOOD_TASK,
    }.items():
        d = tmp / f"tasks_{name.removeprefix('t_')}"
        d.mkdir()
        (d / f"{name}.yaml").write_text(_yaml_task(name, body))
    for name, files in {"t_abs": "[/etc/passwd]", "t_dotdot": "['../outside/rows.jsonl']"}.items():
        d = tmp / f"tasks_{name.removeprefix('t_')}"
        d.mkdir()
        (d / f"{name}.yaml").write_text(_yaml_task(name, GOOD_TASK).replace("[rows.jsonl]", files))
    _prepare_imports(tmp)
    (tmp / "baddata").mkdir()
    (tmp / "baddata" / "rows.jsonl").write_text('{"q": "unclosed\n[1, 2]\n{"q": "no answers"}\n{"right": "x"}\n')
    # an installed plugin whose module raises on import (a dist-info found on PYTHONPATH)
    bp = tmp / "broken_plugin"
    (bp / "obench_broken_plugin-0.1.dist-info").mkdir(parents=True)
    (bp / "obench_broken_plugin-0.1.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: obench-broken-plugin\nVersion: 0.1\n")
    (bp / "obench_broken_plugin-0.1.dist-info" / "entry_points.txt").write_text(
        "[oversight_bench]\nbroken = obench_broken_plugin\n")
    (bp / "obench_broken_plugin.py").write_text("raise ImportError('obench_broken_plugin needs missing_dependency')\n")


def _prepare_imports(tmp: Path) -> None:
    """NYU folders and a Khan CSV, each with garbage in one place."""
    import csv
    import io
    import json
    import tarfile

    def nyu(folder: str, meta: str, rooms: dict[str, object] | None, raw_tar: bytes | None = None) -> None:
        d = tmp / folder
        d.mkdir()
        (d / "debates-metadata.jsonl").write_text(meta)
        if raw_tar is not None:
            (d / "debates_official.tar.xz").write_bytes(raw_tar)
            return
        with tarfile.open(d / "debates_official.tar.xz", "w:xz") as tar:
            for name, room in (rooms or {}).items():
                blob = json.dumps(room).encode()
                info = tarfile.TarInfo(f"debates/official/{name}.json")
                info.size = len(blob)
                tar.addfile(info, io.BytesIO(blob))

    good_meta = json.dumps({"name": "r1", "setting": {"isDebate": True, "isHuman": False}}) + "\n"
    nyu("nyu_badmeta", good_meta + "{not json\n", {})
    nyu("nyu_badroom", good_meta, {"r1": {"rounds": []}})
    nyu("nyu_badtar", good_meta, None, raw_tar=b"\xfd7zXZ\0 this is not really xz")
    f = io.StringIO()
    w = csv.writer(f)
    w.writerow(["id", "question", "story", "correct answer", "negative answer", "transcript", "answer"])
    good = {"rounds": [{"correct": "Argument: it is A", "incorrect": "Argument: it is B"}], "names": {}}
    w.writerow(["6", "Q?", "A story.", "A", "B", json.dumps(good), ""])
    w.writerow(["7", "Q2?", "A story.", "A", "B", json.dumps({"rounds": ["not a round"], "names": {}}), ""])
    (tmp / "khan_bad.csv").write_text(f.getvalue())


def _tree(path: Path) -> dict[str, bytes] | None:
    """Every file under `path` with its bytes (None: nothing there): a failed start must leave it so."""
    if not path.exists():
        return None
    if path.is_file():
        return {"": path.read_bytes()}
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


def _sub(x: str, tmp: Path) -> str:
    return x.replace("{tmp}", str(tmp))


@dataclass
class Outcome:
    """What a case's command ended with, in-process or in a subprocess alike."""
    returncode: int | None
    stdout: str
    stderr: str


def _run_case(case: Case, cmd: list[str], env: dict[str, str]) -> Outcome:
    if case.process:
        res = cli_subprocess(*cmd, env=env)
        return Outcome(res.returncode, res.stdout, res.stderr)
    cwd = os.getcwd()
    os.chdir(REPO)  # as the subprocesses run
    try:
        res = cli(*cmd, env=env or None, catch_exceptions=True)
    finally:
        os.chdir(cwd)
    stderr = res.stderr
    if res.exception is not None and not isinstance(res.exception, SystemExit):  # an escaped error: show it as a crash would
        stderr += "".join(traceback.format_exception(*res.exc_info))
    return Outcome(res.exit_code, res.stdout, stderr)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    """Run every case once, in parallel, each against its own copy of a finished run."""
    tmp = tmp_path_factory.mktemp("bad")
    _prepare(tmp)
    base = tmp / "base_run"
    res = cli("run", *BASE, "--limit", "4", "--output", str(base))
    assert res.exit_code == 0, res.output
    expected = records(base)
    assert len(expected) == 4
    assert not (base / "results.sqlite-wal").exists()  # all in the main file: damage hits real pages

    def one(case: Case):
        out = tmp / f"out_{case.id}"
        args = [_sub(a, tmp).replace("{out}", str(out)) for a in case.args]
        env = {k: _sub(v, tmp) for k, v in case.env.items()}
        if case.keeps_records or case.damage:
            shutil.copytree(base, out, ignore=shutil.ignore_patterns(".lock"))
        for name in case.remove:
            (out / name).unlink()
        before = None
        if case.damage:
            _damage(out / "results.sqlite", case.damage)
            before = (out / "results.sqlite").read_bytes()
        if args and args[0] in COMMANDS:
            cmd = args
        elif "--output" in args:
            cmd = ["run", *args]
        else:
            cmd = ["run", *args, "--output", str(out)]
        watched = [out, *(Path(cmd[i + 1]) for i, a in enumerate(cmd[:-1]) if a == "--output" and cmd[i + 1])]
        trees = [_tree(p) for p in watched]
        res = _run_case(case, cmd, env)
        assert [_tree(p) for p in watched] == trees, f"{case.id}: a failed start changed a folder"
        return case.id, res, out, before

    # the few subprocesses run in threads meanwhile (the in-process cases need the main thread: cwd, sys.stdout)
    with ThreadPoolExecutor(max_workers=4) as pool:
        started = pool.map(one, [c for c in CASES if c.process])
        done = [one(c) for c in CASES if not c.process] + list(started)
    results = {cid: (r, out, before) for cid, r, out, before in done}
    return results, expected, tmp


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_bad_input_one_line_exit_2(outcomes, case):
    results, expected, _ = outcomes
    res, out, damaged = results[case.id]
    assert res.returncode == 2, f"exit {res.returncode}\nstdout: {res.stdout[-800:]}\nstderr: {res.stderr[-1500:]}"
    assert "Traceback" not in res.stderr + res.stdout
    lines = [l for l in res.stderr.splitlines() if l.strip()]
    assert lines, "no error message"
    last = lines[-1]
    assert re.match(r"(error|Error): \S", last), res.stderr[-1500:]
    # one line: nothing after it, and no other error lines before it
    assert sum(1 for l in lines if re.match(r"(error|Error):", l)) == 1, res.stderr[-1500:]
    for want in case.expect:
        assert want.lower() in last.lower(), f"{want!r} not in: {last}"
    if case.keeps_records:
        assert records(out) == expected, "finished records changed"
    if case.damage:
        assert (out / "results.sqlite").read_bytes() == damaged, "the damaged store was written to"


def test_broken_plugin_reported_and_the_rest_works(outcomes, tmp_path):
    """The broken plugin is one warning line; runs that do not need it still work."""
    results, _, tmp = outcomes
    res, _, _ = results["broken_plugin_protocol"]
    assert re.search(r"plugin .*broken.* failed to load: ImportError: obench_broken_plugin needs missing_dependency", res.stderr)
    env = {"PYTHONPATH": str(tmp / "broken_plugin")}
    ok = cli_subprocess("run", *BASE, "--limit", "2", "--output", str(tmp_path / "r"), env=env)
    assert ok.returncode == 0, ok.stderr[-1500:]
    assert "failed to load" in ok.stderr and "Traceback" not in ok.stderr
    listing = cli_subprocess("list", "plugins", env=env)
    assert listing.returncode == 0 and "BROKEN" in listing.stdout


def test_some_malformed_rows_are_skipped_and_reported(tmp_path):
    """Malformed rows alongside good ones are not fatal: they are counted and reported."""
    _prepare(tmp_path)
    (tmp_path / "mixdata").mkdir()
    good = "".join(f'{{"q": "Is {i} even?", "right": "{"yes" if i % 2 == 0 else "no"}", '
                   f'"wrong": "{"no" if i % 2 == 0 else "yes"}"}}\n' for i in range(6))
    (tmp_path / "mixdata" / "rows.jsonl").write_text(good + '{"q": "unclosed\n[1, 2]\n{"right": "only"}\n')
    res = cli("run", *BASE, "--include-path", str(tmp_path / "tasks_bad_rows"), "--tasks", "t_bad_rows",
              "--data-dir", str(tmp_path / "mixdata"), "--output", str(tmp_path / "r"))
    assert res.exit_code == 0, res.output[-1500:]
    assert re.search(r"skipped \d+ row\(s\) of t_bad_rows", res.stdout), res.stdout[-1500:]
    assert "jobs: 6 done" in res.stdout


@pytest.fixture(scope="module")
def server():
    with start_server(ServerConfig(api_key="sk-good-key-000000")) as srv:
        yield srv


def _openai_run(srv, out: Path, limit: int, key: str):
    spec = f"openai:m,base_url={srv.url},concurrency=2,max_retries=0,timeout=10"
    return cli_subprocess("run", "--judge", spec, "--agent", spec, "--tasks", "arith", "--protocols", "qa_without_article",
                          "--limit", str(limit), "--output", str(out), "--quiet", env={"OPENAI_API_KEY": key})


@pytest.mark.parametrize("failure", ["key_rejected", "model_returns_nothing"])
def test_mid_run_failure_keeps_finished_records(server, tmp_path, failure):
    """A run resumed against a server that now rejects the key stops with one line (exit 2); one that
    answers with no choices at all fails those jobs (exit 1, MalformedResponse in the summary). Either
    way the records finished before are all still there."""
    out = tmp_path / "run"
    server.configure(api_key="sk-good-key-000000", faults={})
    first = _openai_run(server, out, 4, "sk-good-key-000000")
    assert first.returncode == 0, first.stderr[-1500:]
    before = records(out)
    if failure == "key_rejected":
        server.configure(api_key="sk-rotated-key-111111")
        expect = ["401", "api key"]
    else:
        server.configure(faults={"nochoices": 1.0})
        expect = ["no choices"]
    res = _openai_run(server, out, 12, "sk-good-key-000000")
    server.configure(api_key="sk-good-key-000000", faults={})
    assert "Traceback" not in res.stderr
    lines = [l for l in res.stderr.splitlines() if l.strip()]
    if failure == "key_rejected":  # the user's to fix: the run stops in one line
        assert res.returncode == 2, res.stderr[-1500:]
        assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    else:  # an odd answer is no user mistake: re-sent, then only the jobs that got it fail (exit 1)
        assert res.returncode == 1, res.stderr[-1500:]
        lines = [l for l in lines if "MalformedResponse" in l]
        assert lines, res.stderr[-1500:]
    for want in expect:
        assert want.lower() in lines[0].lower(), lines[0]
    assert records(out) == before


def test_malformed_answers_fail_only_their_jobs(tmp_path, monkeypatch):
    """A judge whose server answers some prompts with nothing usable (empty choices, null content:
    the scripted backend's None): each such call is re-sent a bounded number of times, then only
    its job fails, counted with a one-line reason in the summary; a prompt answered properly on a
    retry succeeds; every other job finishes. A resume retries the failed jobs only."""
    import hashlib
    import json
    from collections import Counter

    import oversight_bench.scheduler as runner_mod
    from helpers import cli
    from model_adapters.scripted import SCRIPTS, default_script, register_script

    monkeypatch.setattr(runner_mod, "MALFORMED_BACKOFF", 0.0)
    attempts: Counter = Counter()
    broken = {"on": True}

    def kind(messages) -> int:
        return int(hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()[:8], 16) % 4

    def flaky(messages, n, seed):
        key = json.dumps(messages, sort_keys=True)
        attempts[key] += 1
        if broken["on"] and (kind(messages) == 0 or (kind(messages) == 1 and attempts[key] == 1)):
            return [None] * n  # kind 0: always malformed; kind 1: malformed once, then fine
        return default_script(messages, n, seed)

    register_script("flaky_test", flaky)
    try:
        out = tmp_path / "run"
        args = ["run", "--judge", "scripted:flaky_test", "--agent", S, "--tasks", "arith", "--protocols",
                "qa_without_article", "--limit", "16", "--answer-order", "random", "--quiet", "--output", str(out)]
        res = cli(*args)
        kinds = Counter(kind(json.loads(k)) for k in attempts)
        assert kinds[0] >= 1 and kinds[1] >= 1, kinds  # the sample holds both kinds of prompt
        assert all(n == 1 + runner_mod.MALFORMED_RETRIES for k, n in attempts.items() if kind(json.loads(k)) == 0)
        assert all(n == 2 for k, n in attempts.items() if kind(json.loads(k)) == 1)
        assert res.exit_code == 1, res.output
        failed = kinds[0]
        assert f"jobs: {16 - failed} done, 0 already stored, {failed} failed" in res.stdout, res.stdout
        reason = [l for l in res.stdout.splitlines() if l.startswith("failed ")]
        assert reason == [f"failed {failed} job(s): MalformedResponse: judge scripted:flaky_test gave a malformed answer "
                          f"{1 + runner_mod.MALFORMED_RETRIES} times (script 'flaky_test' gave no text (as a server "
                          f"answering with empty choices or null content))"], res.stdout
        assert "Traceback" not in res.output
        assert len(records(out)) == 16 - failed  # one decision record per job

        broken["on"] = False  # the server behaves again: the resume redoes the failed jobs only
        res = cli(*args)
        assert res.exit_code == 0, res.output
        assert f"jobs: {failed} done, {16 - failed} already stored, 0 failed" in res.stdout, res.stdout
        assert len(records(out)) == 16
    finally:
        SCRIPTS.pop("flaky_test", None)
