"""An API key never leaks: not into the run directory, the logs, or the terminal.

The fake server rejects the key with a 401 (one variant echoes the whole key back in its error
message, which is harsher than OpenAI's masked echo), or accepts it and the run writes records.
Every file under a scratch folder that serves as the working directory, HOME and the output
directory is searched byte for byte, as are stdout and stderr, with the openai client's debug
logging switched on.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from helpers import REPO, cli_subprocess
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
    return cli_subprocess("run", "--judge", spec, "--agent", spec, "--tasks", "arith", "--protocols", "qa_without_article",
                          "--limit", str(limit), "--output", str(scratch / "out"), cwd=scratch, timeout=100,
                          env={"HOME": str(home), "OPENAI_LOG": "debug", **(env or {})}, drop_env=("OPENAI_API_KEY", "OPENAI_LOG"))


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
    export = cli_subprocess("export", str(tmp_path / "out"), timeout=60)
    assert export.returncode == 0 and '"kind": "call"' in export.stdout
    assert GOOD not in res.stdout + res.stderr + export.stdout + export.stderr
    assert _scan(tmp_path, GOOD) == []


# -- URL credentials, query parameters, every output (issue 13 item 2) ----------------------------------
USER = "user-7c1d9e0a"
PASSWORD = "PaSs-9b8a7c6d5e4f"
QUERY_KEY = "QkEy-0f1e2d3c4b5a6978"
SPEC_KEY = "sk-spec-key-Zz9Yy8Xx7Ww6"


def _scan_ci(root: Path, secrets: list[str]) -> list[str]:
    """Files under root holding any secret in any case (also URL-encoded), and the text of every
    SQLite store's dump (each table, whatever is stored there)."""
    import sqlite3
    from urllib.parse import quote

    needles = {n.lower().encode() for s in secrets for n in (s, quote(s, safe=""))}
    hits = []
    for p in root.rglob("*"):
        if not p.is_file():
            continue
        data = p.read_bytes().lower()
        hits += [f"{p.relative_to(root)}" for n in needles if n in data]
        if p.name == "results.sqlite":
            con = sqlite3.connect(p)
            try:
                dump = "\n".join(con.iterdump()).lower().encode()
            finally:
                con.close()
            hits += [f"{p.relative_to(root)} (dump)" for n in needles if n in dump]
    return hits


def _all_outputs(out: Path, scratch: Path) -> str:
    """Run export, report and leaderboard on the run; return their stdout + stderr."""
    text = ""
    for args in (["export", str(out)], ["report", str(out), "--output", str(scratch / "report"), "--no-figures"],
                 ["leaderboard", str(out), "--output", str(scratch / "board")]):
        res = cli_subprocess(*args, cwd=scratch, timeout=100)
        assert "Traceback" not in res.stderr, res.stderr[-2000:]
        text += res.stdout + res.stderr
    return text


def test_url_userinfo_and_spec_key_never_written_or_printed(rejecting, tmp_path):
    """base_url with user:password@, and the key in the spec itself (any case): the run works,
    and no file, table, export, report, leaderboard page or terminal line holds them."""
    url = rejecting.url.replace("http://", f"http://{USER}:{PASSWORD}@")
    home = tmp_path / "home"
    home.mkdir()
    spec = f"openai:judge-model,base_url={url},concurrency=4,max_retries=1,timeout=5,api_key={GOOD}"
    res = cli_subprocess("run", "--judge", spec, "--agent", spec, "--tasks", "arith", "--protocols", "qa_without_article",
                         "--limit", "4", "--output", str(tmp_path / "out"), cwd=tmp_path, timeout=100,
                         env={"HOME": str(home), "OPENAI_LOG": "debug"}, drop_env=("OPENAI_API_KEY",))
    assert res.returncode == 0, res.stderr[-2000:]
    cfg = (tmp_path / "out" / "config.json").read_text()
    assert "***@127.0.0.1" in cfg and "api_key=***" in cfg  # redacted, not dropped
    printed = res.stdout + res.stderr + _all_outputs(tmp_path / "out", tmp_path)
    for secret in (PASSWORD, GOOD, USER):
        for form in (secret, secret.upper(), secret.lower()):
            assert form not in printed, form
    assert _scan_ci(tmp_path, [PASSWORD, GOOD, USER]) == []


