"""The `openai:` backend (the official SDK on its aiohttp transport) against the fake server of
benchmarks/fake_openai_server.py, scripted to fail a prompt's first attempts the ways real APIs
do: 429 with Retry-After, 5xx, hangs past the timeout, dropped connections and cut-off 200
bodies are re-sent by the SDK and every re-send is counted (`model.retries` and the runner's
`note_retry`); 4xx are not re-sent; errors are one line without the key. Also what users of the
SDK expect: OPENAI_BASE_URL/OPENAI_API_KEY, organisation and project headers, Azure, extra
request parameters, a base_url with a query string, proxies from the environment."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest

from helpers import REPO
from oversight_bench.errors import BenchError
from oversight_bench.models import parse_spec

sys.path.insert(0, str(REPO / "benchmarks"))
from fake_openai_server import ServerConfig, start_server  # noqa: E402

pytestmark = pytest.mark.timeout(60)

KEY = "sk-retry-test-SECRET-42"
MSGS = [{"role": "user", "content": "Is 2 + 2 = 4? Reply with 'Answer: 1' or 'Answer: 2'."}]


@pytest.fixture(scope="module")
def srv():
    with start_server(ServerConfig(record=True, retry_after=0.3, hang_s=3.0)) as s:
        yield s


@pytest.fixture
def server(srv):
    """The module's server, with a fresh log and no faults unless the test scripts some."""
    def setup(**cfg):
        srv.configure(**{"script": [], "api_key": None, "echo_key": False, **cfg})
        srv.reset()
        return srv

    yield setup
    srv.configure(script=[], api_key=None, echo_key=False)


@pytest.fixture
def retries_noted(monkeypatch):
    """What the runner's note_retry was told (the progress display and each call's `attempts`)."""
    import model_adapters.openai_api as api

    noted = []
    monkeypatch.setattr(api, "note_retry", lambda: noted.append(1))
    return noted


def _model(spec: str):
    from model_adapters.openai_api import OpenAIModel

    return OpenAIModel(parse_spec(spec))


def _spec(srv, extra=""):
    """The test server's spec; `extra` (",key=value...") replaces a default of the same name (a spec
    names each option once)."""
    options = {"max_retries": "3", "timeout": "5"}
    options.update(part.split("=", 1) for part in extra.split(",") if part)
    return f"openai:m,base_url={srv.url},api_key={KEY}," + ",".join(f"{k}={v}" for k, v in options.items())


def _generate(model, messages=MSGS):
    async def main():
        try:
            return await model.generate(messages, max_tokens=5)
        finally:
            await model.aclose()

    return asyncio.run(main())


def test_429_and_500_are_retried_then_answered(server, retries_noted):
    srv = server(script=["429", "500"])
    model = _model(_spec(srv))
    outs = _generate(model)
    log = srv.requests_log()
    assert outs[0].text.startswith("Answer: ") and outs[0].prompt_tokens > 0
    assert len(log) == 3 and model.retries == 2 and len(retries_noted) == 2
    assert log[1]["t"] - log[0]["t"] >= 0.28  # the 429's Retry-After (0.3 s) was honoured
    assert log[2]["t"] - log[1]["t"] >= 0.3  # the SDK's backoff after the 500 (0.375-0.5 s)
    assert all(r["headers"]["authorization"] == f"Bearer {KEY}" for r in log)
    assert len({r["body"] for r in log}) == 1  # the same request re-sent
    assert json.loads(log[0]["body"])["model"] == "m"


def test_timeout_is_retried(server, retries_noted):
    srv = server(script=["hang"])
    model = _model(_spec(srv, ",timeout=0.5"))
    outs = _generate(model)
    assert outs[0].text.startswith("Answer: ") and len(srv.requests_log()) == 2 and model.retries == 1
    assert len(retries_noted) == 1


def test_dropped_connection_and_cut_off_body_are_retried(server, retries_noted):
    srv = server(script=["drop", "badjson"])
    model = _model(_spec(srv))
    outs = _generate(model)
    assert outs[0].text.startswith("Answer: ") and len(srv.requests_log()) == 3 and model.retries == 2
    assert len(retries_noted) == 2


def test_server_that_never_recovers_gives_a_clean_error(server):
    srv = server(script=["500"] * 10)
    model = _model(_spec(srv, ",max_retries=2"))
    with pytest.raises(RuntimeError) as err:
        _generate(model)
    msg = str(err.value)
    assert len(srv.requests_log()) == 3 and model.retries == 2
    assert not isinstance(err.value, BenchError)  # this job fails, the run goes on
    assert "\n" not in msg and KEY not in msg
    assert "InternalServerError: HTTP 500: injected server error (after 3 attempts)" in msg


