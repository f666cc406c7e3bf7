#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The static tool (-DCOSID_STATIC_CLI=ON): .ci/run's package stage, also fine to run by hand as
# root (bash tests/package/static_cli.sh). examples/container/Dockerfile builds the image's
# binary with the same configure and build commands.
#
# Builds cosid alone (no tests, examples or store), checks that it has no dynamic section (no
# NEEDED library, no loader), then runs it the way a FROM scratch image does: chrooted into a
# directory that holds only the binary and an empty state directory owned by 65532, as uid and
# gid 65532 with no supplementary group, with an empty environment. It must print 3 decimal ids
# and exit 0. Then a configuration that cannot give a static tool must be refused.
#
# Everything goes to build/static-cli/ (removed first). CXX picks the compiler (default g++).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
readonly ROOT="$PWD"
readonly WORK="$ROOT/build/static-cli"
readonly CXX="${CXX:-g++}"
rm -rf "$WORK"

fail() {
  echo "static-cli: $*" >&2
  exit 1
}

[[ $(id -u) == 0 ]] || fail "must run as root (it chroots and drops to uid 65532)"

cmake -S "$ROOT" -B "$WORK/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$CXX" \
  -DCOSID_STATIC_CLI=ON -DCOSID_BUILD_TESTS=OFF -DCOSID_BUILD_EXAMPLES=OFF -DCOSID_BUILD_TCK=OFF \
  -DCOSID_WITH_ZOOKEEPER=OFF -DCOSID_WERROR=ON
cmake --build "$WORK/build" -j 2 --target cosid_cli
binary="$WORK/build/src/cli/cosid"

# No dynamic section at all: readelf -d prints "There is no dynamic section in this file."
dynamic="$(readelf -d "$binary")"
if grep -q 'NEEDED\|INTERP' <<<"$dynamic$(readelf -l "$binary")"; then
  echo "$dynamic" >&2
  fail "$binary needs a loader or shared libraries; it should be fully static"
fi
echo "static-cli: $binary has no dynamic section ($(tr -s ' \n' ' ' <<<"$dynamic"))"

root="$WORK/root"
mkdir -p "$root/state"
cp "$binary" "$root/cosid"
chown 65532:65532 "$root/state"
# chroot by its full path: env -i clears PATH too.
chroot="$(command -v chroot)"
out="$(env -i "$chroot" --userspec=65532:65532 --groups=65532 "$root" \
         /cosid next -n 3 --slot 1 --state-file /state/cosid.state)" ||
  fail "the static cosid, chrooted as 65532 with an empty environment, exited $?"
if [[ "$(grep -cxE '[0-9]+' <<<"$out")" != 3 || "$(wc -l <<<"$out")" != 3 ]]; then
  echo "$out" >&2
  fail "the static cosid printed the above, not 3 decimal ids"
fi
[[ -f "$root/state/cosid.state" ]] || fail "the static cosid wrote no /state/cosid.state"
echo "static-cli: chrooted as 65532, no environment, no libraries: 3 ids, exit 0"

log="$WORK/refused.log"
if cmake -S "$ROOT" -B "$WORK/refused" -G Ninja -DCOSID_STATIC_CLI=ON -DCOSID_WITH_ZOOKEEPER=ON \
     > "$log" 2>&1; then
  fail "COSID_STATIC_CLI=ON with COSID_WITH_ZOOKEEPER=ON was accepted"
fi
grep -q 'COSID_STATIC_CLI=ON cannot be combined with COSID_WITH_ZOOKEEPER=ON' "$log" ||
  { cat "$log"; fail "see above"; }
echo "static-cli: COSID_STATIC_CLI=ON with the ZooKeeper store refused, saying why"
echo "static-cli: all checks passed"