def test_query_credentials_never_written_or_printed(rejecting, tmp_path):
    """`?api-key=` and `&Token=` in base_url: masked in every output whatever happens to the run."""
    url = f"{rejecting.url}?api-key={QUERY_KEY}&Token={PASSWORD}"
    res = cli_subprocess(
        "run", "--judge", f"openai:m,base_url={url},max_retries=0,timeout=5",
        "--agent", f"openai:m,base_url={url},max_retries=0,timeout=5", "--tasks", "arith", "--protocols",
        "qa_without_article", "--limit", "3", "--output", str(tmp_path / "q"), "--quiet",
        cwd=tmp_path, timeout=100, env={"OPENAI_API_KEY": GOOD, "OPENAI_LOG": "debug"})
    assert "Traceback" not in res.stderr
    printed = res.stdout + res.stderr
    if (tmp_path / "q" / "results.sqlite").exists() and res.returncode == 0:
        printed += _all_outputs(tmp_path / "q", tmp_path)
    for secret in (QUERY_KEY, PASSWORD):
        assert secret.lower() not in printed.lower(), printed[-1500:]
    assert _scan_ci(tmp_path, [QUERY_KEY, PASSWORD]) == []
    if (tmp_path / "q" / "config.json").exists():
        assert "api-key=***" in (tmp_path / "q" / "config.json").read_text()


def _qa_run_against(url: str, out: Path, limit: int) -> subprocess.CompletedProcess:
    """A QA run whose judge and agent are `openai:` at `url` (the key in $OPENAI_API_KEY)."""
    spec = f"openai:m,base_url={url},max_retries=0,timeout=5"
    return cli_subprocess(
        "run", "--judge", spec, "--agent", spec, "--tasks", "arith", "--protocols", "qa_without_article",
        "--limit", str(limit), "--output", str(out), "--quiet", cwd=out.parent, timeout=100, env={"OPENAI_API_KEY": GOOD})


def test_query_in_base_url_reaches_the_server(rejecting, tmp_path):
    """Only display and storage are redacted: the request itself still carries base_url's query."""
    res = _qa_run_against(f"{rejecting.url}?api-version=2024-06-01", tmp_path / "q", 2)
    assert res.returncode == 0, res.stderr[-1500:]


def test_redaction_rules():
    """The one redaction function: registered secrets in any case, URL userinfo, credential-like
    query parameters (any case, any of the usual names), key shapes; display-only."""
    from oversight_bench.models import parse_spec, redact_spec
    from oversight_bench.redact import forget_secrets, redact_obj, redact_text, register_env_secrets

    forget_secrets()
    spec = parse_spec(f"openai:m,base_url=http://{USER}:{PASSWORD}@h:8/v1?API_KEY={QUERY_KEY}&x=1,api_key={SPEC_KEY}")
    assert spec.options["base_url"].endswith(f"?API_KEY={QUERY_KEY}&x=1")  # the request gets the real URL
    shown = redact_spec(spec)
    # every query value is masked by rule, a harmless `x=1` too (display and storage only)
    assert shown == "openai:m,base_url=http://***@h:8/v1?API_KEY=***&x=***,api_key=***", shown
    # once seen, a secret is removed wherever it shows up, in any case
    echo = f"401: key {SPEC_KEY.upper()} rejected for {USER}; try {QUERY_KEY.lower()} or {PASSWORD.swapcase()}"
    assert redact_text(echo) == "401: key *** rejected for ***; try *** or ***"
    for name in ("api-key", "api_key", "key", "token", "access_token", "sig", "password", "Signature", "X-Api-Key",
                 "client_secret", "AUTH"):
        assert redact_text(f"see https://h/p?a=1&{name}=v4lue-123") == f"see https://h/p?a=***&{name}=***", name
    # a rule, not a list of names: every query value of a URL is masked, harmless ones too (the
    # request still carries them); after the query (a spec's next options) only credential names
    assert redact_text("https://h/p?max_tokens=5&page=2") == "https://h/p?max_tokens=***&page=***"
    assert redact_text("x=http://h/v1?authToken=abcd&code=Zz-9,timeout=5,token=tttt") == \
        "x=http://h/v1?authToken=***&code=***,timeout=5,token=***"
    assert redact_text("bad url http://u:p@[::1 here") == "bad url http://***@[::1 here"
    assert redact_text("Authorization: Bearer abc.def-123") == "Authorization: Bearer ***"
    assert redact_obj({"api_key": "zzzzzzzz", "nested": [f"http://a:{PASSWORD}@h"]}) == {
        "api_key": "***", "nested": ["http://***@h"]}
    register_env_secrets({"MY_JUDGE_KEY": "env-secret-value-1", "PWD": "/home/me", "HF_TOKEN": "hf_abcdefghijkl"})
    assert redact_text("x ENV-SECRET-VALUE-1 /home/me hf_abcdefghijkl") == "x *** /home/me ***"
    forget_secrets()


