#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Packaging check: .ci/run's package stage, also fine to run by hand (bash tests/package/check.sh).
#
# For a static and a shared build of cosid (library and CLI only, warnings as errors):
#   install    cmake --install into a fresh prefix; the headers, library, CMake package,
#              pkg-config file and CLI must be there, and the CLI must run
#   exports    shared only: the library exports cosid's API and nothing else (no std::
#              templates, no cosid::detail), counted from nm -D
#   find_package   tests/package/find_package builds consumer.cc against the prefix and runs it;
#              asking for a version of another major must fail (SameMajorVersion); a shared
#              consumer loads libcosid.so.0.MINOR (before 1.0 each minor is an ABI of its own)
#   pkg-config consumer.cc compiled and linked with `pkg-config --cflags --libs cosid`, and run
#   zookeeper  when the ZooKeeper C client is installed, both builds have the store
#              (-DCOSID_WITH_ZOOKEEPER=ON): its library, header, export set and
#              FindZooKeeperC.cmake are installed, a shared store exports its API and libcosid.so
#              none of it, and tests/package/zookeeper builds zookeeper_consumer.cc with
#              find_package(cosid COMPONENTS zookeeper) and runs it (it connects to nothing)
#   tck        tests/package/tck links the installed cosid::tck and runs the lease kit against
#              MemoryLeaseStore (GoogleTest is installed where this runs: .ci/run's deps)
#   C only   examples/c/basic.c from a C-only project (tests/package/c_find_package) and with
#              `cc ... $(pkg-config --static --cflags --libs cosid)`, linked by the C compiler
# Then once: tests/package/add_subdirectory vendors this checkout and runs consumer.cc (and
# zookeeper_consumer.cc, with the store), and the vendored build must contain neither the CLI nor
# the tests nor the conformance kit, nor install anything; tests/package/c_add_subdirectory
# vendors it from a C-only project. And an install without the store (the static build again,
# -DCOSID_WITH_ZOOKEEPER=OFF) must lack its header and refuse the component with its reason.
#
# Everything goes to build/package/ (removed first). CXX picks the compiler (default g++). On CI
# (CI=true) the ZooKeeper C client must be installed; elsewhere its absence only skips its checks.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
readonly ROOT="$PWD"
readonly WORK="$ROOT/build/package"
readonly CXX="${CXX:-g++}"
readonly CC="${CC:-gcc}"
readonly HERE="$ROOT/tests/package"
rm -rf "$WORK"

fail() {
  echo "package: $*" >&2
  exit 1
}

# check_exports LIB [std]: every dynamic symbol LIB defines is in namespace cosid (functions,
# typeinfo, vtables) or a C function named cosid_*, and none is in cosid::detail. With `std`, the
# standard library's template instantiations LIB uses may be exported too: a demangled
# instantiation starts with std:: or __gnu_cxx::, or with its return type and then one of them
# ("void std::vector<...>::_M_realloc_insert<...>(...)"); a function of LIB's own outside
# namespace cosid still fails.
check_exports() {
  local symbols count bad allowed='^((typeinfo( name)?|vtable|VTT) for )?cosid::|^cosid_' also=""
  local std='^((typeinfo( name)?|vtable|VTT) for )?(std|__gnu_cxx)::|^[^(]* (std|__gnu_cxx)::'
  symbols="$(nm -D --defined-only "$1" | c++filt | cut -d' ' -f3-)"
  count="$(grep -c . <<<"$symbols")"
  if [[ ${2:-} == std ]]; then
    allowed+="|$std"
    also=" or, $(grep -cE "$std" <<<"$symbols" || true) of them, the standard library's"
  fi
  bad="$(grep -vE "$allowed" <<<"$symbols" || true)"
  bad+="$(grep -E 'cosid::detail::' <<<"$symbols" || true)"
  if [[ -n "$bad" ]]; then
    echo "$bad" >&2
    fail "$1 exports the symbols above, which are not cosid's public API"
  fi
  echo "exports: $(basename "$1"): $count symbols, all cosid's public API$also"
}

