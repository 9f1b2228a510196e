"""Unit tests of the model backends with fakes: request building, parsing, batching, errors,
secret redaction and the local model cache. No model, engine or server is needed."""

from __future__ import annotations

import asyncio
import ctypes
import json
import logging
import subprocess
import sys
import types

import pytest

from oversight_bench.errors import BenchError
from oversight_bench.models import parse_spec

KEY = "sk-test-SECRET-0123456789abcdef"
MSGS = [{"role": "user", "content": "Question? Answer 1: a. Answer 2: b."}]


def run(coro):
    return asyncio.run(coro)


# -- package hygiene ------------------------------------------------------------------------------

def test_importing_the_packages_loads_no_heavy_library():
    code = ("import sys, oversight_bench, model_adapters\n"
            "from oversight_bench.registry import get_registry\n"
            "r = get_registry(); print(r.names('models'))\n"
            "heavy = [m for m in ('torch', 'transformers', 'vllm', 'llama_cpp', 'lm_eval') if m in sys.modules]\n"
            "print('HEAVY', heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60).stdout
    assert "HEAVY []" in out
    for name in ("openai", "hf", "vllm", "llamacpp", "lm_eval", "scripted"):
        assert repr(name) in out


# -- batching queue -------------------------------------------------------------------------------

def test_batch_queue_collects_concurrent_requests_and_isolates_errors():
    from model_adapters._batching import BatchQueue

    seen = []

    def engine(items):
        seen.append(list(items))
        return [ValueError("bad") if i == "x" else i.upper() for i in items]

    async def main():
        q = BatchQueue(engine)
        first = await asyncio.gather(*(q.submit(s) for s in "abc"), return_exceptions=True)
        second = await asyncio.gather(q.submit("d"), q.submit("x"), return_exceptions=True)
        return q, first, second

    q, first, second = run(main())
    assert first == ["A", "B", "C"] and second[0] == "D" and isinstance(second[1], ValueError)
    assert q.batch_sizes == [3, 2] and seen[0] == ["a", "b", "c"]


def test_batch_queue_engine_failure_fails_the_batch_and_respects_max_batch():
    from model_adapters._batching import BatchQueue

    calls = []

    def engine(items):
        calls.append(len(items))
        raise RuntimeError("engine down")

    async def main():
        q = BatchQueue(engine, max_batch=2)
        return await asyncio.gather(*(q.submit(i) for i in range(5)), return_exceptions=True)

    res = run(main())
    assert all(isinstance(r, RuntimeError) for r in res) and calls == [2, 2, 1]


def test_choice_token_ids_reads_ids_in_context():
    from model_adapters._batching import choice_token_ids, normalise, softmax_over, truncate_at_stop

    vocab = {"Answer:": 1, " ": 2, "1": 33, "2": 34}

    def tok(text):
        out, rest = [], text
        while rest:
            for piece in sorted(vocab, key=len, reverse=True):
                if rest.startswith(piece):
                    out.append(vocab[piece])
                    rest = rest[len(piece):]
                    break
            else:
                raise AssertionError(rest)
        return out

    assert choice_token_ids(tok, "Answer: ", ("1", "2")) == [33, 34]
    assert softmax_over([0.0, 0.0]) == [0.5, 0.5]
    assert normalise({"1": 0.2, "2": 0.6}, ("1", "2")) == pytest.approx([0.25, 0.75])
    assert normalise({}, ("1", "2")) is None
    assert truncate_at_stop("abc\nUser: x", ["\nUser:", "zz"]) == "abc"


# -- local model cache ----------------------------------------------------------------------------

def _fake_parts(tmp_path, monkeypatch, chunks: list[bytes], name="fakemodel"):
    """Installs fake part packages on sys.path and a LocalModel entry for them."""
    import hashlib

    from model_adapters import local_models

    site = tmp_path / "site"
    for i, chunk in enumerate(chunks, 1):
        pkg = site / f"{name}_part{i}"
        (pkg / "data").mkdir(parents=True)
        (pkg / "__init__.py").write_text("")
        (pkg / "data" / f"part{i:02d}.bin").write_bytes(chunk)
    monkeypatch.syspath_prepend(str(site))
    sha = hashlib.sha256(b"".join(chunks)).hexdigest()
    model = local_models.LocalModel(name, f"{name}.gguf", sha,
                                    local_models._split(f"{name}_part", len(chunks), lambda i: f"data/part{i:02d}.bin"),
                                    chat_template=True)
    monkeypatch.setitem(local_models.MODELS, name, model)
    monkeypatch.setenv(local_models.CACHE_ENV, str(tmp_path / "cache"))
    return model


def test_local_model_is_assembled_once_and_checked(tmp_path, monkeypatch):
    from model_adapters import local_models

    _fake_parts(tmp_path, monkeypatch, [b"GGUF" + b"a" * 3000, b"b" * 2000, b"c" * 10])
    path = local_models.model_path("fakemodel")
    assert path.read_bytes() == b"GGUF" + b"a" * 3000 + b"b" * 2000 + b"c" * 10
    assert path.parent == tmp_path / "cache" / "models" and (tmp_path / "cache" / "models" / "fakemodel.gguf.sha256").exists()
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".part")]  # no temp files left

    def boom(*a, **k):
        raise AssertionError("assembled twice")

    monkeypatch.setattr(local_models, "_concat_verified", boom)
    monkeypatch.setattr(local_models, "_hash_file", boom)
    assert local_models.model_path("fakemodel") == path