def test_log_records_redacted(capsys):
    """Every log record of the process, from any library, whatever handler writes it."""
    import logging

    from oversight_bench.redact import forget_secrets, install_log_redaction, register_secret

    install_log_redaction()
    register_secret("sk-logged-secret-123")
    logger = logging.getLogger("httpx.test")
    handler = logging.StreamHandler()
    logger.addHandler(handler)
    try:
        logger.warning("HTTP Request: POST %s key=%s", "http://u:pw-123456@h/v1?api-key=qq-123456", "SK-LOGGED-SECRET-123")
    finally:
        logger.removeHandler(handler)
        forget_secrets()
    err = capsys.readouterr().err
    assert "pw-123456" not in err and "qq-123456" not in err and "logged-secret" not in err.lower()
    assert "http://***@h/v1?api-key=***" in err


# -- every query value of base_url, by rule (issue: `?authToken=`, Azure's `?code=` leaked) ------------
_NAME_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
_VALUE_CHARS = _NAME_CHARS + ".~"
try:
    from hypothesis import HealthCheck, assume, given, settings
    from hypothesis import strategies as st
except ImportError:  # the `test` extra installs it; without it, a seeded random generator below
    given = None


def _leaderboard_slug(*parts):
    from oversight_bench.analysis.leaderboard import _slug

    return _slug(*parts)


def _check_query_value(name: str, value: str, tmp_path: Path, assume) -> None:
    """Whatever a query parameter is called and whatever it holds, its value is in no name, spec
    text, fingerprint, config.json or file name; the request's URL still holds it."""
    import json

    from oversight_bench.models import build_model, parse_spec, redact_spec
    from oversight_bench.redact import forget_secrets, redact_text
    from oversight_bench.rundir.store import Store

    forget_secrets()
    expected = f"openai:gpt-x,base_url=http://127.0.0.1:9/v1?{name}=***"
    shown_anyway = expected + ('{"model": "openai:gpt-x", "base_url": "http://127.0.0.1:9/v1"} judge agent specs nested url '
                               'error: POST /chat/completions refused')
    # the value may happen to be a piece of what is shown anyway ("gpt-", "127.0", "mode", the name)
    assume(value.lower() not in shown_anyway.lower() and "sk-" not in name and "hf_" not in name)
    # nor share a masked run with it: a run of 6 of an 8-character value's characters is masked on purpose
    # (an echo cut short), so `OPENAI00` masks the "openai" of the spec's backend
    from oversight_bench.redact import register_secret, scrub_known

    register_secret(value)
    shares_a_run = scrub_known(shown_anyway) != shown_anyway
    forget_secrets()
    assume(not shares_a_run)
    assume("api.openai.com" not in value)  # the adapter then asks for an OpenAI key (a substring test of the URL)
    text = f"openai:gpt-x,base_url=http://127.0.0.1:9/v1?{name}={value}"
    spec = parse_spec(text)
    assert spec.options["base_url"].endswith(f"?{name}={value}")  # the request gets the real URL
    assert redact_spec(spec) == expected
    assert redact_spec(text) == expected
    model = build_model(text)
    assert model.name == expected
    assert model.request_fingerprint() == {"model": "openai:gpt-x", "base_url": "http://127.0.0.1:9/v1"}
    assert model._query == {name: value}  # sent to the server with every request
    assert value.lower() not in redact_text(f"error: POST http://127.0.0.1:9/v1/chat/completions?{name}={value} refused").lower()
    # file names are made of the redacted names (the slug's hash too): the same whatever the value
    assert _leaderboard_slug("job", model.name, redact_spec(text)) == _leaderboard_slug("job", expected, expected)
    import tempfile

    out = Path(tempfile.mkdtemp(dir=tmp_path))  # hypothesis may repeat an example
    store = Store.open(out, write=True)
    try:  # what `run` writes: the names, and (harsher) the raw spec text
        store.write_config({"judge": model.name, "agent": text, "specs": [text], "nested": {"url": spec.options["base_url"]}})
    finally:
        store.close()
    assert value.lower() not in (out / "config.json").read_text().lower()
    forget_secrets()


