#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Model check of the slot lease (tests/model/lease.pml, see README.md beside it) with SPIN.
#
# Every configuration below is searched exhaustively and must hold; every mutant must produce a
# counterexample (an assertion violated), which is printed as a trail. Exit 0 only if both hold.
#
# Usage: tests/model/check.sh [WORK_DIR]   (default build/model; needs spin and gcc)
# MODEL_JOBS: searches run at once (default 2).
set -euo pipefail

MODEL="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lease.pml"
readonly MODEL
readonly WORK="${1:-build/model}"
readonly JOBS="${MODEL_JOBS:-2}"

# name | spin defines. Each configuration bounds a different mix of faults so that each search
# is exhaustive in well under a minute; lost responses and crashes without restart are in all.
readonly CONFIGS=(
  "crash|-DNH=2 -DTICKS=4 -DRESTARTS=1 -DPAUSES=1 -DLATE=0 -DNJ=0"
  "clock|-DNH=2 -DTICKS=4 -DRESTARTS=0 -DPAUSES=1 -DLATE=0 -DNJ=1"
  "late|-DNH=2 -DTICKS=4 -DRESTARTS=1 -DPAUSES=0 -DLATE=1 -DNJ=0"
  "three|-DNH=3 -DTICKS=4 -DRESTARTS=0 -DPAUSES=0 -DLATE=0 -DNJ=0"
)
# mutant | the configuration it must fail in.
readonly MUTANTS=(
  "ACQUIRE_FLOOR_NOW|crash"
  "RELEASE_MINUS_ONE|crash"
  "NO_CEILING_CHECK|crash"
  "KEEP_ISSUING|crash"
  "RENEW_LOWERS|clock"
  "TAKE_OVER_KEY|crash"
)

defines_of() {  # defines_of CONFIG_NAME
  local entry
  for entry in "${CONFIGS[@]}"; do
    if [[ "${entry%%|*}" == "$1" ]]; then echo "${entry#*|}"; return; fi
  done
  echo "no configuration named $1" >&2
  return 1
}

# search NAME DEFINES...: builds and runs one exhaustive search in $WORK/NAME; its summary goes
# to $WORK/NAME/pan.out, the exit status of pan to $WORK/NAME/rc.
search() {
  local name="$1" dir="$WORK/$1" rc=0
  shift
  rm -rf "$dir"
  mkdir -p "$dir"
  cp "$MODEL" "$dir/lease.pml"
  (
    cd "$dir"
    echo "$*" > defines
    spin -a "$@" lease.pml > spin.out 2>&1
    # SAFETY: assertions only; COLLAPSE: state vectors stored compressed (exhaustive, less memory).
    # -w: pan.c is generated code, its warnings are not ours.
    gcc -O2 -w -DSAFETY -DCOLLAPSE -o pan pan.c
    # -m: search depth limit, far above the deepest path (about 140 steps); -w25: hash table.
    ./pan -m10000 -w25 > pan.out 2>&1
  ) || rc=$?
  echo "$rc" > "$dir/rc"
}

summary() {  # summary DIR: "states N, depth D, T s" from a pan.out
  local out="$1/pan.out" states depth secs
  states="$(grep -oE '^ *[0-9]+ states, stored' "$out" | grep -oE '[0-9]+' | head -1 || true)"
  depth="$(grep -oE 'depth reached [0-9]+' "$out" | grep -oE '[0-9]+' || true)"
  secs="$(grep -oE 'elapsed time [0-9.e+]+' "$out" | awk '{print $3}' || true)"
  echo "${states:-?} states, depth ${depth:-?}, ${secs:-?} s"
}

mkdir -p "$WORK"
echo "spin: $(spin -V)"
start=$SECONDS
running=0
for entry in "${CONFIGS[@]}"; do
  if [[ $running -ge $JOBS ]]; then wait -n || true; running=$((running - 1)); fi
  # shellcheck disable=SC2046  # the defines are separate words on purpose
  search "${entry%%|*}" $(defines_of "${entry%%|*}") &
  running=$((running + 1))
done
for entry in "${MUTANTS[@]}"; do
  if [[ $running -ge $JOBS ]]; then wait -n || true; running=$((running - 1)); fi
  # shellcheck disable=SC2046
  search "mutant-${entry%%|*}" -DMUTANT_"${entry%%|*}" $(defines_of "${entry#*|}") &
  running=$((running + 1))
done
wait || true

failed=()
for entry in "${CONFIGS[@]}"; do
  name="${entry%%|*}"
  dir="$WORK/$name"
  verdict="holds"
  if [[ "$(cat "$dir/rc")" != "0" ]] || ! grep -qE 'errors: 0$' "$dir/pan.out"; then
    verdict="FAILED"
  elif grep -q 'max search depth too small' "$dir/pan.out"; then
    verdict="FAILED (search cut at depth: raise -m)"
  fi
  printf '%-26s %-8s %s  [%s]\n' "$name" "$verdict" "$(summary "$dir")" "$(cat "$dir/defines")"
  if [[ "$verdict" != "holds" ]]; then
    failed+=("$name")
    cat "$dir/spin.out" "$dir/pan.out"
    if [[ -f "$dir/lease.pml.trail" ]]; then
      # shellcheck disable=SC2046
      (cd "$dir" && spin -t -p -g $(cat defines) lease.pml) | tail -n 80
    fi
  fi
done
for entry in "${MUTANTS[@]}"; do
  name="mutant-${entry%%|*}"
  dir="$WORK/$name"
  if [[ "$(cat "$dir/rc")" == "0" ]] && grep -q 'assertion violated' "$dir/pan.out" &&
     [[ -f "$dir/lease.pml.trail" ]]; then
    printf '%-26s %-8s %s\n' "$name" "caught" "$(grep -m1 -oE 'assertion violated.*' "$dir/pan.out")"
    # The counterexample, step by step (the store's record and the holders' views at its end).
    # shellcheck disable=SC2046
    (cd "$dir" && spin -t -p -g $(cat defines) lease.pml) > "$dir/trail.txt" 2>&1 || true
    echo "  trail: $(grep -cE '^ *[0-9]+:' "$dir/trail.txt") steps in $dir/trail.txt"
  else
    printf '%-26s %-8s %s\n' "$name" "MISSED" "$(summary "$dir"): the model no longer catches this bug"
    cat "$dir/spin.out" "$dir/pan.out"
    failed+=("$name")
  fi
done
echo "model check took $((SECONDS - start)) s"
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "model check failed: ${failed[*]}" >&2
  exit 1
fi
