#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# How much of the library a program that uses a static slot only links: tests/size/static_slot.cc
# (a Runtime on a static slot with a state file, one id, close) against libcosid.a.
#
#   tests/size/measure.sh [--arch x86_64|aarch64|armhf] [--limit BYTES] [--build-dir DIR]
#
# The library is built (top-level CMakeLists.txt, library only, in DIR, default build/size-ARCH)
# with -Werror, -Os -DNDEBUG -fno-exceptions -ffunction-sections -fdata-sections, the program with
# the same flags, and linked with -Wl,--gc-sections -Wl,-Map. How it counts: from the linker map,
# the input sections that were kept in the program and come from a member of libcosid.a, of three
# kinds: code (.text*), read-only data (.rodata*) and relocated read-only data (.data.rel.ro*:
# vtables, typeinfo). Unwind tables (.eh_frame, .ARM.exidx), writable data and .bss are not counted.
# An inline function or template instance that both the program and the library emit is counted
# where the linker took it from: the program's object comes first, so it is the program's. Prints
# the total, the top 15 members of libcosid.a and the top 15 functions and data by bytes (what to
# cut next); with --limit, exits 1 when the total is above BYTES.
# Cross targets use the cross compilers of cmake/toolchains/ (g++-aarch64-linux-gnu,
# g++-arm-linux-gnueabihf); the program is only linked there, not run.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
readonly ROOT
ARCH=x86_64
LIMIT=""
BUILD_DIR=""
usage() {
  echo "usage: $0 [--arch x86_64|aarch64|armhf] [--limit BYTES] [--build-dir DIR]" >&2
  exit 2
}
while [[ $# -gt 0 ]]; do
  case "$1" in
    --arch) ARCH="${2:-}"; shift 2 || usage ;;
    --limit) LIMIT="${2:-}"; shift 2 || usage ;;
    --build-dir) BUILD_DIR="${2:-}"; shift 2 || usage ;;
    *) usage ;;
  esac
done
if [[ -n "$LIMIT" && ! "$LIMIT" =~ ^[0-9]+$ ]]; then
  echo "$0: --limit takes a whole number of bytes, not '$LIMIT'" >&2
  exit 2
fi

TOOLCHAIN=()
case "$ARCH" in
  x86_64) CXX=g++ ;;
  aarch64)
    CXX=aarch64-linux-gnu-g++
    TOOLCHAIN=(-DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/toolchains/aarch64-linux-gnu.cmake") ;;
  armhf)
    CXX=arm-linux-gnueabihf-g++
    TOOLCHAIN=(-DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/toolchains/arm-linux-gnueabihf.cmake") ;;
  *) echo "$0: --arch is x86_64, aarch64 or armhf, not '$ARCH'" >&2; exit 2 ;;
esac
if ! command -v "$CXX" > /dev/null; then
  echo "$0: $CXX is not installed (Debian: apt-get install g++-${CXX%-g++})" >&2
  exit 2
fi
BUILD_DIR="${BUILD_DIR:-$ROOT/build/size-$ARCH}"
readonly FLAGS="-fno-exceptions -ffunction-sections -fdata-sections"

# The library alone; MinSizeRel is -Os -DNDEBUG. Quiet unless it fails.
log="$BUILD_DIR.log"
mkdir -p "$BUILD_DIR"
if ! { cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=MinSizeRel \
         -DCMAKE_CXX_FLAGS="$FLAGS" -DBUILD_SHARED_LIBS=OFF -DCOSID_BUILD_TESTS=OFF \
         -DCOSID_BUILD_EXAMPLES=OFF -DCOSID_BUILD_CLI=OFF -DCOSID_BUILD_TCK=OFF \
         -DCOSID_BUILD_FUZZERS=OFF -DCOSID_WITH_ZOOKEEPER=OFF -DCOSID_INSTALL=OFF -DCOSID_WERROR=ON \
         "${TOOLCHAIN[@]}" &&
       cmake --build "$BUILD_DIR" --target cosid; } > "$log" 2>&1; then
  cat "$log" >&2
  echo "$0: building the library for $ARCH failed (above)" >&2
  exit 1
