"""Echo-leak harness: a fake server echoes the API key transformed; search every output for it."""
import json, os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lib import *

KEY = "sk-proj-AbC123xYz789QwErTy55"


def echo_case(name, transform, via="reply", keyvia="spec", needle=None):
    """via: reply (the model's text), error (a 400's message), header. needle: what to search (default
    the transformed text itself, a stretch of it >= 16 chars)."""
    form = transform(KEY)
    needle = needle or form

    def reply(h, body):
        if body is None:
            return h.send_json({"object": "list", "data": []})
        if via == "reply":
            return h.send_json(completion(f"I saw {form} . Answer: 1", body))
        if via == "error":
            return h.send_json({"error": {"message": f"invalid key {form}", "type": "invalid_request_error"}}, code=400)
        if via == "models_error":
            return h.send_json({"error": {"message": f"bad {form}"}}, code=401)

    srv = FakeOpenAI(reply=reply)
    d = tmp()
    spec = srv.spec(f",api_key={KEY}" if keyvia == "spec" else "")
    envx = {"OPENAI_API_KEY": KEY} if keyvia == "env" else {}
    rc, out, err = ob("run", "--judge", spec, "--tasks", "arith", "--protocols", "qa_without_article",
                      "--limit", 1, "--answer-order", "random", "--output", f"{d}/run", "--quiet", **envx)
    texts = {"stdout": out, "stderr": err}
    texts.update(all_text(f"{d}/run"))
    if os.path.exists(f"{d}/run/results.sqlite"):
        rc2, o2, e2 = ob("export", f"{d}/run", **envx)
        texts.update({"export": o2 + e2})
        ob("view", f"{d}/run", "--export", f"{d}/site", **envx)
        texts.update(all_text(f"{d}/site"))
    srv.close()
    if not any(r[0] == "POST" for r in srv.requests):
        broke(f"{name}: setup: no request reached the server rc={rc} {err[-300:]}")
    forms = {needle, json.dumps(needle)[1:-1], json.dumps(needle, ensure_ascii=False)[1:-1]}
    hits = find_leak(sorted(forms), texts)
    if hits:
        broke(f"{name}: the key echoed as {needle[:60]!r} ({via}) is stored unmasked in: "
              + ", ".join(sorted({os.path.basename(h[0]) for h in hits})))
    held(f"{name}: echoed form ({via}) masked everywhere (rc={rc})")