# The store's entry points, which libcosid_zookeeper.so exports and libcosid.so must not.
readonly ZK_ENTRIES=(ZooKeeperLeaseStore::open parse_zookeeper_options add_zookeeper_store
                    init_zookeeper_store)

# check_zookeeper_api LIB yes|no: LIB exports every entry point of the store (yes) or none (no).
check_zookeeper_api() {
  local symbols entry
  symbols="$(nm -D --defined-only "$1" | c++filt)"
  for entry in "${ZK_ENTRIES[@]}"; do
    if grep -q "cosid::lease::$entry(" <<<"$symbols"; then
      [[ $2 == yes ]] || fail "$1 exports cosid::lease::$entry, which is libcosid_zookeeper's"
    else
      [[ $2 == no ]] || fail "$1 does not export cosid::lease::$entry"
    fi
  done
  echo "exports: $1 exports $([[ $2 == yes ]] && echo all || echo none) of the store's entry points"
}

# The version, from the header CMakeLists.txt reads it from; the soname carries the minor before 1.0.
major="$(sed -n 's/^#define COSID_VERSION_MAJOR \([0-9]*\).*/\1/p' "$ROOT/include/cosid/version.h")"
minor="$(sed -n 's/^#define COSID_VERSION_MINOR \([0-9]*\).*/\1/p' "$ROOT/include/cosid/version.h")"
if [[ $major == 0 ]]; then soversion="0.$minor"; else soversion="$major"; fi

