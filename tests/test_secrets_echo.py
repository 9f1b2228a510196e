"""A model server that echoes its request (issue 37.4): the API key it was sent (Authorization) and
a credential in base_url's query come back inside the model's answer. Neither may reach the store
(results.sqlite and its log), `export`, or an exported view; and `timeout=inf` is refused in one
line before anything is written. A local fake HTTP server stands for the echoing one."""

from __future__ import annotations

import json
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from helpers import cli_subprocess

KEY = "sk-echo-SECRET-91b2c3d4e5f60718"
QUERY = "qcred-5f4e3d2c1b0a9988"  # a query credential that is not key-shaped


class _Echo(BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        echoed = {"path": self.path, "authorization": self.headers.get("authorization"),
                  "query": dict(p.split("=", 1) for p in self.path.partition("?")[2].split("&") if "=" in p),
                  "body_len": len(body)}
        auth = echoed["authorization"] or ""
        # and again wrapped across a line, as a server that word-wraps its echo writes it (probe N-40)
        content = "Answer: 1\nYou sent me " + json.dumps(echoed) + "\nwrapped: " + auth[:20] + "\n" + auth[20:]
        reply = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                            "choices": [{"index": 0, "finish_reason": "stop",
                                         "message": {"role": "assistant", "content": content}}],
                            "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10}}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args):
        pass


@pytest.fixture()
def echo_server():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}/v1"
    srv.shutdown()
    srv.server_close()


