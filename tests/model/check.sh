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

# SAFETY: assertions only; COLLAPSE: state vectors stored compressed (exhaustive, less memory).
# -w: pan.c is generated code, its warnings are not ours.
readonly PAN_CC="-O2 -w -DSAFETY -DCOLLAPSE"
# -m: search depth limit, far above the deepest path (about 140 steps); -w25: hash table.
readonly PAN_RUN="-m10000 -w25"
readonly LABEL="model check"

# shellcheck source=tests/model/searches.sh
source "$(dirname "$MODEL")/searches.sh"
run_searches
