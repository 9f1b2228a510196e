"""`oversight-bench build-task gsm8kqa --model SPEC`: build GSM8KQA program pairs with any model.

As in the paper (Appendix F.2): ask the model for K program proposals per GSM8K question,
execute each in the sandbox, keep one that runs to the ground truth and one that runs to another
number. Every question's outcome is appended to the output JSONL as soon as it is known, so a
killed build resumes where it stopped; the gsm8kqa task reads the file (default
~/.cache/oversight-bench/gsm8kqa/gsm8kqa.jsonl) after the real Program-of-Thoughts pairs. Added to the
command line by the `register_commands` hook of `task_configs`.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path

import click

from oversight_bench.api import BenchError, load_json_text, read_input_text
from task_configs.sandbox import require_isolation, unsafe_exec_option

PROMPT = '''Write a Python program that solves the math word problem below. Define a function
`solution()` that returns the final numeric answer. Reply with the code only, in one ```python block.

Example problem: A shop sells pencils in boxes of 12. Ana buys 3 boxes and gives away 7 pencils. How many pencils does she keep?
```python
def solution():
    pencils_per_box = 12
    boxes = 3
    given_away = 7
    return pencils_per_box * boxes - given_away
```

Problem: {question}
'''
_CODE = re.compile(r"```(?:python|py)?\s*\n(.*?)```", re.S)


def extract_code(text: str) -> str:
    """The first fenced code block of a reply, else the reply itself."""
    m = _CODE.search(text)
    return (m.group(1) if m else text).strip()


async def _proposals(model, question: str, k: int, temperature: float, seed: int) -> list[str]:
    messages = [{"role": "user", "content": PROMPT.format(question=question)}]
    if model.capabilities.multi_sample:
        outs = await model.generate(messages, n=k, max_tokens=768, temperature=temperature, seed=seed)
    else:
        outs = []
        for i in range(k):
            outs += await model.generate(messages, n=1, max_tokens=768, temperature=temperature, seed=seed + i)
    return [extract_code(c.text) for c in outs]


async def build_gsm8kqa(model, items: list[tuple[str, str, float]], *, k: int, temperature: float, seed: int,
                        output: Path, concurrency: int, log=print) -> dict[str, int]:
    """Generate, execute and pair programs for (id, question, gold) items; append rows to `output`."""
    from oversight_bench.api import redact_spec
    from task_configs.sandbox import run_programs
    from task_configs.loaders.gsm8kqa import classify

    sem = asyncio.Semaphore(max(1, concurrency))
    counts = {"pair": 0, "no_pair": 0, "retry": 0}
    output.parent.mkdir(parents=True, exist_ok=True)
    model_name = redact_spec(model.spec)

    async def one(ident: str, question: str, gold: float, f) -> None:
        async with sem:
            programs = await _proposals(model, question, k, temperature, seed)
        results = await asyncio.to_thread(run_programs, programs, timeout=3.0, cpu_seconds=2, memory_mb=256)
        kinds = {"correct": [], "incorrect": [], "failed": []}
        for code, res in zip(programs, results):
            kinds[classify(res, gold)].append(code)
        row = {"id": ident, "question": question, "ground_truth": gold, "model": model_name, "k": k,
               "n_correct": len(kinds["correct"]), "n_incorrect": len(kinds["incorrect"]), "n_failed": len(kinds["failed"])}
        if kinds["correct"] and kinds["incorrect"]:
            row.update(status="pair", correct=kinds["correct"][0], incorrect=kinds["incorrect"][0])
        elif any(r.transient for r in results):  # the sandbox gave no verdict on some program: not a
            counts["retry"] += 1  # question without a pair, just not built yet; a later run tries again
            return
        else:
            row.update(status="no_pair")
        counts[row["status"]] += 1
        f.write(json.dumps(row) + "\n")
        f.flush()

    with open(output, "a", encoding="utf-8") as f:
        await asyncio.gather(*(one(i, q, g, f) for i, q, g in items))
    return counts


def _done_ids(output: Path) -> set[str]:
    if not output.is_file():
        return set()
    done = set()
    # an earlier build's JSONL, read bounded and as UTF-8 before any model call (else one line, exit 2)
    text = read_input_text(output, "--output", "the JSONL an earlier build-task wrote", 256 * 1024 * 1024)
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:  # the one bounded JSON reader: deep nesting or NaN is a line it skips, never a traceback
            row = load_json_text(line, f"--output {output} line {n}", "a JSON object")
        except BenchError:
            continue
        if isinstance(row, dict) and isinstance(row.get("id"), str):
            done.add(row["id"])
    return done


@click.command("build-task")
@click.argument("task", type=click.Choice(["gsm8kqa"]))
@click.option("--model", "model_spec", required=True, help="backend:model[,key=value...] that writes the programs")
@click.option("--k", default=8, show_default=True, type=click.IntRange(2, 64), help="program proposals per question")
@click.option("--limit", type=click.IntRange(1), help="questions to build (default: all not yet built)")
@click.option("--data-dir", help="data directory with gsm8k/test.jsonl (default: $OVERSIGHT_BENCH_DATA or ../shared/datasets)")
@click.option("--output", type=click.Path(dir_okay=False), help="JSONL to append to (default: ~/.cache/oversight-bench/gsm8kqa/gsm8kqa.jsonl)")
@click.option("--temperature", default=0.8, show_default=True, type=float,
              help="sampling temperature of the program proposals, from 0 to 2")
@click.option("--seed", default=0, show_default=True, type=int, help="seed of the proposals' sampling")
@click.option("--concurrency", type=click.IntRange(1), help="questions in flight (default: the backend's)")
@click.option("--include-pot/--skip-pot", default=False, show_default=True,
              help="also build questions that already have a real Program-of-Thoughts pair")
@unsafe_exec_option
def build_task(task, model_spec, k, limit, data_dir, output, temperature, seed, concurrency, include_pot):
    """Build a task that needs model-generated data (GSM8KQA program pairs), saved for reuse."""
    from oversight_bench.api import LoadContext, build_model
    from oversight_bench.api import data_dir as resolve_data_dir
    from task_configs.loaders.gsm8kqa import _pot_rows, default_built_path, load_golds

    if not 0 <= temperature <= 2:  # NaN too (click.FloatRange lets it through)
        raise BenchError(f"--temperature {temperature}: expected a number from 0 to 2")

    ddir = resolve_data_dir(data_dir)
    if ddir is None or not (ddir / "gsm8k" / "test.jsonl").is_file():
        raise BenchError(f"build-task {task}: needs gsm8k/test.jsonl in the data directory ({ddir or 'none found'}); "
                         "pass --data-dir or set OVERSIGHT_BENCH_DATA")
    out = Path(output) if output else default_built_path()
    if out.exists() and not out.is_file():  # /dev/zero took every row and said "built"; a FIFO blocked the open for ever
        raise BenchError(f"--output {str(out)!r} is not a regular file (a device, FIFO or socket); expected the JSONL "
                         "an earlier build-task wrote, or a new path")
    ctx = LoadContext(task, "local", ddir)
    golds = load_golds(ctx)
    skip = _done_ids(out)
    if not include_pot:
        skip |= set(_pot_rows(ctx, golds)[0])
    items = [(ident, q, gold) for q, (ident, gold) in golds.items() if ident not in skip]
    items.sort(key=lambda x: x[0])
    random.Random(f"build:{seed}").shuffle(items)
    items = items[:limit] if limit else items
    if not items:
        click.echo(f"nothing to build: every question is already in {out} or has a real pair")
        return
    require_isolation()  # before any model call: refuse now if the programs could not be run
    model = build_model(model_spec)

    async def go():
        try:
            return await build_gsm8kqa(model, items, k=k, temperature=temperature, seed=seed, output=out,
                                       concurrency=concurrency or model.max_concurrency)
        finally:
            await model.aclose()

    counts = asyncio.run(go())
    click.echo(f"built {counts['pair']} program pairs ({counts['no_pair']} questions had no correct+incorrect pair) -> {out}"
               + (f"; {counts['retry']} question(s) not written, the sandbox gave no verdict on a program: run the "
                  "same command again" if counts["retry"] else ""))