# Whether the ZooKeeper C client is installed, as cmake/FindZooKeeperC.cmake looks for it: the
# header and libzookeeper_mt in the compiler's search path.
zookeeper=OFF
if echo '#include <zookeeper/zookeeper.h>' | "$CXX" -x c++ -fsyntax-only - 2>/dev/null &&
   [[ "$("$CXX" -print-file-name=libzookeeper_mt.so)" == /* ]]; then
  zookeeper=ON
elif [[ "${CI:-}" == "true" ]]; then
  fail "the ZooKeeper C client is not installed (apt-get install libzookeeper-mt-dev)"
else
  echo "package: no ZooKeeper C client (libzookeeper-mt-dev): the store's checks are skipped"
fi

# check_zookeeper_install PREFIX LIBDIR ON|OFF: the store's files are installed exactly when it
# was built.
check_zookeeper_install() {
  local prefix="$1" libdir="$2" with="$3" file
  for file in "$prefix/include/cosid/zookeeper/lease_store.h" \
              "$libdir/cmake/cosid/cosidZooKeeperTargets.cmake" \
              "$libdir/cmake/cosid/FindZooKeeperC.cmake"; do
    if [[ $with == ON && ! -f "$file" ]]; then
      fail "the install with the ZooKeeper store lacks $file"
    elif [[ $with == OFF && -e "$file" ]]; then
      fail "the install without the ZooKeeper store has $file"
    fi
  done
  if [[ $with == OFF && -n "$(find "$libdir" -name 'libcosid_zookeeper*')" ]]; then
    fail "the install without the ZooKeeper store has a libcosid_zookeeper"
  fi
  echo "zookeeper store files: installed exactly as built ($with)"
}

# run_c_consumer EXE: examples/c/basic.c's program issues ids twice from one fresh state file,
# the second run from the state the first closed; each run prints 5 ids.
run_c_consumer() {
  local dir lines
  dir="$(mktemp -d)"
  lines="$("$1" "$dir/cosid.state" 1 && "$1" "$dir/cosid.state" 1)" ||
    { rm -rf "$dir"; fail "$1 failed"; }
  rm -rf "$dir"
  [[ "$(grep -cE '^[0-9]+ ' <<<"$lines")" == 10 ]] || { echo "$lines" >&2; fail "$1: not 10 ids"; }
  echo "C consumer $(basename "$1"): 10 ids"
}

cmake_configure() {  # cmake_configure SOURCE BUILD [ARGS...]
  local source="$1" build="$2"
  shift 2
  cmake -S "$source" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$CXX" \
    "$@"
}

for kind in static shared; do
  shared=OFF
  if [[ $kind == shared ]]; then shared=ON; fi
  build="$WORK/$kind/cosid"
  prefix="$WORK/$kind/prefix"

  echo "--- $kind: build cosid (library and CLI), install into $prefix ---"
  cmake_configure "$ROOT" "$build" -DBUILD_SHARED_LIBS=$shared -DCOSID_WERROR=ON \
    -DCOSID_BUILD_TESTS=OFF -DCOSID_BUILD_EXAMPLES=OFF -DCOSID_BUILD_FUZZERS=OFF \
    -DCOSID_BUILD_BENCHMARKS=OFF -DCOSID_BUILD_CLI=ON -DCOSID_WITH_ZOOKEEPER=$zookeeper
  cmake --build "$build" -j 2
  cmake --install "$build" --prefix "$prefix"

  pc_file="$(find "$prefix" -name cosid.pc)"
  libdir="$(dirname "$(dirname "$pc_file")")"
  for file in "$prefix/bin/cosid" "$libdir/cmake/cosid/cosidConfig.cmake" \
              "$libdir/cmake/cosid/cosidConfigVersion.cmake" \
              "$libdir/cmake/cosid/cosidTargets.cmake"; do
    [[ -f "$file" ]] || fail "$kind install lacks $file"
  done
  # Every public header, including those in subdirectories of include/cosid (the store's is
  # checked in check_zookeeper_install).
  while IFS= read -r header; do
    [[ -f "$prefix/include/$header" ]] || fail "$kind install lacks include/$header"
  done < <(cd "$ROOT/include" && find cosid -name '*.h' ! -name zookeeper_store.h)
  check_zookeeper_install "$prefix" "$libdir" $zookeeper
  if [[ $kind == shared ]]; then
    [[ -f "$libdir/libcosid.so" ]] || fail "no $libdir/libcosid.so"
    check_exports "$libdir/libcosid.so"
    check_zookeeper_api "$libdir/libcosid.so" no
    if [[ $zookeeper == ON ]]; then
      # The store's library is linked without cosid.map (src/zookeeper/CMakeLists.txt), so
      # the standard library's instantiations it uses are exported too, as weak symbols.
      check_exports "$libdir/libcosid_zookeeper.so" std
      check_zookeeper_api "$libdir/libcosid_zookeeper.so" yes
    fi
  else
    [[ -f "$libdir/libcosid.a" ]] || fail "no $libdir/libcosid.a"
  fi
  if ! "$prefix/bin/cosid" layout > /dev/null; then
    # A library the loader cannot find is the likely cause: the CLI is meant to need none of
    # cosid's own (it links their objects), and an installed program has no build-tree RPATH.
    grep 'not found' <<<"$(ldd "$prefix/bin/cosid")" >&2 || true
    fail "the installed CLI does not run"
  fi

  echo "--- $kind: find_package(cosid) consumer ---"
  cmake_configure "$HERE/find_package" "$WORK/$kind/find_package" -DCMAKE_PREFIX_PATH="$prefix"
  cmake --build "$WORK/$kind/find_package"
  "$WORK/$kind/find_package/consumer"
  log="$WORK/$kind/find_package_1.0.log"
  if cmake_configure "$HERE/find_package" "$WORK/$kind/find_package_1.0" \
       -DCMAKE_PREFIX_PATH="$prefix" -DCOSID_WANT_VERSION=1.0 > "$log" 2>&1; then
    fail "find_package(cosid 1.0) accepted the installed $(grep -o 'Version: .*' "$pc_file")"
  fi
  grep -q 'requested version "1.0"' "$log" || { cat "$log"; fail "see above"; }
  echo "find_package(cosid 1.0) refused, as it must"

  if [[ $zookeeper == ON ]]; then
    echo "--- $kind: find_package(cosid COMPONENTS zookeeper) consumer ---"
    cmake_configure "$HERE/zookeeper" "$WORK/$kind/zookeeper" -DCMAKE_PREFIX_PATH="$prefix"
    cmake --build "$WORK/$kind/zookeeper"
    "$WORK/$kind/zookeeper/zookeeper_consumer"
    if [[ $kind == shared ]] &&
       ! grep -q "libcosid_zookeeper.so.* => $libdir/" \
         <<<"$(ldd "$WORK/$kind/zookeeper/zookeeper_consumer")"; then
      fail "zookeeper_consumer does not load $libdir/libcosid_zookeeper.so"
    fi
  fi

  echo "--- $kind: the conformance kit, cosid::tck, run against MemoryLeaseStore ---"
  [[ -f "$libdir/libcosid_tck.a" && -f "$libdir/cmake/cosid/cosidTckTargets.cmake" ]] ||
    fail "$kind install lacks the conformance kit (libcosid_tck.a, cosidTckTargets.cmake)"
  cmake_configure "$HERE/tck" "$WORK/$kind/tck" -DCMAKE_PREFIX_PATH="$prefix"
  cmake --build "$WORK/$kind/tck"
  tck_out="$("$WORK/$kind/tck/tck_consumer")" || { echo "$tck_out" >&2; fail "the kit failed"; }
  grep -E '^\[  PASSED  \] [1-9][0-9]* tests?' <<<"$tck_out" ||
    { echo "$tck_out" >&2; fail "the kit's run passed no test"; }

  echo "--- $kind: pkg-config consumer ---"
  pc_flags="$(PKG_CONFIG_PATH="$(dirname "$pc_file")" pkg-config --cflags --libs cosid)"
  echo "pkg-config --cflags --libs cosid: $pc_flags"
  # shellcheck disable=SC2086  # the flags are words
  "$CXX" -std=c++17 -Wall -Wextra -Werror "$HERE/consumer.cc" -o "$WORK/$kind/pkg_config_consumer" \
    $pc_flags "-Wl,-rpath,$libdir"
  "$WORK/$kind/pkg_config_consumer"

  # C only: examples/c/basic.c, built and linked by the C compiler, through the CMake package
  # (project(... C)) and through pkg-config (--static: Libs.private names what a static
  # libcosid needs of the C++ runtime). Each issues ids twice from one state file.
  echo "--- $kind: C-only consumers (find_package, pkg-config) ---"
  cmake_configure "$HERE/c_find_package" "$WORK/$kind/c_find_package" -DCMAKE_C_COMPILER="$CC" \
    -DCMAKE_PREFIX_PATH="$prefix"
  cmake --build "$WORK/$kind/c_find_package"
  pc_flags="$(PKG_CONFIG_PATH="$(dirname "$pc_file")" pkg-config --static --cflags --libs cosid)"
  echo "pkg-config --static --cflags --libs cosid: $pc_flags"
  # shellcheck disable=SC2086  # the flags are words
  "$CC" -std=c99 -Wall -Wextra -Werror "$ROOT/examples/c/basic.c" \
    -o "$WORK/$kind/c_pkg_config_consumer" $pc_flags "-Wl,-rpath,$libdir"
  for exe in "$WORK/$kind/c_find_package/c_consumer" "$WORK/$kind/c_pkg_config_consumer"; do
    run_c_consumer "$exe"
  done

  # A shared install is used as one: the consumers load libcosid.so; the CLI carries its own copy.
  # (ldd's output is read whole before grep: with pipefail, `ldd | grep -q` fails whenever grep
  # exits at its match before ldd has written everything, and ldd dies of SIGPIPE.)
  for exe in "$WORK/$kind/find_package/consumer" "$WORK/$kind/pkg_config_consumer"; do
    if [[ $kind == shared ]] && ! grep -q "libcosid.so.$soversion => $libdir/" <<<"$(ldd "$exe")"; then
      fail "$exe does not load $libdir/libcosid.so.$soversion"
    fi
  done
done

echo "--- add_subdirectory(cosid) consumer ---"
cmake_configure "$HERE/add_subdirectory" "$WORK/vendored" -DCOSID_SOURCE_DIR="$ROOT" \
  -DCOSID_WITH_ZOOKEEPER=$zookeeper
cmake --build "$WORK/vendored" -j 2
"$WORK/vendored/consumer"
if [[ $zookeeper == ON ]]; then
  "$WORK/vendored/zookeeper_consumer"
fi
targets="$(cmake --build "$WORK/vendored" --target help)"
for target in cosid_cli error_test cosid_example_basic; do
  if grep -q "^$target:" <<<"$targets"; then
    fail "vendored, cosid defines $target; it should define the library only"
  fi
done
# The conformance kit is not built either, even though GoogleTest is installed here.
if grep -q "^cosid_tck:" <<<"$targets" || [[ -n "$(find "$WORK/vendored" -name 'libcosid_tck*')" ]]
then
  fail "vendored, cosid defines or builds cosid_tck; it should build the library only"
fi
# cosid_internal (for the CLI and tests) is defined but excluded from the build.
if [[ -n "$(find "$WORK/vendored" -name 'libcosid_internal*')" ]]; then
  fail "vendored, cosid built cosid_internal"
fi
# COSID_INSTALL is off: the project that vendors cosid installs nothing of it.
if grep -rq 'file(INSTALL' "$WORK/vendored/cosid" --include=cmake_install.cmake; then
  fail "vendored, cosid adds install rules"
fi
echo "--- add_subdirectory(cosid) from a C-only project ---"
cmake_configure "$HERE/c_add_subdirectory" "$WORK/c_vendored" -DCMAKE_C_COMPILER="$CC" \
  -DCOSID_SOURCE_DIR="$ROOT"
cmake --build "$WORK/c_vendored" -j 2
run_c_consumer "$WORK/c_vendored/c_consumer"
# An install without the store. With the C client, the static build is configured again without
# it, and without the CLI (whose sources would compile again without the store): the library's
# objects do not change, so nothing is rebuilt.
if [[ $zookeeper == ON ]]; then
  echo "--- static, without the ZooKeeper store: install into $WORK/without-zookeeper ---"
  cmake_configure "$ROOT" "$WORK/static/cosid" -DCOSID_WITH_ZOOKEEPER=OFF -DCOSID_BUILD_CLI=OFF
  cmake --build "$WORK/static/cosid" -j 2
  cmake --install "$WORK/static/cosid" --prefix "$WORK/without-zookeeper"
  without="$WORK/without-zookeeper"
else
  without="$WORK/static/prefix"
fi
libdir="$(dirname "$(dirname "$(find "$without" -name cosid.pc)")")"
check_zookeeper_install "$without" "$libdir" OFF
log="$WORK/zookeeper_refused.log"
if cmake_configure "$HERE/zookeeper" "$WORK/zookeeper_refused" -DCMAKE_PREFIX_PATH="$without" \
     > "$log" 2>&1; then
  fail "find_package(cosid COMPONENTS zookeeper) accepted $without, which has no store"
fi
# CMake wraps the reason across lines: compare it with its spaces and line breaks squeezed.
reason="$(tr -s ' \n' ' ' < "$log")"
# The prefix named is the install's own, not that of a package found on the way (GTest's).
grep -qF "the cosid in $without was built without the ZooKeeper store (component zookeeper)" \
  <<<"$reason" || { cat "$log"; fail "see above"; }
echo "find_package(cosid COMPONENTS zookeeper) refused an install without the store, saying why"
echo "package: all checks passed"
