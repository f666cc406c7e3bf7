#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Model check of the generator's word protocol with the fetch_add fast path
# (tests/model/generator.pml, see README.md beside it) with SPIN.
#
# Every configuration below is searched exhaustively and must hold; every mutant must produce a
# counterexample (an assertion violated), kept as a trail. Exit 0 only if both hold.
#
# Usage: tests/model/generator_check.sh [WORK_DIR]   (default build/model-generator; needs spin
# and gcc). MODEL_JOBS: searches run at once (default 2).
set -euo pipefail

MODEL="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/generator.pml"
readonly MODEL
readonly WORK="${1:-build/model-generator}"
readonly JOBS="${MODEL_JOBS:-2}"

# name | spin defines. Every configuration has 2 callers and a clock of 1 ms ticks from tick 1
# (the first past the floor); each adds one thing to `plain` (README.md has their states and
# times). A mutant's search stops at its first counterexample, within a second.
readonly CONFIGS=(
  "plain|-DS=2 -DCALLS=3 -DTICKS=3 -DDRIFT=0 -DNCL=1"
  "seq3|-DS=3 -DCALLS=3 -DTICKS=3 -DDRIFT=0 -DNCL=1 -DMAXT=2"
  "drift|-DS=2 -DCALLS=3 -DCALLS1=2 -DTICKS=3 -DDRIFT=1 -DNCL=2"
  "ceiling|-DS=2 -DCALLS=3 -DCALLS1=2 -DTICKS=3 -DDRIFT=0 -DNCL=1 -DC0=1 -DCMAX=3"
  "back|-DS=2 -DCALLS=2 -DT0=2 -DTICKS=2 -DDRIFT=0 -DNCL=1 -DBACKS=1 -DBACK=2 -DLB=1 -DWAITS=1"
)
# mutant | the configuration it must fail in.
readonly MUTANTS=(
  "OLD_VALUE|plain"
  "NO_FAST_LEAD|plain"
  "STALE_VIEW|plain"
  "NO_CHOSEN|plain"
  "CLOSE_CLAMPED|ceiling"
  "GIVE_BACK_ANY|plain"
)

# SAFETY: assertions only; COLLAPSE: state vectors stored compressed (exhaustive, less memory);
# MEMLIM: pan stops (and the search fails as not completed) past 3000 MB. -w: pan.c is generated
# code, its warnings are not ours.
readonly PAN_CC="-O2 -w -DSAFETY -DCOLLAPSE -DMEMLIM=3000"
# -m: search depth limit, far above the deepest path (about 200 steps); -w25: hash table.
readonly PAN_RUN="-m20000 -w25"
readonly LABEL="generator model check"

# shellcheck source=tests/model/searches.sh
source "$(dirname "$MODEL")/searches.sh"
run_searches
