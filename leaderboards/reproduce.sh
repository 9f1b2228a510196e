#!/usr/bin/env bash
# Builds the committed, judge-centric leaderboard (issue 14 item 3) from real local runs of the four
# embedded judges, the nyu-2023 transcript suite and the local 1.5B agent. leaderboards/README.md
# says what was run, at which sizes, and how long each step took.
#
#   leaderboards/reproduce.sh [--quiet] [STEP...]  STEP: qa debias nyu agent rejudge elo khan board
#   (default: all, in that order)
#
# Resumable: every step writes a run directory and skips what that directory already holds, so
# running the script again after an interruption continues where it stopped. On a 2-core machine
# two lanes keep both cores busy, one llama.cpp thread each (the small judges scale poorly past one);
# the committed leaderboard was built with these (the 1.5B judge takes as long as the other three):
#   AGENT_TASKS=boolq taskset -c 0 leaderboards/reproduce.sh --quiet agent rejudge &
#   AGENT_TASKS=mmlu taskset -c 1 leaderboards/reproduce.sh --quiet agent rejudge; wait
#   JUDGES="smollm2-135m gemma3-270m qwen2.5-coder-0.5b" taskset -c 0 leaderboards/reproduce.sh --quiet qa debias nyu &
#   JUDGES="qwen2.5-coder-1.5b" taskset -c 1 leaderboards/reproduce.sh --quiet qa debias nyu; wait
#   leaderboards/reproduce.sh elo              # one process on both cores
#   CARRY=0 leaderboards/reproduce.sh board
# `board` keeps the committed leaderboard's cells that no run here measures (CARRY=0: only these runs),
# so steps run on different machines add up; leaderboards/README.md says which build measured what.
#
# Sizes (environment variables):
#   QA_N=128     questions per judge x task for QA (both answer orders, the paper's)
#   NYU_N=72     nyu-2023 debate rooms per judge (a seeded sample: 72 rooms hold 64 distinct questions;
#                rooms too long for a judge are skipped and counted)
#   AGENT_N=32   questions per task for the 1.5B agent's debates and consultancies
#   AGENT_TASKS="boolq mmlu"  the agent's tasks, one run each (one extractive, one closed)
#   ELO_PAIRS=80 cross-play games for Elo (no self-play), half per task
#   ELO_DEBATERS="qwen2.5-coder-1.5b smollm2-135m"  the debaters Elo rates
#   JUDGES="smollm2-135m gemma3-270m qwen2.5-coder-0.5b qwen2.5-coder-1.5b"  the judges qa, nyu and rejudge loop over
#   KHAN_LIMIT=   khan: judge only this many khan-2024 rooms (a seeded sample; default all 80)
#   BOARD=leaderboards  board: the folder built (another folder builds a copy to compare, the committed
#                board's cells carried from leaderboards/results.json all the same)
#   STANCE_CHECK=SPEC  board: the stance check of every argued cell (`leaderboard --stance-check`), the
#                checker's accuracy on the khan-2024 GPT-4o turns beside each figure (default: none; the
#                checker must be measured first: qwen2.5-coder-0.5b scored 4 of 24, see README.md)
#   CACHE_FROM="DIR ..."  run directories whose stored calls are reused (`--cache-from`; identical requests only)
#
# Every judge reads its answer from its answer-token probabilities (`--judge-mode probs`, a declared
# deviation): the two smallest judges almost never write "Answer: 1|2" (in a first pass with the
# paper's written answer, 766 of 768 smollm2-135m QA answers and all 64 gemma3-270m debate verdicts
# were invalid), so the written answer would measure format-following, not judging.
# Run from the repository root with the [local] extra installed.
set -euo pipefail

QUIET=()
STEPS=()
for arg in "$@"; do
  case "$arg" in
    --quiet) QUIET=(--quiet) ;;
    qa|debias|nyu|agent|rejudge|elo|khan|board) STEPS+=("$arg") ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "error: unknown argument $arg; expected --quiet or a step (qa debias nyu agent rejudge elo khan board)" >&2; exit 2 ;;
  esac
