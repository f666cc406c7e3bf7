#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The generator's before/after figures in one sitting, as one compact table: run it on the code
# before a change and after it, on the same machine, one right after the other (see README.md
# here, "generator_figures.sh"). Timing only; nothing here is a test.
#
#   tests/bench/generator_figures.sh                  # from the source tree, after both builds:
#   cmake --preset bench && cmake --build --preset bench
#   cmake --preset release && cmake --build build/release -j2 --target alloc_test
#
# Environment: BENCH_DIR (default build/bench), RELEASE_DIR (default build/release, for
# alloc_test; skipped when absent), REPS (default 3: every figure is the median of REPS runs,
# interleaved), SECONDS_PER_RUN (default 5, for `cosid bench`), BUSY_LOOPS (default 2).
# Needs jq.
set -eu

BENCH_DIR=${BENCH_DIR:-build/bench}
RELEASE_DIR=${RELEASE_DIR:-build/release}
REPS=${REPS:-3}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-5}
BUSY_LOOPS=${BUSY_LOOPS:-2}
COSID=$BENCH_DIR/src/cli/cosid
COSID_BENCH=$BENCH_DIR/tests/bench/cosid_bench
CLOCK_STEP_BENCH=$BENCH_DIR/tests/bench/cosid_clock_step_bench
ALLOC_TEST=$RELEASE_DIR/tests/alloc_test

for tool in "$COSID" "$COSID_BENCH" "$CLOCK_STEP_BENCH"; do
  if [ ! -x "$tool" ]; then
    echo "generator_figures: $tool is missing: build the bench preset first" \
      "(cmake --preset bench && cmake --build --preset bench)" >&2
    exit 2
  fi
done
if ! command -v jq >/dev/null 2>&1; then
  echo "generator_figures: needs jq (apt-get install jq)" >&2
  exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/cosid-figures-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# The median of the numbers on stdin, one a line.
median() {
  sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else print v[int((NR + 1) / 2)] }'
}
# The values of stdin, one a line, joined by spaces.
joined() { tr '\n' ' ' | sed 's/ $//'; }

echo "# generator figures: $(date -u '+%Y-%m-%d %H:%M:%S UTC'), commit" \
  "$(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD 2>/dev/null || echo '+changes')," \
  "nproc $(nproc), load average $(cut -d' ' -f1-3 /proc/loadavg); medians of $REPS"

# 1. next() against the floor, and p99.9 under renewals (Google Benchmark, REPS repetitions).
"$COSID_BENCH" --benchmark_filter='BM_NextVsFloor|BM_LatencyUnderRenewal' \
  --benchmark_min_time=1 --benchmark_repetitions="$REPS" --benchmark_format=json \
  >"$work/cosid_bench.json" 2>"$work/cosid_bench.err"
echo
echo "| figure | median | runs |"
echo "| --- | --- | --- |"
for threads in 1 2 4; do
  values=$(jq -r --argjson threads "$threads" '.benchmarks[] | select(.run_type == "iteration"
      and (.name | startswith("BM_NextVsFloor/")) and .threads == $threads) | .next_over_floor' \
    "$work/cosid_bench.json")
  printf '| BM_NextVsFloor next_over_floor, %s thread(s) | %.3f | %s |\n' "$threads" \
    "$(echo "$values" | median)" "$(echo "$values" | xargs printf '%.3f\n' | joined)"
done
values=$(jq -r '.benchmarks[] | select(.run_type == "iteration" and
    (.name | startswith("BM_LatencyUnderRenewal"))) | ."p99.9_ns"' "$work/cosid_bench.json")
printf '| BM_LatencyUnderRenewal p99.9 ns | %s | %s |\n' "$(echo "$values" | median)" \
  "$(echo "$values" | joined)"

# 2. Heap allocations per id: alloc_test counts them (it asserts 0; it does not time).
if [ -x "$ALLOC_TEST" ]; then
  if "$ALLOC_TEST" >"$work/alloc.out" 2>&1; then
    echo "| heap allocations per id (alloc_test) | 0 | $(grep -c '^\[       OK \]' "$work/alloc.out") tests passed |"
  else
    echo "| heap allocations per id (alloc_test) | FAILED | see $ALLOC_TEST output |"
    grep -E 'Failure|Expected|Which is' "$work/alloc.out" | head -5 >&2 || true
  fi
else
  echo "| heap allocations per id (alloc_test) | not built | $ALLOC_TEST |"
fi

# 3. cosid bench against the sequence limit, default settings, with and without busy loops;
# the runs interleaved so that a slow stretch of the machine falls on all of them alike. A ratio
# counts the ticks borrowed ahead of the clock at the end of the run too: end_lead_ms / (1000 x
# SECONDS_PER_RUN) of it is that borrow, not ticks filled.
rep=1
while [ "$rep" -le "$REPS" ]; do
  for threads in 1 2 4; do
    for loops in 0 "$BUSY_LOOPS"; do
      "$COSID" bench --threads "$threads" --seconds "$SECONDS_PER_RUN" --busy-loops "$loops" \
        >"$work/run.json" 2>"$work/run.err" || {
        echo "generator_figures: cosid bench --threads $threads --busy-loops $loops failed:" \
          "$(cat "$work/run.err")" >&2
        echo '{"ratio":"failed","end_lead_ms":"-"}' >"$work/run.json"
      }
      jq -r .ratio "$work/run.json" >>"$work/ratio.$threads.$loops"
      jq -r '.end_lead_ms // "-"' "$work/run.json" >>"$work/lead.$threads.$loops"
    done
  done
  rep=$((rep + 1))
done
for loops in 0 "$BUSY_LOOPS"; do
  for threads in 1 2 4; do
    printf '| cosid bench ratio, %s thread(s), %s busy loops (%s s) | %s | %s (end_lead_ms %s) |\n' \
      "$threads" "$loops" "$SECONDS_PER_RUN" \
      "$(grep -v failed "$work/ratio.$threads.$loops" | median)" \
      "$(joined <"$work/ratio.$threads.$loops")" "$(joined <"$work/lead.$threads.$loops")"
  done
done

# 4. A clock step back of 1 s and of 5 s (ahead/2), paced and at saturation: one run each.
"$CLOCK_STEP_BENCH" --benchmark_format=json >"$work/step.json" 2>"$work/step.err"
echo
echo "| clock step back | max call us | calls > 1 ms | failed (codes) | repeated | not increasing | max lead ms | ratio after | before the step: max call us, calls > 1 ms, ratio |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
jq -r '.benchmarks[] | select(.run_type == "iteration") |
  (.name | capture("step_ms:(?<s>[0-9]+)/threads:(?<t>[0-9]+)/per_ms:(?<p>[0-9]+)")) as $a |
  [ ($a.s + " ms, " + (if $a.p == "0" then $a.t + " thread(s) saturated" else "paced " + $a.p + "/ms" end)),
    (.max_call_us | floor | tostring), (.calls_over_1ms | tostring),
    ((.failed | tostring) + (to_entries | map(select(.key | startswith("fail_"))) |
      if length == 0 then "" else " (" + (map((.key | ltrimstr("fail_")) + " " + (.value | tostring)) | join(", ")) + ")" end)),
    (.repeated | tostring), (.not_increasing | tostring), (.max_lead_ms | tostring),
    (.ratio_after * 1000 | round / 1000 | tostring),
    ((.max_call_us_before | floor | tostring) + ", " + (.calls_over_1ms_before | tostring) + ", " +
     (.ratio_before * 1000 | round / 1000 | tostring)) ] | "| " + join(" | ") + " |"' "$work/step.json"