def _cli(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return cli_subprocess(*args, cwd=cwd, env=env, drop_env=("OPENAI_API_KEY",))


def _hits(root: Path) -> list[str]:
    found = []
    for p in root.rglob("*"):
        if p.is_file():
            data = p.read_bytes().lower()
            found += [f"{p.relative_to(root)}: {s}" for s in (KEY, QUERY, KEY[-12:]) if s.lower().encode() in data]
    return found


def test_an_echoing_server_leaks_nothing_into_store_export_or_view(echo_server, tmp_path):
    out = tmp_path / "out"
    spec = f"openai:m,base_url={echo_server}?api-key={QUERY},max_retries=0,timeout=10"
    res = _cli("run", "--judge", spec, "--agent", "scripted:default", "--tasks", "prontoqa", "--limit", "2",
               "--protocols", "qa_without_article", "--output", str(out), "--quiet", cwd=tmp_path,
               env={"OPENAI_API_KEY": KEY})
    assert res.returncode == 0, res.stderr[-2000:]
    # the server did echo both (the run's records carry its answers)
    exported = _cli("export", str(out), cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr[-2000:]
    assert "You sent me" in exported.stdout
    assert not _hits(out), _hits(out)  # results.sqlite (and any log), config.json
    assert "wrapped: Bearer" in exported.stdout
    for secret in (KEY, QUERY, KEY[-12:]):  # the whole key, and the tail of the one wrapped across a line
        assert secret.lower() not in exported.stdout.lower()
    site = tmp_path / "site"
    assert _cli("view", str(out), "--export", str(site), cwd=tmp_path).returncode == 0
    assert not _hits(site), _hits(site)
    for text in (res.stdout, res.stderr):
        assert KEY.lower() not in text.lower() and QUERY.lower() not in text.lower()


def test_timeout_inf_is_one_line_and_writes_nothing(tmp_path):
    for value in ("inf", "nan", "-1", "1e999", "1e-320", "0.0001", "1e7"):  # 1e-320: probe note
        out = tmp_path / f"o-{value}"
        res = _cli("run", "--judge", f"openai:m,base_url=http://127.0.0.1:9/v1,timeout={value}", "--agent",
                   "scripted:default", "--tasks", "prontoqa", "--limit", "1", "--protocols", "qa_without_article",
                   "--output", str(out), cwd=tmp_path, env={"OPENAI_API_KEY": KEY})
        err = res.stderr.strip().splitlines()
        assert res.returncode == 2 and len(err) == 1 and "timeout" in err[0] and "Traceback" not in res.stderr, res.stderr
        if value in ("1e-320", "0.0001", "1e7"):
            assert "from 0.001 to 86400" in err[0], err
        assert not out.exists()


@pytest.mark.parametrize("shown", [
    "{k}", "{k_upper}", "{head}\n{tail}", "{head}\r\n    {tail}", "{head}\\n{tail}", "{head}\\\\n{tail}",
    "{head} {tail}", "a\tb {k3}\t{rest3}", "{first_half}...", "...{last_half}", "{head}\\u000b{tail}",
])
def test_an_echoed_key_wrapped_or_cut_leaves_no_part(shown):
    """A registered secret echoed with line breaks (raw, or as JSON escapes, once or twice encoded)
    or spaces between its characters, or only its first or last half (an echo cut short), is masked
    whole; the text around it stays."""
    from oversight_bench.redact import forget_secrets, register_secret, scrub_known

    forget_secrets()
    register_secret(KEY)
    try:
        half = len(KEY) // 2
        text = "before " + shown.format(k=KEY, k_upper=KEY.upper(), head=KEY[:11], tail=KEY[11:], k3=KEY[:3], rest3=KEY[3:],
                                       first_half=KEY[:half], last_half=KEY[half:]) + " after"
        out = scrub_known(text)
        assert out.startswith("before ") and out.endswith(" after") and "***" in out, out
        squeezed = "".join(out.replace("\\n", "").replace("\\", "").split()).lower()
        for piece in (KEY[:8], KEY[-8:], KEY[8:16]):
            assert piece.lower() not in squeezed, out
        assert scrub_known("no secret here, only sk-echo and 91b2 c3") == "no secret here, only sk-echo and 91b2 c3"
    finally:
        forget_secrets()


def test_redaction_stays_linear_on_near_misses():
    """Text built to make the gap-tolerant pattern backtrack (the key's head and gaps, over and over)
    is scrubbed in linear time."""
    import time

    from oversight_bench.redact import forget_secrets, register_secret, scrub_known

    forget_secrets()
    register_secret(KEY)
    try:
        times = []
        for n in (20_000, 80_000):
            text = (KEY[:12] + " \\n\t") * n
            t0 = time.perf_counter()
            scrub_known(text)
            times.append(time.perf_counter() - t0)
        assert times[1] < 8 * times[0] + 0.05, times  # 4x the text: about 4x the time, never quadratic
    finally:
        forget_secrets()


@pytest.mark.parametrize("prefix", ["", "x", "xy", "Bearer "])
def test_an_echoed_key_encoded_is_masked(prefix):
    """Probes M05/M06: a key echoed base64-encoded (inside a longer text, at any alignment; standard or
    URL-safe) or percent-encoded byte by byte (any case) is masked: no run of 8 of its encoded
    characters stays."""
    import base64

    from oversight_bench.redact import forget_secrets, register_secret, scrub_known

    forget_secrets()
    register_secret(KEY)
    try:
        raw = (prefix + KEY + " and more").encode()
        for encoded in (base64.b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode(),
                        "".join(f"%{b:02X}" for b in KEY.encode()), "".join(f"%{b:02x}" for b in KEY.encode())):
            out = scrub_known(f"echo {encoded} end")
            assert "***" in out, out
            inner = encoded[len(prefix) * 4 // 3 + 4:-12] if "%" not in encoded else encoded[3:-3]
            assert all(inner[i:i + 8] not in out for i in range(0, len(inner) - 8)), (encoded, out)
    finally:
        forget_secrets()


@pytest.mark.parametrize("cut", [(6, -6), (0, 12), (-12, None), (9, 21), (3, -3)],
                         ids=["middle (probe M06)", "head 12", "tail 12", "inner 12", "both ends cut"])
def test_any_run_of_twelve_of_the_key_is_masked(cut):
    """Probe M06: a server echoing only the key's middle (first and last 6 characters cut) put 22 of
    its characters in the store. Any run of 12 or more of its characters is masked now."""
    from oversight_bench.redact import forget_secrets, register_secret, scrub_known

    forget_secrets()
    register_secret(KEY)
    try:
        run = KEY[cut[0]:cut[1]]
        out = scrub_known(f"Answer: 1 {run} | ok")  # ("| o" does not go on with the key: the run ends)
        assert out == "Answer: 1 *** | ok", out
        assert scrub_known(f"x {run[:11]} y") == f"x {run[:11]} y"  # 11 characters: no run
        prose = "The quick brown fox jumps over the lazy dog, sk-echo and SECRET alike. 0718 91b2"
        assert scrub_known(prose) == prose  # only a secret's own runs are ever masked
    finally:
        forget_secrets()


def test_a_short_secret_is_masked_by_half_runs_and_a_very_short_one_whole():
    from oversight_bench.redact import forget_secrets, register_secret, scrub_known

    forget_secrets()
    register_secret("pw-a1b2c3d4")  # 11 characters: runs of 6
    register_secret("q7z9x2")  # 6 characters: only whole
    try:
        assert scrub_known("got a1b2c3 here") == "got *** here"
        assert scrub_known("got a1b2c here") == "got a1b2c here"
        assert scrub_known("q7z9x2 and q7z9x") == "*** and q7z9x"
    finally:
        forget_secrets()


def test_an_echoed_key_in_hex_is_masked():
    """Probe M10: the key's bytes echoed as hex (either case) are masked, as base64 and percent are."""
    from oversight_bench.redact import forget_secrets, register_secret, scrub_known

    forget_secrets()
    register_secret(KEY)
    try:
        for h in (KEY.encode().hex(), KEY.encode().hex().upper()):
            out = scrub_known(f"hex {h} end")
            assert out == "hex *** end", out
    finally:
        forget_secrets()


@pytest.mark.parametrize("form", ["json", "json-in-json", "html-decimal", "html-hex"])
def test_an_echoed_key_as_character_escapes_is_masked(form):
    """Probe 221 (round 4): a server echoing the key as JSON `\\u0058` escapes (as a stored response
    holds them, one backslash or two) or as HTML numeric entities put it whole into results.sqlite;
    percent, hex and base64 were masked. Only JSON escapes of whitespace are gaps, so such an escape
    is the character it stands for."""
    from oversight_bench.redact import forget_secrets, register_secret, scrub_known

    key = "Zx9/Qw+Er=Ty&Ui%Op12Kk"
    encoded = {"json": "".join(f"\\u{ord(c):04x}" for c in key),
               "json-in-json": "".join(f"\\\\u{ord(c):04X}" for c in key),
               "html-decimal": "".join(f"&#{ord(c)};" for c in key),
               "html-hex": "".join(f"&#x{ord(c):X};" for c in key)}[form]
    forget_secrets()
    register_secret(key)
    try:
        out = scrub_known(f'{{"content": "echo {encoded} end"}}')
        assert out == '{"content": "echo *** end"}', out
        assert scrub_known('{"content": "caf\\u00e9 \\u0041nswer: 1 &#65;"}') == '{"content": "caf\\u00e9 \\u0041nswer: 1 &#65;"}'
    finally:
        forget_secrets()


def test_a_key_echoed_fullwidth_or_with_invisible_characters_is_masked():
    """Probe round 7 (096, 091, 085): a server echoing the key in fullwidth letters, with a zero-width
    space between its characters, as zero-padded HTML entities, hex with colons, a dash between its
    characters, base32 or base64 of UTF-16 stored it."""
    from oversight_bench.redact import register_secret, scrub_known

    key = "sk-p9Zq8Wx7Vc6Bn5Mm4Ll3Kk2Jj1"
    register_secret(key)
    fullwidth = "".join(chr(ord(c) + 0xFEE0) for c in key)
    html0 = "".join(f"&#{ord(c):05d};" for c in key)  # probe 085: zero-padded entities
    import base64

    encoded = (":".join(f"{b:02x}" for b in key.encode()), "-".join(key), base64.b32encode(b"xyz" + key.encode()).decode(),
               base64.b64encode(key.encode("utf-16")).decode())  # probes 089, 097, 095, 094
    for echoed in (fullwidth, "\u200b".join(key), "\ufeff".join(key), "\u00ad".join(key.upper()), html0):
        out = scrub_known(f"error: bad key {echoed}!")
        assert out == "error: bad key ***!", repr(out)
    for echoed in encoded:
        assert key not in scrub_known(echoed) and "***" in scrub_known(echoed), echoed
    assert scrub_known("ｈｅｌｌｏ ｗｏｒｌｄ") == "ｈｅｌｌｏ ｗｏｒｌｄ"


@pytest.mark.parametrize("joined", [
    ", ".join(KEY), "|".join(KEY), " | ".join(KEY), "/".join(KEY), ";".join(KEY), "+".join(KEY), "--".join(KEY),
    "~*".join(KEY), ",".join(f"{b:02x}" for b in KEY.encode()), " ".join(f"0x{b:02x}" for b in KEY.encode()),
    "".join(f"\\x{b:02X}" for b in QUERY.encode()), ", ".join(QUERY)],
    ids=["comma", "pipe", "spaced-pipe", "slash", "semicolon", "plus", "dashdash", "two-char", "hexcomma", "hex0x",
         "hex-escape", "query-comma"])
def test_a_key_echoed_with_any_separator_is_masked(joined):
    """Probe round 8, cases 130_echo_*: a server joining the key's characters (or its hex bytes) with any
    punctuation, one or two characters, or prefixing each byte `0x`, echoed it into the store; now no run
    of it stays, and the JSON around it is untouched."""
    from oversight_bench.redact import forget_secrets, register_secret, scrub_known

    forget_secrets()
    register_secret(KEY)
    register_secret(QUERY)
    try:
        text = json.dumps({"echo": f"you sent {joined} ok", "note": "api-version=2024-06-01, a-b c_d, 1, 2, 3, 4, 5, 6"})
        out = scrub_known(text)
        assert json.loads(out) == {"echo": "you sent *** ok", "note": "api-version=2024-06-01, a-b c_d, 1, 2, 3, 4, 5, 6"}
    finally:
        forget_secrets()


def test_joined_echo_detection_stays_linear():
    """The separator rule is a regex over every stored text: a page of rules and lists costs time in
    proportion to its length."""
    import time

    from oversight_bench.redact import forget_secrets, register_secret, scrub_known

    forget_secrets()
    register_secret(KEY)
    try:
        times = []
        for n in (20_000, 80_000):
            text = "-" * n + " a, b, c, d, e, f, g" * (n // 20) + "7,3,6,b" * (n // 8)
            t0 = time.perf_counter()
            scrub_known(text)
            times.append(time.perf_counter() - t0)
        assert times[1] < 8 * times[0] + 0.05, times
    finally:
        forget_secrets()


@pytest.mark.parametrize("echo", [
    "\u00a0".join(KEY), "\u2003".join(KEY), json.dumps(list(KEY)), ",".join(str(b) for b in KEY.encode()),
    ",".join(KEY[i:i + 4] for i in range(0, len(KEY), 4)), "".join(c + "-\n" for c in KEY),
    "".join(c + "_-"[i % 2] for i, c in enumerate(KEY)), KEY[::-1], "".join(f"\\{b:03o}" for b in KEY.encode()),
    KEY.encode("utf-16-le").hex()],
    ids=["nbsp", "em-space", "json-array", "decimal-bytes", "groups-of-4", "dash-newline", "alternating",
         "reversed", "octal-escapes", "utf16-hex"])
@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_a_key_echoed_by_its_letters_and_digits_is_masked_and_the_record_stays_json(echo, ensure_ascii):
    """Probe round 9, cases 402-409, 413, 414: a key echoed with anything between its characters (a
    no-break or em space, JSON array punctuation, commas every 4 characters, mixed separators), as its
    bytes in decimal or octal, as hex of UTF-16 or reversed, was stored whole. Now its letters and
    digits are found in order whatever stands between them, within one JSON string of a stored record,
    so the record around the mask stays valid JSON and keeps its other values."""
    from oversight_bench.redact import forget_secrets, register_secret, scrub_known

    forget_secrets()
    register_secret(KEY)
    try:
        record = {"content": f"you sent {echo} ok", "answer": 1, "probs": [0.25, 0.75], "note": "a-b c_d 2024-06-01"}
        out = json.loads(scrub_known(json.dumps(record, ensure_ascii=ensure_ascii)))
        assert {k: v for k, v in out.items() if k != "content"} == {k: v for k, v in record.items() if k != "content"}
        assert out["content"].startswith("you sent ") and out["content"].endswith(" ok") and "***" in out["content"]
        left = out["content"][len("you sent "):-len(" ok")].replace("***", "")
        assert sum(c.isalnum() for c in left) < 6, out  # no run of the key's letters and digits stays
    finally:
        forget_secrets()
