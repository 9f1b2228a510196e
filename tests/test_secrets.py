"""An API key never leaks: not into the run directory, the logs, or the terminal.

The fake server rejects the key with a 401 (one variant echoes the whole key back in its error
message, which is harsher than OpenAI's masked echo), or accepts it and the run writes records.
Every file under a scratch folder that serves as the working directory, HOME and the output
directory is searched byte for byte, as are stdout and stderr, with the openai client's debug
logging switched on.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import REPO
from test_core import needs_example

sys.path.insert(0, str(REPO / "benchmarks"))
from fake_openai_server import ServerConfig, start_server  # noqa: E402

pytestmark = [needs_example, pytest.mark.timeout(120)]

KEY = "sk-test-SECRET-7f3a9c1e5b2d4f60"
GOOD = "sk-accepted-key-0123456789abcdef"


def _scan(root: Path, secret: str) -> list[str]:
    """Files under root whose bytes contain the secret (also its URL-encoded and base64 forms)."""
    import base64
    from urllib.parse import quote

    needles = {secret.encode(), quote(secret).encode(), base64.b64encode(secret.encode())}
    hits = []
    for p in root.rglob("*"):
        if p.is_file():
            data = p.read_bytes()
            if any(n in data for n in needles):
                hits.append(str(p.relative_to(root)))
    return hits


def _run(srv, scratch: Path, spec_extra: str = "", env: dict | None = None, limit: int = 5):
    home = scratch / "home"
    home.mkdir(parents=True, exist_ok=True)
    spec = f"openai:judge-model,base_url={srv.url},concurrency=4,max_retries=1,timeout=5{spec_extra}"
    full_env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_LOG")}
    full_env.update({"HOME": str(home), "OPENAI_LOG": "debug", "PYTHONPATH": str(REPO), **(env or {})})
    cmd = [sys.executable, "-m", "oversight_bench.cli", "run", "--judge", spec, "--agent", spec, "--tasks", "arith",
           "--protocols", "qa_without_article", "--limit", str(limit), "--output", str(scratch / "out")]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=scratch, env=full_env, timeout=100)


@pytest.fixture(scope="module")
def rejecting():
    with start_server(ServerConfig(api_key=GOOD)) as srv:
        yield srv


@pytest.fixture(scope="module")
def rejecting_echo():
    with start_server(ServerConfig(api_key=GOOD, echo_key=True)) as srv:
        yield srv


@pytest.mark.parametrize("how", ["env", "api_key_env", "spec"])
def test_rejected_key_never_written_or_printed(rejecting_echo, tmp_path, how):
    if how == "env":
        res = _run(rejecting_echo, tmp_path, env={"OPENAI_API_KEY": KEY})
    elif how == "api_key_env":
        res = _run(rejecting_echo, tmp_path, ",api_key_env=MY_JUDGE_KEY", env={"MY_JUDGE_KEY": KEY})
    else:
        res = _run(rejecting_echo, tmp_path, f",api_key={KEY}")
    assert res.returncode != 0
    assert "Traceback" not in res.stderr
    assert "401" in res.stderr or "Authentication" in res.stderr, res.stderr[-1500:]
    assert rejecting_echo.stats()["by_status"].get("401", 0) > 0
    assert KEY not in res.stdout and KEY not in res.stderr
    assert _scan(tmp_path, KEY) == []


def test_masked_rejection_message(rejecting, tmp_path):
    """OpenAI-style 401 ("sk-***...last4"): the error names the problem, the key is still absent."""
    res = _run(rejecting, tmp_path, env={"OPENAI_API_KEY": KEY})
    assert res.returncode != 0 and "Traceback" not in res.stderr
    assert "Incorrect API key" in res.stderr
    assert KEY not in res.stdout + res.stderr
    assert _scan(tmp_path, KEY) == []


def test_accepted_key_not_in_records(rejecting, tmp_path):
    """A successful run stores every request and response: none of them carries the key."""
    res = _run(rejecting, tmp_path, env={"OPENAI_API_KEY": GOOD})
    assert res.returncode == 0, res.stderr[-2000:]
    assert (tmp_path / "out" / "results.sqlite").exists()
    export = subprocess.run([sys.executable, "-m", "oversight_bench.cli", "export", str(tmp_path / "out")],
                            capture_output=True, text=True, cwd=REPO, timeout=60)
    assert export.returncode == 0 and '"kind": "call"' in export.stdout
    assert GOOD not in res.stdout + res.stderr + export.stdout + export.stderr
    assert _scan(tmp_path, GOOD) == []