def test_cut_off_bodies_past_the_retries_fail_the_call_in_one_line(server):
    srv = server(script=["badjson"] * 3)
    with pytest.raises(RuntimeError) as err:
        _generate(_model(_spec(srv, ",max_retries=1")))
    assert "APIConnectionError: the body is not JSON" in str(err.value) and "(after 2 attempts)" in str(err.value)
    assert "\n" not in str(err.value) and len(srv.requests_log()) == 2


def test_rejected_key_is_not_retried_and_never_shown(server, retries_noted):
    """A 401 that echoes the whole key: the run stops (BenchError) with one line, key hidden."""
    srv = server(api_key="sk-the-right-one-0000", echo_key=True)
    with pytest.raises(BenchError) as err:
        _generate(_model(_spec(srv)))
    msg = str(err.value)
    assert "AuthenticationError: HTTP 401: Incorrect API key provided: ***" in msg
    assert KEY not in msg and "\n" not in msg
    assert len(srv.requests_log()) == 1 and not retries_noted


@pytest.mark.parametrize("status,name,fatal", [(404, "NotFoundError", True), (400, "BadRequestError", True),
                                               (413, "APIStatusError", False), (422, "UnprocessableEntityError", False)])
def test_client_errors_are_not_retried(server, status, name, fatal):
    """404/400 (a wrong model or URL: every call would get it) stop the run; a 413 or 422 is about
    this request (say, one long article): the job fails, the run goes on."""
    srv = server(script=[f"status:{status}"])
    with pytest.raises(BenchError if fatal else RuntimeError) as err:
        _generate(_model(_spec(srv)))
    assert isinstance(err.value, BenchError) == fatal
    assert f"{name}: HTTP {status}: injected status {status}" in str(err.value)
    assert len(srv.requests_log()) == 1


def test_key_and_base_url_from_the_environment(server, monkeypatch):
    srv = server()
    monkeypatch.setenv("OPENAI_BASE_URL", srv.url)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    model = _model("openai:env-model")
    assert _generate(model)[0].text
    (req,) = srv.requests_log()
    assert req["headers"]["authorization"] == f"Bearer {KEY}" and req["path"] == "/v1/chat/completions"
    assert model.request_fingerprint() == {"model": "openai:env-model", "base_url": srv.url}


def test_organization_and_project_headers(server):
    srv = server()
    _generate(_model(_spec(srv, ",organization=org-abc,project=proj_123")))
    (req,) = srv.requests_log()
    assert req["headers"]["openai-organization"] == "org-abc" and req["headers"]["openai-project"] == "proj_123"


def test_azure_deployment_url_version_and_key_header(server):
    srv = server()
    model = _model(f"openai:my-deployment,azure=true,api_version=2024-10-21,base_url={srv.base},api_key={KEY}")
    assert _generate(model)[0].text
    (req,) = srv.requests_log()
    assert req["path"] == "/openai/deployments/my-deployment/chat/completions"
    assert req["query"] == "api-version=2024-10-21"
    assert req["headers"]["api-key"] == KEY and "authorization" not in req["headers"]
    assert KEY not in model.name and KEY not in json.dumps(model.request_fingerprint())