def test_local_model_with_wrong_digest_is_refused_and_not_kept(tmp_path, monkeypatch):
    from model_adapters import local_models

    model = _fake_parts(tmp_path, monkeypatch, [b"x" * 100, b"y" * 100])
    monkeypatch.setitem(local_models.MODELS, "fakemodel", local_models.LocalModel(
        model.name, model.filename, "0" * 64, model.parts, True))
    with pytest.raises(BenchError, match="sha256.*reinstall"):
        local_models.model_path("fakemodel")
    assert not list((tmp_path / "cache" / "models").glob("fakemodel.gguf*"))


def test_local_model_changed_file_is_reassembled(tmp_path, monkeypatch):
    from model_adapters import local_models

    _fake_parts(tmp_path, monkeypatch, [b"x" * 100, b"y" * 100])
    path = local_models.model_path("fakemodel")
    path.write_bytes(b"truncated")  # size no longer matches the marker
    assert local_models.model_path("fakemodel").read_bytes() == b"x" * 100 + b"y" * 100


def test_missing_model_packages_name_the_extra(tmp_path, monkeypatch):
    from model_adapters import local_models

    monkeypatch.setitem(local_models.MODELS, "ghost", local_models.LocalModel(
        "ghost", "ghost.gguf", "0" * 64, (("no_such_pkg_part1", "data/a"), ("no_such_pkg_part2", "data/b")), True))
    with pytest.raises(BenchError, match=r"no-such-pkg-part1, no-such-pkg-part2.*pip install 'oversight-bench\[local\]'"):
        local_models.model_path("ghost")


def test_in_place_model_verified_once(tmp_path, monkeypatch):
    import hashlib

    from model_adapters import local_models

    pkg = tmp_path / "site" / "fake_single"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "m.gguf").write_bytes(b"weights")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setenv(local_models.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setitem(local_models.MODELS, "single", local_models.LocalModel(
        "single", "m.gguf", hashlib.sha256(b"weights").hexdigest(), (("fake_single", "m.gguf"),), True, in_place=True))
    assert local_models.model_path("single") == pkg / "m.gguf"
    monkeypatch.setattr(local_models, "_hash_file", lambda p: (_ for _ in ()).throw(AssertionError("hashed twice")))
    assert local_models.model_path("single") == pkg / "m.gguf"


# -- openai ---------------------------------------------------------------------------------------

def _completion_json(texts, logprobs=None, prompt_tokens=12, completion_tokens=6):
    choices = []
    for i, t in enumerate(texts):
        c = {"index": i, "message": {"role": "assistant", "content": t}, "finish_reason": "stop"}
        if logprobs is not None:
            c["logprobs"] = {"content": logprobs}
        choices.append(c)
    return {"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": choices,
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens}}


def _openai(spec_tail, handler, call):
    """Run `call(model)` against a real loopback server whose POSTs `handler(body, headers)`
    answers with (status, json); the model's spec is `openai:...,base_url=<server>` + tail."""
    from aiohttp import web

    from model_adapters.openai_api import OpenAIModel

    async def main():
        async def route(request):
            status, payload = handler(await request.json(), request.headers)
            return web.json_response(payload, status=status)

        app = web.Application()
        app.router.add_post("/v1/chat/completions", route)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]
        model = OpenAIModel(parse_spec(spec_tail.format(url=f"http://127.0.0.1:{port}/v1")))
        try:
            return model, await call(model)
        finally:
            await model.aclose()
            await runner.cleanup()

    return run(main())


