"""Cost of secret redaction on a stored text, as a ratio against a reference run in the same process:
`scrub_known` of this checkout against the same function of another commit (default b17e9cb, before
the letters-and-digits rule), and against `json.dumps` of the record (what the store pays anyway).

    python benchmarks/redact_bench.py [--ref COMMIT] [--repeat 200]

Texts: 10 KB of this README as plain text and inside a JSON record, with no secret in them (the common
case: the quick test decides) and with one echoed key (the mask is computed)."""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
KEY = "sk-proj-AbC123xYz789QwErTy55"


def _module_at(commit: str):
    """oversight_bench/redact.py as it was at `commit`, loaded as its own module."""
    text = subprocess.run(["git", "-C", str(REPO), "show", f"{commit}:oversight_bench/redact.py"],
                          check=True, capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "redact_ref.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("redact_ref", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _time(fn, text: str, repeat: int) -> float:
    t0 = time.perf_counter()
    for _ in range(repeat):
        fn(text)
    return (time.perf_counter() - t0) / repeat * 1e3


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ref", default="b17e9cb")
    ap.add_argument("--repeat", type=int, default=200)
    args = ap.parse_args()
    sys.path.insert(0, str(REPO))
    from oversight_bench import redact as new

    old = _module_at(args.ref)
    for mod in (new, old):
        mod.register_secret(KEY)
    prose = (REPO / "README.md").read_text()[:10_000]
    texts = {"plain, no secret": prose, "JSON record, no secret": json.dumps({"content": prose, "answer": 1}),
             "JSON record, key echoed": json.dumps({"content": prose[:5000] + ", ".join(KEY) + prose[5000:]})}
    print(f"{'text':<26} {'this (ms)':>10} {args.ref + ' (ms)':>14} {'ratio':>6} {'json.dumps (ms)':>16}")
    for name, text in texts.items():
        record = {"content": text}
        t_new, t_old = _time(new.scrub_known, text, args.repeat), _time(old.scrub_known, text, args.repeat)
        t_dumps = _time(lambda _: json.dumps(record), text, args.repeat)
        print(f"{name:<26} {t_new:>10.2f} {t_old:>14.2f} {t_new / t_old:>6.2f} {t_dumps:>16.3f}")


if __name__ == "__main__":
    main()