def test_azure_needs_an_endpoint_and_a_version(monkeypatch):
    for var in ("AZURE_OPENAI_ENDPOINT", "OPENAI_API_VERSION"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(BenchError, match="azure needs the endpoint"):
        _model("openai:dep,azure=true,api_key=k,api_version=2024-10-21")
    with pytest.raises(BenchError, match="azure needs an API version"):
        _model("openai:dep,azure=true,api_key=k,base_url=https://res.openai.azure.com")


def test_extra_request_parameters_pass_through_and_enter_the_fingerprint(server):
    srv = server()
    model = _model(_spec(srv, ",top_p=0.5,reasoning_effort=low,extra_body.top_k=3"))
    _generate(model)
    body = json.loads(srv.requests_log()[0]["body"])
    assert body["top_p"] == 0.5 and body["reasoning_effort"] == "low" and body["top_k"] == 3
    assert model.request_fingerprint()["params"] == {"reasoning_effort": "low", "top_k": 3, "top_p": 0.5}
    # without any, the fingerprint (the cache key) is what it always was
    assert _model(_spec(srv)).request_fingerprint() == {"model": "openai:m", "base_url": srv.url}
    with pytest.raises(BenchError, match="unknown option.*temprature"):
        _model(_spec(srv, ",temprature=0.5"))
    with pytest.raises(BenchError, match="unknown option.*temperature.*protocols set"):
        _model(_spec(srv, ",temperature=0.5"))  # the protocols set it, per call


def test_base_url_with_a_query_string(server):
    """The query goes with every request (not glued before the path), and neither the cache key
    nor an error message shows it (it may hold a key)."""
    srv = server()
    model = _model(f"openai:m,base_url={srv.url}?api-version=7&code=QUERY-SECRET-99,max_retries=0")
    assert _generate(model)[0].text
    (req,) = srv.requests_log()
    assert req["path"] == "/v1/chat/completions" and req["query"] == "api-version=7&code=QUERY-SECRET-99"
    assert model.request_fingerprint()["base_url"] == srv.url
    assert "QUERY-SECRET-99" not in model.redact(f"failed: {srv.url}?code=QUERY-SECRET-99")


def test_proxy_from_the_environment(server, monkeypatch):
    """HTTP_PROXY is honoured (the fake server plays the proxy: it sees the upstream host)."""
    srv = server()
    for var in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "http_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HTTP_PROXY", srv.base)
    model = _model(f"openai:m,base_url=http://upstream.invalid:8000/v1,api_key={KEY},max_retries=0")
    assert _generate(model)[0].text
    monkeypatch.delenv("HTTP_PROXY")
    (req,) = srv.requests_log()
    # a proxy gets the absolute URI; which form the fake server reports depends on its HTTP parser
    assert req["headers"]["host"] == "upstream.invalid:8000"
    assert req["path"] in ("/v1/chat/completions", "http://upstream.invalid:8000/v1/chat/completions")


def test_unreachable_server_is_one_line(retries_noted):
    model = _model("openai:m,base_url=http://127.0.0.1:9/v1,max_retries=1,timeout=2")
    with pytest.raises(RuntimeError) as err:
        _generate(model)
    msg = str(err.value)
    assert "APIConnectionError" in msg and "http://127.0.0.1:9/v1" in msg and "(after 2 attempts)" in msg
    assert "\n" not in msg and model.retries == 1 and len(retries_noted) == 1


def test_cache_key_of_an_unchanged_request_is_what_it_was():
    """The key below was computed by the hand-written client this backend replaced (same
    fingerprint: model and base URL without credentials, query or trailing slash): a run stored
    before re-runs without a call."""
    from oversight_bench.rundir.store import canonical_json, request_key

    m = _model("openai:gpt-4o-mini,base_url=http://127.0.0.1:8000/v1/,api_key=sk-abc,concurrency=64,logprobs=true")
    req = {"kind": "generate", **m.request_fingerprint(), "messages": [{"role": "user", "content": "Is 2 + 2 = 4?"}],
           "n": 1, "max_tokens": 64, "temperature": 0.0, "stop": None, "seed": 7}
    assert request_key(canonical_json(req)) == "1e1f3fb1959982925bcfc2eb6892f8b07a1ed0b2fdc6d06cd0336a2665c59457"


@pytest.mark.parametrize("extra, note", [("", "prefill=true"), (",prefill=false", "prefill=true"), (",prefill=true", None)])
def test_probs_probe_tries_the_prefilled_form_first_unless_the_spec_says(server, extra, note):
    """A spec without `prefill=` has the prefilled "Answer: " probed first (the fake server, like
    llama.cpp's and vLLM's, continues it): the run reads probabilities there, and says so. A spec
    that sets it has its own form probed first: `prefill=false` gives none here (the fake server's
    logprobs cover the first token only, "Answer:"), so the run falls back to the prefilled form
    with a note; `prefill=true` works as asked (no note)."""
    import model_adapters.openai_api as api

    srv = server()
    model = _model(_spec(srv, ",logprobs=true" + extra).replace("openai:m,", f"openai:probe{len(extra)}{note},"))

    async def main():
        try:
            said = await model.check_ready(probs=True)
            return said, await model.choice_probs(MSGS)
        finally:
            await model.aclose()

    said, probs = asyncio.run(main())
    assert (said is None) if note is None else (note in said and "probed" in said), said
    assert probs is not None and sum(probs) == pytest.approx(1.0)
    assert api._PROBS_FORM[model._probe_key()] is True
