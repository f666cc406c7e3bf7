#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Model check of the segment generator's hot path and activation protocol (tests/model/segment.pml,
# see README.md beside it) with SPIN: the model must hold, and each mutant must be caught.
#
# Usage: tests/model/segment_check.sh [WORK_DIR]   (default build/model-segment; needs spin, gcc)
# SEGMENT_DEFINES: the model's bounds (default -DNC=2 -DDRAWS=3 -DCLAIMS=3 -DOTHER=2, about 40 s;
# -DDRAWS=4: 72 M states, about 6 min).
set -euo pipefail

MODEL="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/segment.pml"
readonly MODEL
readonly WORK="${1:-build/model-segment}"
read -r -a DEFINES <<< "${SEGMENT_DEFINES:--DNC=2 -DDRAWS=3 -DCLAIMS=3 -DOTHER=2}"
readonly DEFINES
readonly MUTANTS=(NO_HEAD_RECHECK JUMP_AFTER_END)
# The mutants' bounds: a helper overtaken by two activations needs four draws per consumer. A
# mutant's search stops at its first counterexample, so the larger bound costs little there.
readonly MUTANT_DEFINES=(-DNC=2 -DDRAWS=4 -DCLAIMS=3 -DOTHER=2)

# run NAME DEFINES...: one exhaustive search in $WORK/NAME; prints pan's verdict lines.
# -E: the background thread may end blocked on a full ring once the consumers stop drawing; that
# is the model's bound, not a deadlock of the code (which has no blocking step there).
run() {
  local name="$1" dir="$WORK/$1"
  shift
  rm -rf "$dir" && mkdir -p "$dir" && cp "$MODEL" "$dir/"
  (cd "$dir" && spin -a "$@" segment.pml > spin.out 2>&1 &&
     gcc -O2 -w -DSAFETY -DCOLLAPSE -o pan pan.c && ./pan -E -m100000 -w24 > pan.out 2>&1) || true
}

failed=0
run model "${DEFINES[@]}"
if grep -qE 'errors: 0$' "$WORK/model/pan.out" && ! grep -q 'max search depth too small' "$WORK/model/pan.out"; then
  echo "segment model holds: $(grep -oE '[0-9]+ states, stored' "$WORK/model/pan.out") [${DEFINES[*]}]"
else
  echo "segment model FAILED [${DEFINES[*]}]" >&2
  cat "$WORK/model/pan.out" >&2
  (cd "$WORK/model" && spin -t -p -g "${DEFINES[@]}" segment.pml | tail -n 60) >&2 || true
  failed=1
fi
for mutant in "${MUTANTS[@]}"; do
  run "mutant-$mutant" -DMUTANT_"$mutant" "${MUTANT_DEFINES[@]}"
  if grep -q 'assertion violated' "$WORK/mutant-$mutant/pan.out"; then
    echo "mutant $mutant caught: $(grep -m1 -oE 'assertion violated.*' "$WORK/mutant-$mutant/pan.out")"
  else
    echo "mutant $mutant MISSED: the model no longer catches this bug" >&2
    failed=1
  fi
done
exit "$failed"
