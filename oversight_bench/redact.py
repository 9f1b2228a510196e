"""Secret redaction: the one function every display and storage path goes through.

What counts as a secret:
- the value of EVERY query parameter of a URL (`base_url=...?authToken=X&code=Y`: a rule, not a
  list of names, since servers take keys under any name), as shown and stored; the request
  itself still carries the query;
- the value of a spec option whose name looks like a credential (`api_key`, `api-key`, `key`,
  `token`, `access_token`, `sig`, `password`, ... any case);
- the userinfo of a URL (`http://user:pass@host`);
- every such value seen once (`register_secret`), wherever it shows up later, matched
  case-insensitively: a server that echoes a key back in an error message, or a library that logs
  the full request URL, cannot carry it to a terminal, a log, config.json or results.sqlite. It is
  matched with any whitespace (or JSON's escaped \\n, \\t, ...) between its characters, and any
  run of at least 12 of its characters (half of a shorter one; a secret under 8 characters whole)
  is masked too, so an echo wrapped across lines or cut short at either end leaves no part of it
  (invisible characters count as gaps, fullwidth letters as their ASCII)
  (`_secret_pattern`, `_mask_runs`: the k-grams of the secret in a set, the text squeezed once, the
  runs found by string search and merged; only characters of a secret's run are ever masked); and
  so are its base64, hex, byte-by-byte percent-encoded, JSON `\\uXXXX` and HTML `&#N;`/`&#xN;`
  forms (`_encodings`); and any run of 12 of the letters and digits of the secret or of a form,
  whatever stands between them (`s, k, -`, `["s", "k"]`, a no-break space, `sk-p,roj-`, `115,107`:
  `_skeleton_runs`), within one string of a JSON text, so a stored record stays valid JSON;
- values of environment variables named like credentials (`OPENAI_API_KEY`, `HF_TOKEN`, ...),
  registered by `register_env_secrets`, for the same reason.

Only display and storage are redacted: the adapter still gets the spec's real `base_url` (query
string and all) and key.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import threading
from typing import Any
from urllib.parse import quote, unquote, unquote_plus

MASK = "***"

#: option / query parameter / environment variable names that hold credentials
SECRET_NAME = re.compile(
    r"(^|[_\-.])(api[_\-]?key|key|apikey|token|access[_\-]?token|auth|authorization|sig|signature|secret|"
    r"password|passwd|credentials?)$", re.IGNORECASE)
#: shapes of keys whatever they are called (OpenAI/Anthropic/HF keys, bearer headers)
_KEY_SHAPES = re.compile(r"\b(?:sk-[A-Za-z0-9_\-]{6,}|hf_[A-Za-z0-9]{10,}|(?<=Bearer )\S+)")
#: a URL in free text: scheme://, then anything up to whitespace, quotes or angle brackets
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s\"'<>`]+")
#: secrets shorter than this are not registered (they would redact common words)
MIN_SECRET = 6
#: any run of at least this many of a secret's characters is masked (half of a shorter secret's; the
#: whole of one under 8 characters): an echo cut short at either end or both leaves nothing
RUN_FROM = 12
#: what may stand between two characters of an echoed secret (a gap): whitespace, or a JSON escape of it
#: (a stored response is JSON text: a line break inside an echoed key is written `\n`).
#: For the quick test: the gap's escapes, then its characters (a backslash too) deleted
_GAP_ESCAPES = ("\\n", "\\r", "\\t", "\\b", "\\f")
_GAP_HEX = re.compile(r"\\+u00(?:0[9a-d]|20)")
#: characters that print as nothing (zero-width space/joiners, word joiner, BOM, soft hyphen): a
#: server interleaving them between a key's characters echoes the key as the eye reads it
_INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u00ad"
_GAP_CHARS = dict.fromkeys(map(ord, " \t\n\r\f\v\\" + _INVISIBLE))
#: fullwidth ASCII (U+FF01-FF5E) read as ASCII, one character for one so positions stay
_FULLWIDTH = {0xFF01 + i: 0x21 + i for i in range(0x5E)}

#: one gap, for finding them in a text (a run of backslashes is one token, escape or not: linear)
_GAP_TOKEN = re.compile(r"[ \t\n\r\f\v\u200b\u200c\u200d\u2060\ufeff\u00ad]+|\\+(?:[nrtbf]|u00(?:0[9a-dA-D]|20))?")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")

_lock = threading.Lock()
_secrets: set[str] = set()
_pattern: dict[int, frozenset[str]] | None = None  # k -> the k-grams of the secrets' forms
_lowered: tuple[str, ...] = ()  # the quick test's anchors (see `_secret_pattern`)
_skeleton: dict[int, frozenset[str]] = {}  # the same for the forms' letters and digits (`_skeleton_runs`)
_skeleton_anchors: tuple[str, ...] = ()


def is_secret_name(name: str) -> bool:
    """Whether an option, query parameter or variable name holds a credential."""
    return bool(SECRET_NAME.search(str(name).strip()))


def register_secret(value: Any) -> None:
    """Remember a secret value so that `redact_text` removes it wherever it appears."""
    global _pattern, _lowered, _skeleton, _skeleton_anchors
    value = str(value or "").strip()
    if len(value) < MIN_SECRET or value == MASK:
        return
    forms = {value, quote(value, safe=""), quote(value), *_encodings(value)}
    with _lock:
        if forms <= _secrets:
            return
        _secrets.update(f for f in forms if len(f) >= MIN_SECRET)
        _pattern, _lowered = _secret_pattern(_secrets)
        _skeleton, _skeleton_anchors = _secret_pattern(_secrets, skeleton=True)


def _encodings(value: str) -> set[str]:
    """How a server may echo a secret encoded: every byte percent-encoded (`%73%6b...`), hex (`736b...`,
    any case, or its bytes joined by `:`), every character as a JSON or HTML escape (`\\u0073`, `&#115;`,
    `&#x73;`, zero-padded too), each hex byte prefixed `0x`, base64 (standard and URL-safe,
    of its UTF-8 or UTF-16) at each of the three alignments it can start at inside a longer text and
    base32 at each of five (the characters that depend only on the secret's bytes)."""
    import base64

    raw = value.encode()
    out = {"".join(f"%{b:02x}" for b in raw), raw.hex(),
           # JSON's and HTML's character escapes: a server echoing "\u0073\u006b..." or "&#115;&#107;..."
           "".join(f"\\u{ord(c):04x}" for c in value),
           "".join(f"&#{ord(c)};" for c in value), "".join(f"&#x{ord(c):x};" for c in value)}
    # the same entities zero-padded (`&#00115;`, `&#x0073;`: HTML reads them alike), up to 8 digits
    out |= {"".join(f"&#{ord(c):0{w}d};" for c in value) for w in range(3, 9)}
    out |= {"".join(f"&#x{ord(c):0{w}x};" for c in value) for w in range(2, 9)}
    # hex bytes each with a prefix (`0x73 0x6b`, `\\x73\\x6b`: the backslash is a gap), hex of its
    # UTF-16, its bytes in decimal (`115,107`) or octal (`\\163\\153`), the secret reversed; joined
    # by anything, these are found by their letters and digits (`_skeleton_runs`)
    out |= {"".join(f"0x{b:02x}" for b in raw), "".join(f"x{b:02x}" for b in raw),
            value.encode("utf-16-le").hex(), value.encode("utf-16-be").hex(), value[::-1],
            "".join(str(b) for b in raw), "".join(f"{b:03o}" for b in raw)}
    for data in (raw, value.encode("utf-16-le"), value.encode("utf-16-be")):  # base64 of UTF-8 and UTF-16
        for k in range(3):
            enc = base64.b64encode(b"\0" * k + data).decode().rstrip("=")
            core = enc[4 if k else 0:len(enc) - (0 if (k + len(data)) % 3 == 0 else 4)]
            out |= {core, core.replace("+", "-").replace("/", "_")}
    for k in range(5):  # base32: the characters after a k-byte prefix that depend on the secret's bits only
        enc = base64.b32encode(b"\0" * k + raw).decode().rstrip("=")
        start, end = -(-8 * k // 5), (8 * (k + len(raw))) // 5
        out.add(enc[start:end])
    return {f for f in out if len(f) >= MIN_SECRET}


def _run_length(form: str) -> int:
    """How long a run of a secret's (squeezed) form must be to be masked: the whole of one shorter
    than 8 characters, else half of it, at least MIN_SECRET and at most RUN_FROM (a 34-character key
    echoed with 6 characters cut at each end is masked; a run of 12 of a key's characters in
    ordinary text is no accident)."""
    n = len(form)
    return n if n < 8 else min(RUN_FROM, max(MIN_SECRET, n // 2))


def _secret_pattern(secrets: set[str], skeleton: bool = False) -> tuple[dict[int, frozenset[str]], tuple[str, ...]]:
    """Every secret form's runs to mask, as its k-grams (k = `_run_length`, the forms lower-cased and
    without any gap, `_without_gaps`; `skeleton`: only their letters and digits) grouped by k; and
    the quick test's anchors: each form cut into tiles of k // 2 characters, so any run of k of its
    characters holds a whole tile."""
    grams: dict[int, set[str]] = {}
    anchors: set[str] = set()
    for secret in secrets:
        low = secret.lower()
        form = _ALNUM_ONLY.sub("", low) if skeleton else _without_gaps(low)
        if len(form) < MIN_SECRET:
            continue
        k = _run_length(form)
        grams.setdefault(k, set()).update(form[i:i + k] for i in range(len(form) - k + 1))
        a = max(1, k // 2) if k < len(form) else k
        anchors.update(form[i:i + a] for i in range(0, len(form) - a + 1, a))
    return {k: frozenset(g) for k, g in grams.items()}, tuple(anchors)


def register_env_secrets(environ: dict[str, str] | None = None) -> None:
    """Register the values of environment variables named like credentials."""
    for name, value in (environ if environ is not None else os.environ).items():
        if is_secret_name(name):
            register_secret(value)


def forget_secrets() -> None:
    """For tests: drop every registered secret."""
    global _pattern, _lowered, _skeleton, _skeleton_anchors
    with _lock:
        _secrets.clear()
        _pattern, _lowered, _skeleton, _skeleton_anchors = None, (), {}, ()


#: userinfo (up to the last @ before the path) and query-like parameters (`,` too: spec options)
_USERINFO = re.compile(r"(://)([^/\s?#]*)@")
_PARAM = re.compile(r"([?&;,])([^=&;,#\s]+)=([^&;,#\s]*)")
#: a parameter of a URL's query (between its `?` and the first `#` or `,`), and that end
_QUERY_PARAM = re.compile(r"([?&;])([^=&;#\s]+)=([^&;#\s]*)")
_QUERY_END = re.compile(r"[#,]")


def redact_url(url: str) -> str:
    """A URL without userinfo and with the value of every query parameter masked; every other
    character as it was (the text need not even parse: `http://u:p@[::1`). The query is what
    follows the first `?`, up to a `#` or a `,` (a spec's next option: `base_url` cannot hold a
    comma); after it, as in a spec's options or a fragment, only credential-named values are
    masked. Registers what it removes, so it is also gone from any other text.

    Every query value, not only credential-named ones: servers take keys under any name
    (`?authToken=`, Azure's `?code=`, `?sv=...&sig=`), so a list of names always misses one. A
    harmless value (`?api-version=2024-06-01`) is masked too, in what is shown and stored only."""
    def userinfo(m: re.Match) -> str:
        for piece in (m[2], *m[2].split(":", 1)):
            register_secret(piece)
            register_secret(unquote(piece))
        return f"{m[1]}{MASK}@"

    def any_param(m: re.Match) -> str:
        register_secret(m[3])
        register_secret(unquote_plus(m[3]))
        return f"{m[1]}{m[2]}={MASK}" if m[3] else m[0]

    def param(m: re.Match) -> str:
        if not is_secret_name(unquote(m[2])):
            return m[0]
        return any_param(m)

    url = _USERINFO.sub(userinfo, url, count=1)
    start = url.find("?")
    if start < 0:
        return _PARAM.sub(param, url)
    end = _QUERY_END.search(url, start)
    end = len(url) if end is None else end.start()
    return url[:start] + _QUERY_PARAM.sub(any_param, url[start:end]) + _PARAM.sub(param, url[end:])


def scrub_known(text: str) -> str:
    """Only the registered secrets removed (any case): cheap, for stored requests and responses,
    which must otherwise stay exactly as sent and received."""
    pattern, lowered = _pattern, _lowered
    if pattern is None or not text:
        return text
    low = text.lower().translate(_FULLWIDTH)  # passes in C, then a substring search per piece: microseconds per call
    if not any(s in low for s in lowered):
        squeezed = _without_gaps(low)  # a secret wrapped across lines: whole once the gaps are gone
        if not any(s in squeezed for s in lowered):
            # its letters and digits (a secret joined by anything), with and without JSON's escapes
            skeletons = (_ALNUM_ONLY.sub("", low), _ALNUM_ONLY.sub("", _JSON_ESCAPE.sub(" ", low)))
            if not any(s in skeleton for skeleton in skeletons for s in _skeleton_anchors):
                return text
    return _mask_runs(text, pattern, low)


#: what is not a letter or digit (any script: U+00A0 and U+2003 too), and one JSON string (quotes
#: escaped inside it); a text starting like JSON is masked by skeleton runs only inside its strings
_ALNUM_ONLY = re.compile(r"[\W_]+")
_ALNUM_RUN = re.compile(r"[^\W_]+")
#: inside a JSON string an escape (`\\n`, `\\u00a0`, `\\\\`) is one character, not its letters
_JSON_ALNUM_RUN = re.compile(r"\\(?:u[0-9a-fA-F]{4}|.)|([^\W_\\]+)")
_JSON_ESCAPE = re.compile(r"\\(?:u[0-9a-fA-F]{4}|[nrtbf])")
_JSON_STRING = re.compile(r'"((?:\\.|[^"\\])*)"')


def _skeleton_runs(low: str, grams: dict[int, frozenset[str]]) -> list[tuple[int, int]]:
    """The runs of a secret's letters and digits in `low` (lower-cased text), whatever stands between
    them (`s, k, -`, `["s", "k"]`, `s\u00a0k`, `sk-p,roj-`, `115,107`): a rule, not a list of
    separators, which always misses one. In a JSON text (a stored record or response) only within one
    of its strings, so a mask never takes a quote, a key or a number from the record around it and the
    record stays valid JSON. As (start, end) in the text, from the run's first letter to its last."""
    json_text = low.lstrip()[:1] in ("{", "[")
    pieces = [(m.start(1), m.end(1)) for m in _JSON_STRING.finditer(low)] if json_text else [(0, len(low))]
    runs = []
    for start, end in pieces:
        chars, where = [], []
        for m in (_JSON_ALNUM_RUN if json_text else _ALNUM_RUN).finditer(low, start, end):
            group = 1 if json_text else 0
            if m[group] is None:
                continue  # a JSON escape
            chars.append(m[group])
            where.extend(range(m.start(group), m.end(group)))
        skeleton = "".join(chars)
        runs += [(where[a], where[b - 1] + 1) for a, b in _merged(_found(skeleton, grams))]
    return runs


def _found(text: str, grams: dict[int, frozenset[str]]) -> list[tuple[int, int]]:
    """Where each k-gram of `grams` occurs in `text`, as (start, end), by C string search."""
    spans = []
    for k, found in grams.items():
        for g in found:
            i = text.find(g)
            while i >= 0:
                spans.append((i, i + k))
                i = text.find(g, i + 1)
    return spans


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping or touching spans as one, in order."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _mask_runs(text: str, grams: dict[int, frozenset[str]], low: str | None = None) -> str:
    """`text` with every run of a secret's form masked (gaps inside a run included), each stretch of
    overlapping or touching runs as one MASK: the text is squeezed once (lower-cased, gaps removed,
    each kept character's position noted), each k-gram found in it by C string search, the spans
    merged and mapped back; with them the runs of a secret's letters and digits (`_skeleton_runs`). Only
    characters of a secret's run are ever masked. `low`: `text.lower()` where the caller has it already."""
    low = text.lower().translate(_FULLWIDTH) if low is None else low
    if len(low) != len(text):  # a character whose lower case is longer: keep positions
        low = text.translate(_ASCII_LOWER).translate(_FULLWIDTH)
    parts, where, pos = [], [], 0
    for m in _GAP_TOKEN.finditer(low):
        if m.start() > pos:
            parts.append(low[pos:m.start()])
            where.extend(range(pos, m.start()))
        pos = m.end()
    parts.append(low[pos:])
    where.extend(range(pos, len(low)))
    squeezed = "".join(parts)
    runs = [(where[a], where[b - 1] + 1) for a, b in _merged(_found(squeezed, grams))]
    runs = _merged(runs + _skeleton_runs(low, _skeleton))
    if not runs:
        return text
    out, last = [], 0
    for begin, end in runs:
        while begin > last and text[begin - 1] == "\\":  # a run's escape (`\u0053...`) masked whole: no `\***`
            begin -= 1
        out.append(text[last:begin])
        out.append(MASK)
        last = end
    out.append(text[last:])
    return "".join(out)


def _without_gaps(low: str) -> str:
    """Lower-cased text without any gap (whitespace or its JSON escape, and other backslashes): where
    `_mask_runs` finds a secret, this text holds it whole (about 10 us per KB, in C)."""
    if "\\" in low:
        for escape in _GAP_ESCAPES:
            if escape in low:
                low = low.replace(escape, " ")
        if "\\u00" in low:
            low = _GAP_HEX.sub(" ", low)
    return low.translate(_GAP_CHARS)


def redact_text(text: Any) -> str:
    """Free text (errors, log lines, names, pages) with every secret removed: registered values,
    URL userinfo and credential query values, and key-shaped strings."""
    text = str(text)
    if "://" in text:
        text = _URL.sub(lambda m: redact_url(m.group(0)), text)
    text = scrub_known(text)
    return _KEY_SHAPES.sub(MASK, text)


def redact_obj(obj: Any) -> Any:
    """A JSON-like value with every string redacted, and the values of credential-named keys masked."""
    if isinstance(obj, str):
        return redact_text(obj)
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if isinstance(k, str) and is_secret_name(k) and isinstance(v, (str, int, float)) and not isinstance(v, bool):
                register_secret(v)
                out[k] = MASK
            else:
                out[k] = redact_obj(v)
        return out
    if isinstance(obj, (list, tuple)):
        return [redact_obj(v) for v in obj]
    return obj


def redact_options(options: dict[str, Any]) -> dict[str, Any]:
    """Spec options for display: credential-named values masked, URLs cleaned, env var *names* kept
    (`api_key_env=VAR` names where the key is, not the key)."""
    out = {}
    for k, v in options.items():
        if k.endswith("_env"):
            out[k] = v
        elif is_secret_name(k):
            register_secret(v)
            out[k] = MASK
        elif isinstance(v, str):
            out[k] = redact_text(v)
        else:
            out[k] = v
    return out


class _RedactingRecord(logging.LogRecord):
    """A log record whose message (and traceback text) is redacted when it is created, so every
    handler, whoever installed it and whenever, writes the redacted text."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        try:
            self.msg, self.args = redact_text(self.getMessage()), ()
        except Exception:  # a bad format string: leave it to logging's own error report
            return
        if self.exc_info and self.exc_info[1] is not None:
            import traceback

            self.exc_text = redact_text("".join(traceback.format_exception(*self.exc_info)).rstrip())


def install_log_redaction() -> None:
    """Redact every log record of the process (see `_RedactingRecord`)."""
    if logging.getLogRecordFactory() is logging.LogRecord:
        logging.setLogRecordFactory(_RedactingRecord)


def _redacting_excepthook(kind, value, tb) -> None:
    import traceback

    sys.stderr.write(redact_text("".join(traceback.format_exception(kind, value, tb))))


def protect_process_output() -> None:
    """For a command-line process: register credential-named environment variables, redact every
    log record, and redact the traceback of an unexpected error."""
    register_env_secrets()
    install_log_redaction()
    if sys.excepthook is sys.__excepthook__:
        sys.excepthook = _redacting_excepthook