if given is not None:
    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(name=st.text(_NAME_CHARS, min_size=1, max_size=16).filter(lambda n: n[0].isalpha()),
           value=st.text(_VALUE_CHARS, min_size=4, max_size=24))
    def test_any_query_value_redacted(name, value, tmp_path):
        _check_query_value(name, value, tmp_path, assume)
else:
    def test_any_query_value_redacted(tmp_path):
        import random

        rng = random.Random(20261201)
        checked = 0
        while checked < 150:
            name = rng.choice(_NAME_CHARS[:52]) + "".join(rng.choice(_NAME_CHARS) for _ in range(rng.randrange(16)))
            value = "".join(rng.choice(_VALUE_CHARS) for _ in range(rng.randrange(4, 25)))
            try:
                _check_query_value(name, value, tmp_path, _skip_unless)
            except _Skip:
                continue
            checked += 1


class _Skip(Exception):
    pass


def _skip_unless(condition: bool) -> None:
    if not condition:
        raise _Skip


def test_body_value_equal_to_a_secret_redacted():
    """A pass-through or extra_body value that equals a configured secret (a query value, the key)
    or is named like a credential is masked in the name and the fingerprint, however short."""
    import json

    from oversight_bench.models import build_model, redact_spec
    from oversight_bench.redact import forget_secrets, scrub_known

    forget_secrets()
    text = ("openai:m,base_url=http://127.0.0.1:9/v1?code=Az-9&sig=azure-sig-0123456789,extra_body.note=Az-9,"
            "extra_body.copy=azure-sig-0123456789,extra_body.user_token=tok1,top_p=0.5")
    model = build_model(text)
    shown = redact_spec(text) + model.name + json.dumps(model.request_fingerprint())
    for secret in ("Az-9", "azure-sig-0123456789", "tok1"):
        assert secret not in shown, secret
    assert model.request_fingerprint()["params"] == {"copy": "***", "note": "***", "top_p": 0.5, "user_token": "***"}
    assert model.params["note"] == "Az-9"  # the request still sends it
    # a stored request or response holding a long one loses it (registered at parse time)
    assert "azure-sig-0123456789" not in scrub_known('{"echo": "AZURE-SIG-0123456789"}')
    forget_secrets()


def test_run_config_masks_any_query_value(tmp_path):
    """A real `run` with an openai agent whose base_url has an oddly named credential: config.json
    (written before the first call fails on the closed port) and the terminal never show it."""
    import random

    rng = random.Random(7)
    token = "".join(rng.choice(_VALUE_CHARS) for _ in range(12))
    short = "Zq4x"  # a 4-character value: too short to register, masked by the rule
    url = f"http://127.0.0.1:9/v1?authToken={token}&code={short}"
    agent = f"openai:gpt-x,base_url={url},max_retries=0,timeout=2"
    res = cli_subprocess(
        "run", "--judge", "scripted:default", "--agent", agent,
        "--tasks", "arith", "--protocols", "debate", "--limit", "1", "--output", str(tmp_path / "o"), "--quiet",
        cwd=tmp_path, timeout=100, env={"OPENAI_API_KEY": GOOD, "OPENAI_LOG": "debug"})
    assert "Traceback" not in res.stderr, res.stderr[-2000:]
    cfg = (tmp_path / "o" / "config.json").read_text()
    assert "authToken=***&code=***" in cfg, cfg
    for secret in (token, short):
        assert secret not in res.stdout + res.stderr
    assert _scan_ci(tmp_path, [token]) == []
    assert short.lower() not in cfg.lower()


def test_any_query_value_reaches_the_server(tmp_path):
    """The rule is for what is shown and stored: the server still gets every query parameter."""
    with start_server(ServerConfig(api_key=GOOD, record=True)) as srv:
        res = _qa_run_against(f"{srv.url}?authToken=tok-2b7c9d1e&code=Zq4x&api-version=2024-06-01", tmp_path / "q", 1)
        assert res.returncode == 0, res.stderr[-1500:]
        log = srv.requests_log()
    assert log and all({"authToken=tok-2b7c9d1e", "code=Zq4x", "api-version=2024-06-01"} <= set(r["query"].split("&"))
                       for r in log), log[:1]
    assert "tok-2b7c9d1e" not in (tmp_path / "q" / "config.json").read_text()
    assert _scan_ci(tmp_path, ["tok-2b7c9d1e"]) == []
