#!/usr/bin/env bash
# Rebuilds leaderboards/ from real local runs (embedded models, ../shared/datasets) and the imported
# human debates of Michael et al. 2023. Run from the repository root with the [local] extra installed.
set -euo pipefail
RUNS=runs/leaderboard
DATA=${OVERSIGHT_BENCH_DATA:-../shared/datasets}

# 1. The agent argues (debate, open debate) and the first judge answers (QA without/with article).
oversight-bench run --config configs/leaderboard.yaml --quiet

# 2. The judge ladder: the same stored transcripts judged by the other local judges, judge calls only.
for judge in smollm2-135m gemma3-270m qwen2.5-coder-1.5b; do
  oversight-bench judge --from "$RUNS/agent-qwen1.5b" --judge "llamacpp:$judge,debias=true" \
    --output "$RUNS/judge-$judge" --quiet
done

# 3. Elo of the four local models as debaters: one-round cross-play debates, judge qwen 0.5b (§4.3).
oversight-bench elo --debaters smollm2-135m,gemma3-270m,qwen2.5-coder-0.5b,qwen2.5-coder-1.5b \
  --judge qwen2.5-coder-0.5b,debias=true --tasks boolq,mmlu --pairings 24 --output "$RUNS/elo"

# 4. Human judges and human/GPT-4 debaters on QuALITY, as published.
oversight-bench import nyu-debate "$DATA/quality/michael2023_debates" --paper-only --output "$RUNS/nyu2023"

oversight-bench leaderboard "$RUNS/agent-qwen1.5b" "$RUNS"/judge-* "$RUNS/elo/crossplay" "$RUNS/nyu2023" --output leaderboards/
oversight-bench report "$RUNS/agent-qwen1.5b" "$RUNS"/judge-* --output leaderboards/report
