#!/usr/bin/env bash
# Builds the evidence-grade leaderboard (issue 14 item 3) from real local runs on the four embedded
# judges and the nyu-2023 transcript suite. NOT RUN YET: see leaderboards/README.md for what it runs
# and the estimated compute (many CPU hours on a 2-core machine at the default sizes).
#
# Resumable: every step writes a run directory and skips what that directory already holds, so
# running the script again after an interruption continues where it stopped.
#
#   leaderboards/reproduce.sh [--quiet]
#
# Sizes (environment variables; the defaults are the issue's minimums):
#   QA_N=128     questions per judge x task for QA (both answer orders)
#   NYU_N=72     nyu-2023 debate rooms per judge (>= 64 after rooms too long for a judge are skipped)
#   AGENT_N=32   questions per task for the 1.5B agent's debates and consultancies
#   ELO_PAIRS=96 cross-play pairings for Elo (plus self-play games)
#   CONSULT_ALL=1  consultancies for every judge (0: the live judge only; saves about 4 of ~10 hours)
# Run from the repository root with the [local] extra installed.
set -euo pipefail

QUIET=()
for arg in "$@"; do
  case "$arg" in
    --quiet) QUIET=(--quiet) ;;
    -h|--help) sed -n 2,18p "$0"; exit 0 ;;
    *) echo "error: unknown argument $arg; expected --quiet" >&2; exit 2 ;;
  esac
done

RUNS=${RUNS:-runs/leaderboard}
QA_N=${QA_N:-128}
NYU_N=${NYU_N:-72}
AGENT_N=${AGENT_N:-32}
ELO_PAIRS=${ELO_PAIRS:-96}
CONSULT_ALL=${CONSULT_ALL:-1}
JUDGES=(smollm2-135m gemma3-270m qwen2.5-coder-0.5b qwen2.5-coder-1.5b)
AGENT=llamacpp:qwen2.5-coder-1.5b
LIVE_JUDGE=qwen2.5-coder-0.5b   # judges the agent's debates first; the others re-judge them
N_CTX=8192                       # NYU debates run to ~2,700 words; all four models accept 8k tokens
mkdir -p "$RUNS"

step() { echo "== $(date -u +%H:%M:%S) $*" >&2; }

# 1. QA without article on three closed tasks, QA with/without article on BoolQ: judge calls only.
for j in "${JUDGES[@]}"; do
  step "QA closed: $j"
  oversight-bench run --judge "llamacpp:$j" --agent "$AGENT" --tasks mmlu,truthfulqa,prontoqa \
    --protocols qa_without_article --limit "$QA_N" --answer-order both --output "$RUNS/qa-closed-$j" "${QUIET[@]}"
  step "QA BoolQ: $j"
  oversight-bench run --judge "llamacpp:$j" --agent "$AGENT" --tasks boolq \
    --protocols qa_without_article,qa_with_article --limit "$QA_N" --answer-order both --output "$RUNS/qa-boolq-$j" "${QUIET[@]}"
done

# 2. The nyu-2023 suite (human and GPT-4 debaters, live human judges): every judge on the same rooms.
for j in "${JUDGES[@]}"; do
  step "nyu-2023: $j"
  oversight-bench judge --suite nyu-2023 --judge "llamacpp:$j,n_ctx=$N_CTX" --limit "$NYU_N" --skip-long \
    --output "$RUNS/nyu-$j" "${QUIET[@]}"
done

# 3. The local 1.5B agent argues on one extractive (BoolQ) and one closed (MMLU) task; its debates are
#    re-judged by the other judges (judge calls only). Consultancies are interactive (the consultant
#    answers the judge's questions), so each judge gets its own consultancy run.
step "agent debates + consultancies, judge $LIVE_JUDGE"
oversight-bench run --judge "llamacpp:$LIVE_JUDGE" --agent "$AGENT" --tasks boolq,mmlu \
  --protocols debate,consultancy --limit "$AGENT_N" --rounds 2 --output "$RUNS/agent-$LIVE_JUDGE" "${QUIET[@]}"
for j in "${JUDGES[@]}"; do
  [ "$j" = "$LIVE_JUDGE" ] && continue
  step "re-judge agent debates: $j"
  oversight-bench judge --from "$RUNS/agent-$LIVE_JUDGE" --judge "llamacpp:$j" --output "$RUNS/agent-debates-$j" "${QUIET[@]}"
  [ "$CONSULT_ALL" = 1 ] || continue
  step "agent consultancies: $j"
  oversight-bench run --judge "llamacpp:$j" --agent "$AGENT" --tasks boolq,mmlu --protocols consultancy \
    --limit "$AGENT_N" --rounds 2 --output "$RUNS/agent-consultancy-$j" "${QUIET[@]}"
done

# 4. Debater Elo: one-round cross-play debates between the four local models (App. E), judged by the
#    strongest local judge, position-debiased.
step "Elo cross-play"
debaters=$(IFS=,; echo "${JUDGES[*]/#/llamacpp:}")
oversight-bench elo --debaters "$debaters" --judge "llamacpp:qwen2.5-coder-1.5b,debias=true" \
  --tasks boolq,mmlu --pairings "$ELO_PAIRS" --output "$RUNS/elo"

# 5. The tables: judge rows (QA, suite and agent cells), the human reference, Elo on its own.
step "leaderboard"
NYU_SOURCE="${OVERSIGHT_BENCH_SUITE_CACHE:-$HOME/.cache/oversight-bench/suites}/nyu-2023-1"  # imported by step 2
oversight-bench leaderboard "$RUNS"/qa-* "$RUNS"/nyu-* "$NYU_SOURCE" \
  "$RUNS/agent-$LIVE_JUDGE" "$RUNS"/agent-debates-* $(ls -d "$RUNS"/agent-consultancy-* 2>/dev/null) "$RUNS/elo/crossplay" --output leaderboards/
step "done"
