# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Sourced by check.sh and generator_check.sh: runs a model's exhaustive searches, two at a time,
# and prints a verdict line for each. Every configuration must hold (no error, the search not
# cut at its depth limit nor stopped at its memory limit); every mutant must produce a
# counterexample (an assertion violated), which is kept as a trail.
#
# The sourcing script sets, before calling run_searches:
#   MODEL     the .pml file (copied into each search's directory)
#   WORK      the work directory: one subdirectory per search
#   JOBS      searches run at once
#   CONFIGS   "name|spin defines" for each configuration that must hold
#   MUTANTS   "MUTANT_NAME|configuration": the mutant is searched with that configuration's
#             defines and -DMUTANT_NAME
#   PAN_CC    gcc flags for the verifier (pan.c)
#   PAN_RUN   pan's options
#   LABEL     what the closing lines call the run ("model check")
# run_searches returns 1 if a configuration failed or a mutant was missed.

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
  local name="$1" dir="$WORK/$1" rc=0 pml
  pml="$(basename "$MODEL")"
  shift
  rm -rf "$dir"
  mkdir -p "$dir"
  cp "$MODEL" "$dir/$pml"
  (
    cd "$dir"
    echo "$*" > defines
    spin -a "$@" "$pml" > spin.out 2>&1
    # shellcheck disable=SC2086  # the flags are separate words on purpose
    gcc $PAN_CC -o pan pan.c
    # shellcheck disable=SC2086
    ./pan $PAN_RUN > pan.out 2>&1
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

run_searches() {
  local entry name dir verdict running=0 start pml
  local failed=()
  pml="$(basename "$MODEL")"
  mkdir -p "$WORK"
  echo "spin: $(spin -V)"
  start=$SECONDS
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

  for entry in "${CONFIGS[@]}"; do
    name="${entry%%|*}"
    dir="$WORK/$name"
    verdict="holds"
    if [[ "$(cat "$dir/rc")" != "0" ]] || ! grep -qE 'errors: 0$' "$dir/pan.out"; then
      verdict="FAILED"
    elif grep -q 'max search depth too small' "$dir/pan.out"; then
      verdict="FAILED (search cut at depth: raise -m)"
    elif grep -q 'Search not completed' "$dir/pan.out"; then
      verdict="FAILED (search not completed: memory limit)"
    fi
    printf '%-26s %-8s %s  [%s]\n' "$name" "$verdict" "$(summary "$dir")" "$(cat "$dir/defines")"
    if [[ "$verdict" != "holds" ]]; then
      failed+=("$name")
      cat "$dir/spin.out" "$dir/pan.out"
      if [[ -f "$dir/$pml.trail" ]]; then
        # shellcheck disable=SC2046
        (cd "$dir" && spin -t -p -g $(cat defines) "$pml") | tail -n 80
      fi
    fi
  done
  for entry in "${MUTANTS[@]}"; do
    name="mutant-${entry%%|*}"
    dir="$WORK/$name"
    if [[ "$(cat "$dir/rc")" == "0" ]] && grep -q 'assertion violated' "$dir/pan.out" &&
       [[ -f "$dir/$pml.trail" ]]; then
      printf '%-26s %-8s %s\n' "$name" "caught" \
        "$(grep -m1 -oE 'assertion violated.*' "$dir/pan.out")"
      # The counterexample, step by step (the globals at its end).
      # shellcheck disable=SC2046
      (cd "$dir" && spin -t -p -g $(cat defines) "$pml") > "$dir/trail.txt" 2>&1 || true
      echo "  trail: $(grep -cE '^ *[0-9]+:' "$dir/trail.txt") steps in $dir/trail.txt"
    else
      printf '%-26s %-8s %s\n' "$name" "MISSED" \
        "$(summary "$dir"): the model no longer catches this bug"
      cat "$dir/spin.out" "$dir/pan.out"
      failed+=("$name")
    fi
  done
  echo "$LABEL took $((SECONDS - start)) s"
  if [[ ${#failed[@]} -gt 0 ]]; then
    echo "$LABEL failed: ${failed[*]}" >&2
    return 1
  fi
}