def test_openai_request_building_and_parsing():
    sent = []

    def handler(body, headers):
        sent.append((body, headers.get("authorization")))
        return 200, _completion_json(["one", "two"][: body["n"]], completion_tokens=7)

    img = {"role": "user", "content": [{"type": "text", "text": "What is shown?"},
                                       {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]}
    m, outs = _openai(f"openai:gpt-x,base_url={{url}},api_key={KEY},images=true,concurrency=3", handler,
                      lambda m: m.generate([img], n=2, max_tokens=33, temperature=0.7, stop=["\n\n"], seed=5))
    assert [o.text for o in outs] == ["one", "two"]
    assert [o.completion_tokens for o in outs] == [4, 3] and outs[0].prompt_tokens == 12
    body, auth = sent[0]
    assert body["model"] == "gpt-x" and body["n"] == 2 and body["max_tokens"] == 33 and body["seed"] == 5
    assert body["stop"] == ["\n\n"] and body["messages"][0]["content"][1]["type"] == "image_url"
    assert auth == f"Bearer {KEY}"
    assert m.capabilities.images and not m.capabilities.logprobs and m.max_concurrency == 3
    assert KEY not in m.name and KEY not in json.dumps(m.request_fingerprint())
    assert m.request_fingerprint()["model"] == "openai:gpt-x"


def test_openai_fills_n_when_the_server_ignores_it():
    seeds = []

    def handler(body, headers):
        seeds.append(body.get("seed"))
        return 200, _completion_json([f"s{len(seeds)}"])

    _, outs = _openai("openai:m,base_url={url}", handler, lambda m: m.generate(MSGS, n=3, seed=10))
    assert [o.text for o in outs] == ["s1", "s2", "s3"] and seeds == [10, 11, 12]


def _lp(token, alts):
    return {"token": token, "logprob": -0.1, "bytes": None,
            "top_logprobs": [{"token": t, "logprob": lp, "bytes": None} for t, lp in alts]}


def test_openai_choice_probs_read_after_the_prefix():
    import math

    content = [_lp("Answer", [("Answer", -0.1)]), _lp(":", [(":", -0.01)]), _lp(" ", [(" ", -0.02)]),
               _lp("2", [("2", math.log(0.6)), ("1", math.log(0.2)), (" 1", math.log(0.1)), ("3", -3)])]
    sent = []

    def handler(body, headers):
        sent.append(body)
        return 200, _completion_json(["Answer: 2"], logprobs=content)

    m, probs = _openai("openai:m,base_url={url},logprobs=true", handler, lambda m: m.choice_probs(MSGS))
    assert probs == pytest.approx([0.3 / 0.9, 0.6 / 0.9])
    assert sent[0]["logprobs"] is True and sent[0]["top_logprobs"] == 20 and sent[0]["temperature"] == 0
    assert m.capabilities.logprobs


def test_openai_choice_probs_none_when_the_model_does_not_answer():
    from model_adapters.openai_api import OpenAIModel

    data = {"choices": [{"logprobs": {"content": [
        {"token": "Paris", "top_logprobs": [{"token": "1", "logprob": -5}]},
        {"token": " is", "top_logprobs": []}]}}]}
    assert OpenAIModel.parse_probs(data, "Answer: ", ("1", "2"), prefilled=False) is None
    # prefilled: the first generated token is the answer itself
    assert OpenAIModel.parse_probs(data, "Answer: ", ("1", "2"), prefilled=True) == [1.0, 0.0]


def test_openai_prefill_request_and_no_logprobs_capability():
    from model_adapters.openai_api import OpenAIModel

    m = OpenAIModel(parse_spec("openai:m,base_url=http://127.0.0.1:9/v1,logprobs=true,prefill=true"))
    req = m.build_probs_request(MSGS, "Answer: ")
    assert req["messages"][-1] == {"role": "assistant", "content": "Answer: "} and req["max_tokens"] == 1
    assert req["continue_final_message"] is True
    plain = OpenAIModel(parse_spec("openai:m,base_url=http://127.0.0.1:9/v1"))
    assert run(plain.choice_probs(MSGS)) is None


def test_openai_errors_are_one_line_and_never_show_the_key(caplog, monkeypatch):
    monkeypatch.setenv("MY_KEY_VAR", KEY)

    def handler(body, headers):
        return 401, {"error": {"message": f"Incorrect API key provided: {KEY}", "type": "invalid_request_error"}}

    with caplog.at_level(logging.DEBUG):
        with pytest.raises(BenchError) as err:
            _openai("openai:m,base_url={url},api_key_env=MY_KEY_VAR", handler, lambda m: m.generate(MSGS))
    assert KEY not in str(err.value) and "***" in str(err.value) and "AuthenticationError" in str(err.value)
    assert "\n" not in str(err.value) and "HTTP 401" in str(err.value)
    assert KEY not in caplog.text


def test_openai_answer_without_choices_is_a_clear_error():
    """A 200 that is no chat completion is a malformed answer: the runner re-sends it, then fails
    only its job (tests/test_bad_input.py), with this one-line reason."""
    from oversight_bench.errors import MalformedResponse

    with pytest.raises(MalformedResponse, match="no 'choices' list"):
        _openai("openai:m,base_url={url}", lambda body, headers: (200, {"detail": "hello"}), lambda m: m.generate(MSGS))


@pytest.mark.parametrize("count", [float("nan"), float("inf")], ids=["NaN", "Infinity"])
def test_openai_refuses_a_non_finite_usage_count_in_one_line(count):
    """A reply whose usage says `"prompt_tokens": NaN` (or Infinity) is read by the one strict reader
    and refused as a malformed answer (the runner re-sends it, then fails only its job, in one line),
    not read as an answer with a NaN count."""
    from oversight_bench.errors import MalformedResponse

    def handler(body, headers):
        return 200, _completion_json(["Answer: 1"], prompt_tokens=count)

    with pytest.raises(MalformedResponse) as err:
        _openai("openai:m,base_url={url},api_key=k,max_retries=0", handler, lambda m: m.generate(MSGS))
    msg = str(err.value)
    assert "the server's answer holds a non-finite number" in msg and "\n" not in msg, msg


def test_openai_reply_reader_refuses_what_the_strict_reader_refuses():
    from model_adapters.openai_replies import loads

    for body in (b'{"usage": {"prompt_tokens": NaN}}', b'{"usage": {"prompt_tokens": 1e999}}', b'[-Infinity]'):
        with pytest.raises(ValueError, match="non-finite number"):
            loads(body)


def test_openai_name_hides_the_key(monkeypatch):
    from model_adapters.openai_api import OpenAIModel

    monkeypatch.setenv("MY_KEY_VAR", KEY)
    m = OpenAIModel(parse_spec("openai:m,base_url=http://127.0.0.1:9/v1,api_key_env=MY_KEY_VAR"))
    assert KEY not in m.name and "api_key_env=MY_KEY_VAR" in m.name


def test_openai_needs_a_key_for_the_openai_api(monkeypatch):
    from model_adapters.openai_api import OpenAIModel

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(BenchError, match="no API key"):
        OpenAIModel(parse_spec("openai:gpt-4o-mini"))
    with pytest.raises(BenchError, match="unknown option"):
        OpenAIModel(parse_spec("openai:gpt-4o-mini,api_key=x,temprature=1"))
    monkeypatch.setenv("OPENAI_BASE_URL", "http://user:pw@127.0.0.1:8000/v1/")
    m = OpenAIModel(parse_spec("openai:local"))
    assert m.request_fingerprint()["base_url"] == "http://127.0.0.1:8000/v1"


def test_redact_spec_hides_keys():
    from oversight_bench.models import redact_spec

    assert KEY not in redact_spec(f"openai:m,api_key={KEY},timeout=3")
    assert KEY not in redact_spec(f"lm_eval:local-chat-completions,model=m,auth_token={KEY}")


# -- llama.cpp (fake Llama) -----------------------------------------------------------------------

class FakeLlama:
    """Enough of llama_cpp.Llama: a byte tokenizer, prefix-tracking eval, fixed logits."""

    def __init__(self, logits: dict[int, float], vocab: int = 64):
        self.vocab = vocab
        self.input_ids = [0] * 4096
        self.n_tokens = 0
        self.evals: list[list[int]] = []
        self.completions: list[dict] = []
        arr = (ctypes.c_float * vocab)(*[logits.get(i, -10.0) for i in range(vocab)])
        self._arr = arr
        self._ctx = types.SimpleNamespace(get_logits_ith=lambda i: ctypes.cast(arr, ctypes.POINTER(ctypes.c_float)))

    def tokenize(self, b, add_bos=False, special=True):
        return [c % self.vocab for c in b]

    def n_vocab(self):
        return self.vocab

    def eval(self, tokens):
        self.evals.append(list(tokens))
        self.input_ids[self.n_tokens:self.n_tokens + len(tokens)] = tokens
        self.n_tokens += len(tokens)

    def create_completion(self, tokens, **kw):
        self.completions.append(kw)
        return {"choices": [{"text": f"out{len(self.completions)}"}], "usage": {"prompt_tokens": len(tokens), "completion_tokens": 3}}


def _llamacpp(monkeypatch, fake, formatter=None, spec="llamacpp:fake.gguf"):
    from model_adapters import llamacpp

    monkeypatch.setattr(llamacpp, "resolve_path", lambda model: ("/models/fake.gguf", False))
    m = llamacpp.LlamaCppModel(parse_spec(spec))
    m._loaded = llamacpp.Loaded(fake, "/models/fake.gguf", formatter, "<eos>" if formatter else "", 0.0)
    return m


def test_llamacpp_choice_probs_from_next_token_logits_with_prefix_reuse(monkeypatch):
    import math

    # "1" and "2" are bytes 49 and 50 -> ids 49 % 64 = 49, 50
    fake = FakeLlama({49: 1.0, 50: 0.0})
    m = _llamacpp(monkeypatch, fake)
    probs = run(m.choice_probs(MSGS))
    assert probs == pytest.approx([math.e / (math.e + 1), 1 / (math.e + 1)])
    assert fake.evals[0][-len("Answer: "):] == [c % 64 for c in b"Answer: "]
    run(m.choice_probs(MSGS))
    assert len(fake.evals[1]) == 1  # the cached prompt is reused: only the last token re-evaluated
    run(m.choice_probs(MSGS, prefix="Verdict: "))
    assert len(fake.evals[2]) == len("Verdict: ")


def test_llamacpp_generate_loops_n_with_seeds_and_template_stop(monkeypatch):
    fmt = lambda messages: types.SimpleNamespace(prompt="<user>" + messages[-1]["content"] + "<assistant>")
    fake = FakeLlama({})
    m = _llamacpp(monkeypatch, fake, formatter=fmt)
    outs = run(m.generate(MSGS, n=2, max_tokens=20, temperature=0.5, stop=["\n"], seed=7))
    assert [o.text for o in outs] == ["out1", "out2"] and outs[0].completion_tokens == 3
    assert [c["seed"] for c in fake.completions] == [7, 8]
    assert fake.completions[0]["stop"] == ["\n", "<eos>"] and fake.completions[0]["max_tokens"] == 20
    assert m.capabilities.logprobs and not m.capabilities.images and m.max_concurrency == 1


def test_llamacpp_options_and_plain_prompt(monkeypatch):
    from model_adapters import llamacpp

    monkeypatch.setattr(llamacpp, "resolve_path", lambda model: ("/m.gguf", True))
    m = llamacpp.LlamaCppModel(parse_spec("qwen2.5-coder-0.5b,debias=true,n_ctx=2048"))
    assert m.debias and m.n_ctx == 2048 and m.n_threads >= 1
    assert m.request_fingerprint() == {"model": "llamacpp:qwen2.5-coder-0.5b", "n_ctx": 2048}
    with pytest.raises(BenchError, match="unknown option"):
        llamacpp.LlamaCppModel(parse_spec("llamacpp:x.gguf,n_ctxx=1"))
    monkeypatch.undo()
    with pytest.raises(BenchError, match="neither a local model name"):
        llamacpp.LlamaCppModel(parse_spec("llamacpp:/no/such/file.gguf"))
    assert llamacpp.plain_prompt(MSGS) == MSGS[0]["content"] + "\n\n"
    multi = llamacpp.plain_prompt(MSGS + [{"role": "assistant", "content": "A"}, {"role": "user", "content": "B"}])
    assert multi.endswith("User: B\n\nAssistant: ") and "Assistant: A" in multi


# -- transformers (fake backend) ------------------------------------------------------------------

class FakeHFBackend:
    def __init__(self):
        self.generate_calls = []
        self.logit_calls = []

    def chat_prompt(self, messages):
        return "|".join(m["content"] for m in messages) + "|A:"

    def tokenize(self, text):
        return list(text.encode())

    def generate(self, prompts, *, n, max_tokens, temperature, seed, stop=()):
        self.generate_calls.append((list(prompts), n, max_tokens, temperature, seed))
        return [[(f"{p}#{j} STOP tail", len(p), 4) for j in range(n)] for p in prompts]

    def next_token_logits(self, prompts, ids):
        self.logit_calls.append((list(prompts), ids))
        return [[0.0, 0.0] for _ in prompts]


def test_hf_batches_concurrent_calls_grouped_by_settings():
    from model_adapters.hf import HFModel

    be = FakeHFBackend()
    m = HFModel(parse_spec("hf:org/model,batch_size=2,device=cpu"), backend=be)

    async def main():
        gens = [m.generate([{"role": "user", "content": f"q{i}"}], max_tokens=10, stop=[" STOP"]) for i in range(3)]
        other = m.generate([{"role": "user", "content": "z"}], n=2, max_tokens=5, temperature=0.9, seed=3)
        probs = m.choice_probs([{"role": "user", "content": "p"}])
        return await asyncio.gather(*gens, other, probs)

    *gens, other, probs = run(main())
    assert [g[0].text for g in gens] == ["q0|A:#0", "q1|A:#0", "q2|A:#0"]
    assert [o.text for o in other] == ["z|A:#0 STOP tail", "z|A:#1 STOP tail"]  # no stop asked
    assert probs == [0.5, 0.5]
    assert m.queue.batch_sizes == [5]  # one queue batch...
    sizes = sorted(len(c[0]) for c in be.generate_calls)
    assert sizes == [1, 1, 2]  # ...split by settings and batch_size=2
    assert be.logit_calls[0][0] == ["p|A:Answer: "] and be.logit_calls[0][1] == [[49, 50]]
    sampled = [c for c in be.generate_calls if c[1] == 2]
    assert sampled == [(["z|A:"], 2, 5, 0.9, 3)]


def test_hf_missing_torch_gives_install_hint(monkeypatch):
    from model_adapters.hf import HFModel

    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(BenchError, match=r"pip install torch==2.13.0 'oversight-bench\[hf\]'"):
        HFModel(parse_spec("hf:org/model"))


# -- vLLM (fake engine) ---------------------------------------------------------------------------

class FakeSamplingParams:
    def __init__(self, **kw):
        self.kw = kw


class FakeTokenizer:
    def apply_chat_template(self, messages, tokenize=False, add_generation_prompt=True):
        return "<s>" + "".join(m["content"] for m in messages) + "<a>"

    def encode(self, text, add_special_tokens=False):
        return list(text.encode())


class FakeEngine:
    def __init__(self, **options):
        self.options = options
        self.chat_calls = []
        self.chat_flags = []
        self.generate_calls = []

    def get_tokenizer(self):
        return FakeTokenizer()

    def chat(self, conversations, params, use_tqdm=False, **flags):
        self.chat_calls.append((conversations, params))
        self.chat_flags.append(flags)
        out = []
        for conv, p in zip(conversations, params):
            outs = [types.SimpleNamespace(text=f"{conv[-1]['content']}-{j} END", token_ids=[1, 2]) for j in range(p.kw["n"])]
            out.append(types.SimpleNamespace(prompt_token_ids=[0] * 9, outputs=outs))
        return out

    def generate(self, prompts, params, use_tqdm=False):
        import math

        self.generate_calls.append((prompts, params))
        top = {49: types.SimpleNamespace(logprob=math.log(0.3)), 50: types.SimpleNamespace(logprob=math.log(0.1))}
        return [types.SimpleNamespace(outputs=[types.SimpleNamespace(logprobs=[top])]) for _ in prompts]


def test_vllm_round_goes_to_the_engine_as_one_batch():
    from model_adapters.vllm_engine import VLLMModel

    eng = FakeEngine()
    m = VLLMModel(parse_spec("vllm:org/model,tensor_parallel_size=2"), engine=eng, sampling_params=FakeSamplingParams)

    async def main():
        gens = [m.generate([{"role": "user", "content": f"q{i}"}], n=1 + i % 2, max_tokens=50, stop=[" END"], seed=i)
                for i in range(6)]
        probs = [m.choice_probs([{"role": "user", "content": f"j{i}"}]) for i in range(3)]
        return await asyncio.gather(*gens, *probs)

    res = run(main())
    assert len(eng.chat_calls) == 1 and len(eng.chat_calls[0][0]) == 6
    assert len(eng.generate_calls) == 1 and eng.generate_calls[0][0][0] == {"prompt_token_ids": list(b"<s>j0<a>Answer: ")}
    assert [p.kw["seed"] for p in eng.chat_calls[0][1]] == list(range(6))
    assert eng.chat_calls[0][1][1].kw == {"n": 2, "max_tokens": 50, "temperature": 0.0, "stop": [" END"], "seed": 1}
    assert [c.text for c in res[1]] == ["q1-0", "q1-1"] and res[0][0].prompt_tokens == 9
    assert res[6] == pytest.approx([0.75, 0.25])
    assert eng.generate_calls[0][1].kw == {"max_tokens": 1, "temperature": 0.0, "logprobs": 20}


def test_vllm_options_pass_through_and_missing_vllm(monkeypatch):
    from model_adapters import vllm_engine

    fake = types.ModuleType("vllm")
    fake.LLM = lambda model, **kw: FakeEngine(model=model, **kw)
    fake.SamplingParams = FakeSamplingParams
    monkeypatch.setitem(sys.modules, "vllm", fake)
    m = vllm_engine.VLLMModel(parse_spec("vllm:org/m,tensor_parallel_size=4,pipeline_parallel_size=2,"
                                         "data_parallel_size=2,distributed_executor_backend=ray,concurrency=64,dtype=bfloat16"))
    assert m.llm.options == {"model": "org/m", "tensor_parallel_size": 4, "pipeline_parallel_size": 2,
                             "data_parallel_size": 2, "distributed_executor_backend": "ray", "dtype": "bfloat16"}
    assert m.max_concurrency == 64 and m.request_fingerprint() == {"model": "vllm:org/m", "dtype": "bfloat16"}
    monkeypatch.setitem(sys.modules, "vllm", None)
    with pytest.raises(BenchError, match=r"oversight-bench\[vllm\]"):
        vllm_engine.VLLMModel(parse_spec("vllm:org/m"))


# -- lm-eval (fake LM) ----------------------------------------------------------------------------

class FakeLM:
    def __init__(self, chat_strings=True):
        self.chat_strings = chat_strings
        self.gen_requests = []
        self.ll_requests = []

    def apply_chat_template(self, chat_history, add_generation_prompt=True):
        if not self.chat_strings:
            raise NotImplementedError
        return "<chat>" + "/".join(m["content"] for m in chat_history) + "<a>"

    def generate_until(self, requests, disable_tqdm=False):
        self.gen_requests.append(requests)
        return [f"{r.args[0]}#{i}\nmore" for i, r in enumerate(requests)]

    def loglikelihood(self, requests, disable_tqdm=False):
        import math

        self.ll_requests.append(requests)
        return [(math.log(0.2 if r.args[1] == "1" else 0.6), False) for r in requests]


def test_lm_eval_generate_until_and_loglikelihood_in_one_batch():
    pytest.importorskip("lm_eval")
    from model_adapters.lm_eval_adapter import LMEvalModel

    lm = FakeLM()
    m = LMEvalModel(parse_spec("lm_eval:hf,pretrained=org/m"), lm=lm)

    async def main():
        return await asyncio.gather(m.generate(MSGS, n=2, max_tokens=9, stop=["\n"], seed=1),
                                    m.generate([{"role": "user", "content": "x"}]), m.choice_probs(MSGS))

    two, one, probs = run(main())
    assert len(lm.gen_requests) == 1 and len(lm.gen_requests[0]) == 3
    ctx, kw = lm.gen_requests[0][0].args
    assert ctx == "<chat>" + MSGS[0]["content"] + "<a>"
    assert kw == {"until": ["\n"], "max_gen_toks": 9, "temperature": 0.0, "do_sample": False}  # no seed for hf
    assert [c.text for c in two] == [ctx + "#0", ctx + "#1"] and one[0].text.startswith("<chat>x<a>")
    assert probs == pytest.approx([0.25, 0.75])
    assert lm.ll_requests[0][0].args == (ctx + "Answer: ", "1")
    assert m.capabilities.logprobs


def test_lm_eval_api_models_get_seeds_and_no_logprobs_by_default():
    pytest.importorskip("lm_eval")
    from model_adapters.lm_eval_adapter import LMEvalModel

    lm = FakeLM(chat_strings=False)
    m = LMEvalModel(parse_spec(f"lm_eval:local-chat-completions,model=m,base_url=http://x/v1,auth_token={KEY}"), lm=lm)
    assert not m.capabilities.logprobs and run(m.choice_probs(MSGS)) is None
    run(m.generate(MSGS, n=2, seed=4))
    assert [r.args[1]["seed"] for r in lm.gen_requests[0]] == [4, 5]
    assert lm.gen_requests[0][0].args[0] == MSGS[0]["content"] + "\n\n"  # plain-text fallback
    assert KEY not in m.name and KEY not in json.dumps(m.request_fingerprint())


def test_lm_eval_builds_a_real_lm_from_the_spec():
    pytest.importorskip("lm_eval")
    from model_adapters.lm_eval_adapter import LMEvalModel

    m = LMEvalModel(parse_spec("lm_eval:local-chat-completions,model=qwen,base_url=http://127.0.0.1:9/v1/chat/completions,concurrency=4"))
    assert type(m.lm).__name__ == "LocalChatCompletion" and m.lm.model == "qwen" and m.max_concurrency == 4
    with pytest.raises(BenchError, match="unknown to lm-eval"):
        LMEvalModel(parse_spec("lm_eval:no-such-model-type"))


def test_lm_eval_missing_gives_install_hint(monkeypatch):
    from model_adapters.lm_eval_adapter import LMEvalModel

    monkeypatch.setitem(sys.modules, "lm_eval", None)
    monkeypatch.setitem(sys.modules, "lm_eval.api", None)
    with pytest.raises(BenchError, match=r"oversight-bench\[lm-eval\]"):
        LMEvalModel(parse_spec("lm_eval:hf,pretrained=x"))


# -- one flattening for every text backend ----------------------------------------------------------

MIXED = [
    {"role": "system", "content": "Be fair."},
    {"role": "user", "content": [{"type": "text", "text": "Look at "},
                                 {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
                                 {"type": "text", "text": "this."}]},
    {"role": "assistant", "content": "Answer: 1"},
    {"role": "user", "content": "Sure?"},
]
FLAT = [{"role": "system", "content": "Be fair."}, {"role": "user", "content": "Look at this."},
        {"role": "assistant", "content": "Answer: 1"}, {"role": "user", "content": "Sure?"}]
PLAIN = "Be fair.\n\nUser: Look at this.\n\nAssistant: Answer: 1\n\nUser: Sure?\n\nAssistant: "


def test_every_text_backend_flattens_a_chat_the_same_way(monkeypatch):
    """llama.cpp, transformers, vLLM and lm-eval hand their chat template the same text-only messages
    (image parts dropped, text parts joined) and, for a model without a template, the same plain prompt."""
    from model_adapters.hf import HFModel, TorchBackend
    from model_adapters.lm_eval_adapter import LMEvalModel
    from model_adapters.vllm_engine import VLLMModel

    templated: dict[str, list] = {}

    def llama_template(messages):
        templated["llamacpp"] = messages
        return types.SimpleNamespace(prompt="<chat>")

    _llamacpp(monkeypatch, FakeLlama({}), formatter=llama_template).render(MIXED)

    class HFBackend(FakeHFBackend):
        def chat_prompt(self, messages):
            templated["hf"] = messages
            return super().chat_prompt(messages)

    HFModel(parse_spec("hf:org/model,device=cpu"), backend=HFBackend()).prompt(MIXED)
    engine = FakeEngine()
    run(VLLMModel(parse_spec("vllm:org/model"), engine=engine, sampling_params=FakeSamplingParams).generate(MIXED))
    templated["vllm"] = engine.chat_calls[0][0][0]

    class LM(FakeLM):
        def apply_chat_template(self, chat_history, add_generation_prompt=True):
            templated["lm_eval"] = chat_history
            return super().apply_chat_template(chat_history, add_generation_prompt)

    LMEvalModel(parse_spec("lm_eval:hf,pretrained=org/m"), lm=LM()).context(MIXED)
    assert templated == {"llamacpp": FLAT, "hf": FLAT, "vllm": FLAT, "lm_eval": FLAT}

    untemplated_torch = TorchBackend.__new__(TorchBackend)  # a tokenizer without a chat template, nothing loaded
    untemplated_torch.tokenizer = types.SimpleNamespace(chat_template=None)
    untemplated_torch.templated = False  # what loading finds for such a tokenizer
    plain = {
        "llamacpp": _llamacpp(monkeypatch, FakeLlama({})).render(MIXED)[0],
        "hf": HFModel(parse_spec("hf:org/model,device=cpu"), backend=untemplated_torch).prompt(MIXED),
        "lm_eval": LMEvalModel(parse_spec("lm_eval:hf,pretrained=org/m"), lm=FakeLM(chat_strings=False)).context(MIXED),
    }
    assert plain == {"llamacpp": PLAIN, "hf": PLAIN, "lm_eval": PLAIN}


def test_build_model_through_the_registry(monkeypatch):
    from oversight_bench.models import build_model
    from oversight_bench.registry import reset_registry

    reset_registry()
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    m = build_model("openai:m,base_url=http://127.0.0.1:9/v1,logprobs=true")
    assert m.capabilities.logprobs and type(m).__name__ == "OpenAIModel"
    with pytest.raises(BenchError, match="unknown model 'opnai'"):
        build_model("opnai:m")


def test_llamacpp_load_notices_stay_off_the_terminal_unless_loading_fails(monkeypatch, capsys):
    """llama.cpp prints some load notices whatever the log level (gemma's SWA cache line, even under
    --quiet): not verbose, they are kept back, and a failed load's error carries the last one."""
    import sys
    import types

    from model_adapters import llamacpp

    class FakeLlama:
        def __init__(self, model_path, **kw):
            print("llama_kv_cache_iswa: using full-size SWA cache", file=sys.stderr)
            if "broken" in model_path:
                print("llama_model_load: tensor 'x' has wrong shape", file=sys.stderr)
                raise ValueError("Failed to load model from file")

        def token_eos(self):
            return -1

        token_bos = token_eos
        metadata: dict = {}

    fake = types.SimpleNamespace(Llama=FakeLlama)
    monkeypatch.setattr(llamacpp, "_import_llama_cpp", lambda: (fake, types.SimpleNamespace()))
    monkeypatch.setattr(llamacpp, "_LOADED", {})
    llamacpp.load("/models/fine.gguf", 512, 1, 64)
    assert "SWA" not in capsys.readouterr().err
    with pytest.raises(BenchError, match=r"could not load /models/broken.gguf: Failed.*\(llama_model_load: tensor 'x'"):
        llamacpp.load("/models/broken.gguf", 512, 1, 64)


def test_hf_and_vllm_continue_a_begun_reply():
    """An agent forced from thinking to its argument: hf writes the begun reply after the chat
    prompt; vLLM sends it as a final assistant message to continue, in a batch of its own."""
    from model_adapters.hf import HFModel
    from model_adapters.vllm_engine import VLLMModel

    be = FakeHFBackend()
    hf = HFModel(parse_spec("hf:org/model,device=cpu"), backend=be)
    assert hf.capabilities.continuation
    out = run(hf.generate([{"role": "user", "content": "q"}], max_tokens=4, prefix="Thinking: t\nArgument:"))
    assert be.generate_calls[0][0] == ["q|A:Thinking: t\nArgument:"] and out[0].finish_reason == "length"

    eng = FakeEngine()
    vl = VLLMModel(parse_spec("vllm:org/model"), engine=eng, sampling_params=FakeSamplingParams)

    async def main():
        return await asyncio.gather(vl.generate([{"role": "user", "content": "a"}], max_tokens=50),
                                    vl.generate([{"role": "user", "content": "b"}], max_tokens=50, prefix="Argument:"))

    plain, continued = run(main())
    assert eng.chat_flags == [{}, {"add_generation_prompt": False, "continue_final_message": True}]
    assert eng.chat_calls[1][0] == [[{"role": "user", "content": "b"}, {"role": "assistant", "content": "Argument:"}]]
    assert continued[0].finish_reason == "stop" and plain[0].text == "a-0 END"


def test_openai_prefill_continues_a_begun_reply():
    """openai with prefill=true (vLLM, llama.cpp servers): the begun reply is a final assistant
    message the server is asked to continue; without prefill the backend says it cannot."""
    from model_adapters.openai_api import OpenAIModel

    m = OpenAIModel(parse_spec("openai:m,base_url=http://127.0.0.1:9/v1,api_key=sk-test1234,prefill=true"))
    req = m.build_request([{"role": "user", "content": "q"}], n=1, max_tokens=8, temperature=1.0, stop=None, seed=1,
                          prefix="Thinking: t\nArgument:")
    assert m.capabilities.continuation and req["messages"][-1] == {"role": "assistant", "content": "Thinking: t\nArgument:"}
    assert req["continue_final_message"] is True and req["add_generation_prompt"] is False
    plain = OpenAIModel(parse_spec("openai:m,base_url=http://127.0.0.1:9/v1,api_key=sk-test1234"))
    assert not plain.capabilities.continuation
