"""The store's JSON: the canonical form of a request (what its cache key hashes) and a record's text."""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

import orjson


def canonical_json(request: dict[str, Any]) -> str:
    """The request as canonical JSON (sorted keys, compact, UTF-8 unescaped): hashed for the key,
    stored as is. It is on the path of every call, so orjson writes it (about 15x faster) when
    that gives the very bytes of `json.dumps(sort_keys=True, ensure_ascii=False, separators=(",",
    ":"))`: always, except for floats json writes with an exponent or as NaN/Infinity."""
    if _orjson_safe(request):
        return orjson.dumps(request, option=orjson.OPT_SORT_KEYS).decode()
    return json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _orjson_safe(obj: Any) -> bool:
    """Whether orjson writes `obj` exactly as json.dumps would: plain types only (no subclasses,
    which orjson rejects or writes differently), str keys, ints within 64 bits, and floats that
    json writes without an exponent."""
    t = type(obj)
    if t is str or t is bool or obj is None:
        return True
    if t is float:
        return math.isfinite(obj) and "e" not in repr(obj)
    if t is int:
        return -(2**63) <= obj < 2**64
    if t is dict:
        return all(type(k) is str and _orjson_safe(v) for k, v in obj.items())
    if t is list or t is tuple:
        return all(_orjson_safe(v) for v in obj)
    return False


def dumps(obj: Any) -> str:
    """A record's JSON text (int keys allowed, as `json.dumps` writes them). An integer past 64 bits,
    which orjson cannot write (one read back from another store, say), is written by json."""
    try:
        return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def request_key(request: dict[str, Any] | str) -> str:
    """The cache key: sha256 of the canonical JSON of the full request."""
    blob = request if isinstance(request, str) else canonical_json(request)
    return hashlib.sha256(blob.encode()).hexdigest()