fi

map="$BUILD_DIR/static_slot.map"
# shellcheck disable=SC2086  # FLAGS is a list of flags
"$CXX" -std=c++17 -Os -DNDEBUG $FLAGS -I "$ROOT/include" "$ROOT/tests/size/static_slot.cc" \
  "$BUILD_DIR/libcosid.a" -pthread -Wl,--gc-sections -Wl,-Map="$map" -o "$BUILD_DIR/static_slot"
if [[ "$ARCH" == x86_64 ]] && [[ "$(uname -m)" == x86_64 ]]; then
  "$BUILD_DIR/static_slot" > /dev/null  # it links and it works
fi

# One row per kept input section of libcosid.a: KIND BYTES MEMBER SECTION. A section whose name is
# long has its address, size and file on the next line.
rows="$BUILD_DIR/static_slot.sections"
awk '
  /^Linker script and memory map/ { in_map = 1; next }
  !in_map { next }
  function row(name, size, file,    kind) {
    if (file !~ /libcosid\.a\(/) return
    if (name ~ /^\.text/) kind = "code"
    else if (name ~ /^\.rodata/) kind = "rodata"
    else if (name ~ /^\.data\.rel\.ro/) kind = "relro"
    else return
    sub(/.*libcosid\.a\(/, "", file); sub(/\)$/, "", file)
    printf "%s %d %s %s\n", kind, strtonum_(size), file, name
  }
  function strtonum_(hex,    i, n, c) {
    n = 0; hex = tolower(hex); sub(/^0x/, "", hex)
    for (i = 1; i <= length(hex); i++) n = n * 16 + index("0123456789abcdef", substr(hex, i, 1)) - 1
    return n
  }
  pending != "" {
    if ($1 ~ /^0x/ && $2 ~ /^0x/ && NF >= 3) row(pending, $2, $3)
    pending = ""
    next
  }
  /^ \.[^ ]+/ {
    if (NF == 1) { pending = $1; next }
    if (NF >= 4 && $2 ~ /^0x/ && $3 ~ /^0x/) row($1, $3, $4)
  }
' "$map" > "$rows"

total=$(awk '{ n += $2 } END { print n + 0 }' "$rows")
by_kind=$(awk '{ k[$1] += $2 } END { printf "code %d, read-only data %d, vtables and typeinfo %d", k["code"], k["rodata"], k["relro"] }' "$rows")
echo "static_slot on $ARCH ($CXX -Os -fno-exceptions, --gc-sections): $total bytes of libcosid.a" \
     "($by_kind)"
# The top 15 by sed, which reads its input to the end: head would close the pipe early and, under
# pipefail, sort's SIGPIPE would fail the script (exit 141).
echo "top 15 members of libcosid.a:"
awk '{ m[$3] += $2 } END { for (f in m) printf "%8d  %s\n", m[f], f }' "$rows" | sort -rn |
  sed -n '1,15p'
echo "top 15 functions and data:"
awk '{ name = $4; sub(/^\.(text|rodata|data\.rel\.ro)(\.(unlikely|hot|startup|exit))?\./, "", name)
       printf "%8d  %-7s %-24s %s\n", $2, $1, $3, name }' "$rows" |
  sort -rn | sed -n '1,15p' | c++filt | cut -c1-160

if [[ -n "$LIMIT" ]]; then
  if [[ $total -gt $LIMIT ]]; then
    echo "FAILED: $total bytes is over the limit of $LIMIT bytes by $((total - LIMIT)):" \
         "a static slot links more of the library than it runs (the lists above say where)" >&2
    exit 1
  fi
  echo "within the limit of $LIMIT bytes ($((LIMIT - total)) to spare)"
fi