done
[ ${#STEPS[@]} -gt 0 ] || STEPS=(qa debias nyu agent rejudge elo khan board)

RUNS=${RUNS:-runs/leaderboard}
QA_N=${QA_N:-128}
NYU_N=${NYU_N:-72}
AGENT_N=${AGENT_N:-32}
read -ra AGENT_TASKS <<< "${AGENT_TASKS:-boolq mmlu}"
ELO_PAIRS=${ELO_PAIRS:-80}
read -ra ELO_DEBATERS <<< "${ELO_DEBATERS:-qwen2.5-coder-1.5b smollm2-135m}"
read -ra JUDGES <<< "${JUDGES:-smollm2-135m gemma3-270m qwen2.5-coder-0.5b qwen2.5-coder-1.5b}"
# One spec per judge everywhere, so each judge is one leaderboard row: n_ctx=8192 because NYU debates
# run to ~2,700 words (all four models accept 8k tokens).
judge() { echo "llamacpp:$1,n_ctx=8192"; }
AGENT=llamacpp:qwen2.5-coder-1.5b
LIVE_JUDGE=qwen2.5-coder-0.5b   # judges the agent's transcripts first; the others re-judge them
# The agent's protocol, cut to fit CPU (every output lists these as deviations from the paper):
# one round (so consultancies hold no judge questions and can be re-judged, like debates), best-of-1,
# one random answer order per question, 200 tokens of thinking then 250 of argument per turn.
AGENT_OPTS=(--rounds 1 --best-of-n 1 --answer-order random -o thinking_max_tokens=200 -o argument_max_tokens=250)
JUDGE_MODE=(-o judge_mode=probs)
CACHE=()
for d in ${CACHE_FROM:-}; do CACHE+=(--cache-from "$d"); done
mkdir -p "$RUNS"

step() { echo "== $(date -u +%H:%M:%S) $*" >&2; }

# QA without article on three closed tasks, QA with/without article on BoolQ: judge calls only.
qa() {
  for j in "${JUDGES[@]}"; do
    step "QA closed: $j"
    oversight-bench run --judge "$(judge "$j")" --agent "$AGENT" --tasks mmlu,truthfulqa,prontoqa \
      --protocols qa_without_article --limit "$QA_N" --answer-order both --output "$RUNS/qa-closed-$j" "${JUDGE_MODE[@]}" "${CACHE[@]}" "${QUIET[@]}"
    step "QA BoolQ: $j"
    oversight-bench run --judge "$(judge "$j")" --agent "$AGENT" --tasks boolq \
      --protocols qa_without_article,qa_with_article --limit "$QA_N" --answer-order both --output "$RUNS/qa-boolq-$j" "${JUDGE_MODE[@]}" "${CACHE[@]}" "${QUIET[@]}"
  done
}

# The same QA transcripts judged by the position-debiased judge (both orders' probabilities averaged,
# not the paper's judge): every probability it needs is one the qa step stored, so no model call is made.
debias() {
  for j in "${JUDGES[@]}"; do
    for t in closed boolq; do
      step "QA $t, debiased: $j"
      oversight-bench judge --from "$RUNS/qa-$t-$j" --judge "$(judge "$j"),debias=true" "${JUDGE_MODE[@]}" \
        --cache-from "$RUNS/qa-$t-$j" --output "$RUNS/qa-$t-$j-debiased" "${QUIET[@]}"
    done
  done
}

# The nyu-2023 suite (human and GPT-4 debaters, live human judges): every judge on the same rooms.
nyu() {
  for j in "${JUDGES[@]}"; do
    step "nyu-2023: $j"
    oversight-bench judge --suite nyu-2023 --judge "$(judge "$j")" --limit "$NYU_N" --skip-long \
      --output "$RUNS/nyu-$j" "${JUDGE_MODE[@]}" "${CACHE[@]}" "${QUIET[@]}"
  done
}

# The local 1.5B agent debates and consults on one extractive (BoolQ) and one closed (MMLU) task,
# one run per task (AGENT_TASKS), so two lanes can each take one.
agent() {
  for t in "${AGENT_TASKS[@]}"; do
    step "agent debates + consultancies on $t, judge $LIVE_JUDGE"
    oversight-bench run --judge "$(judge "$LIVE_JUDGE")" --agent "$AGENT" --tasks "$t" \
      --protocols debate,consultancy --limit "$AGENT_N" "${AGENT_OPTS[@]}" "${JUDGE_MODE[@]}" --output "$RUNS/agent-$t" "${CACHE[@]}" "${QUIET[@]}"
  done
}

# The same transcripts re-judged by the other judges (judge calls only).
rejudge() {
  for t in "${AGENT_TASKS[@]}"; do
    for j in "${JUDGES[@]}"; do
      [ "$j" = "$LIVE_JUDGE" ] && continue
      step "re-judge agent transcripts on $t: $j"
      oversight-bench judge --from "$RUNS/agent-$t" --judge "$(judge "$j")" "${JUDGE_MODE[@]}" --output "$RUNS/agent-$t-$j" "${CACHE[@]}" "${QUIET[@]}"
    done
  done
}

# Outside the paper (issue 34.8): is it the debate or the verified evidence that helps the judge?
# The khan-2024 suite (Khan et al.'s 40 GPT-4o debates, mirrored with the answers and the debaters'
# names swapped: 80 rooms, the correct debater "Debater A" in half) judged by each judge, position-
# debiased (both orders' answer probabilities averaged), as the debate it is, then the same rooms as
# `verified_evidence` (the verified quotes alone), `debate_unverified` (the quotes without the
# checker's marks) and `qa_without_article` (the question and both answers only: the paper's QA
# prompt): judge calls only, the derived ones paired with the debate per question by `report`.
# Smallest judge first; a judge's four runs in that order.
khan() {
  local limit=()
  [ -n "${KHAN_LIMIT:-}" ] && limit=(--limit "$KHAN_LIMIT")
  for j in "${JUDGES[@]}"; do
    step "khan-2024 debate, debiased: $j"
    oversight-bench judge --suite khan-2024 --judge "$(judge "$j"),debias=true" "${limit[@]}" \
      --output "$RUNS/khan-$j" "${JUDGE_MODE[@]}" "${CACHE[@]}" "${QUIET[@]}"
    for p in verified_evidence debate_unverified qa_without_article; do
      step "khan-2024 as $p, debiased: $j"
      oversight-bench judge --from "$RUNS/khan-$j" --as "$p" --judge "$(judge "$j"),debias=true" \
        --output "$RUNS/khan-$j-$p" "${JUDGE_MODE[@]}" "${CACHE[@]}" "${QUIET[@]}"
    done
  done
}

# Debater Elo: one-round cross-play debates (App. E), best-of-1, judged by the strongest local judge,
# position-debiased. Every game goes to the fit (no self-play: Fig. 4's accuracy axis is not drawn),
# between the debaters most likely to be told apart at this CPU (ELO_DEBATERS).
elo() {
  step "Elo cross-play"
  local debaters
  debaters=$(IFS=,; echo "${ELO_DEBATERS[*]/#/llamacpp:}")
  oversight-bench elo --debaters "$debaters" --judge "llamacpp:qwen2.5-coder-1.5b,debias=true" \
    --tasks boolq,mmlu --pairings "$ELO_PAIRS" --selfplay 0 --output "$RUNS/elo"
}

# The tables: judge rows (QA, suite and agent cells), the human reference, Elo on its own. Cells of
# the committed leaderboard that no run here measures are carried over (marked †, with the build they
# came from; CARRY=0 rebuilds from these runs alone), so the steps can run on different machines.
# It rebuilds the committed board in place, hence --force (the build refuses a folder holding a
# leaderboard without it, and any other non-empty folder always): results.json stays until the build
# replaces it, so the folder is still recognised as a leaderboard; transcript pages the new build
# does not link are deleted by the build itself.
# Then the evidence: `leaderboard` writes leaderboards/rooms-cells.json (each cell's decisions, its
# run folders relative to leaderboards/) and links every cell to rooms/cells/<cell>/index.html;
# it writes those room lists, paged, and every room's page into leaderboards/rooms/ through the
# viewer plugin (an earlier build's pages replaced, none left stale). The nyu-2023 import lives in the user cache: a link to it under $RUNS keeps
# every path the committed files name relative to the repository. Cross-play games count in no cell
# (Elo is its own table), so their rooms are not exported.
board() {
  step "leaderboard"
  local carry=() board=${BOARD:-leaderboards} stance=()
  [ -n "${STANCE_CHECK:-}" ] && stance=(--stance-check "$STANCE_CHECK")
  if [ "${CARRY:-1}" != 0 ] && [ -f leaderboards/results.json ]; then
    cp leaderboards/results.json "$RUNS/previous-results.json"
    carry=(--carry "$RUNS/previous-results.json")
  fi
  rm -rf "$board/index.html" "$board/leaderboard.md" "$board/fig2_judges.png" "$board/report"  # generated
  local nyu_source
  nyu_source="$(python -c "from oversight_bench.locations import cache_dir; print(cache_dir('suites'))")/nyu-2023-1"  # imported by nyu
  if [ -d "$nyu_source" ]; then ln -sfn "$nyu_source" "$RUNS/suite-nyu-2023"; fi
  local dirs=()
  for d in "$RUNS"/qa-* "$RUNS"/nyu-* "$RUNS/suite-nyu-2023" "$RUNS"/agent* "$RUNS"/khan-* "$RUNS/elo/crossplay"; do
    [ -d "$d" ] || continue   # a step that was not run
    if ! flock -n -s "$d" true; then  # a writer holds the folder's lock (rundir.store.in_use): not finished
      echo "   left out $d: still being written; run board again once it has finished" >&2; continue
    fi
    dirs+=("$d")
  done
  # the build writes its cells' room pages into leaderboards/rooms/ too (an earlier build's pages replaced)
  oversight-bench leaderboard "${dirs[@]}" --output "$board" --force "${carry[@]}" "${stance[@]}"
}

for s in "${STEPS[@]}"; do "$s"; done
step "done: ${STEPS[*]}"
