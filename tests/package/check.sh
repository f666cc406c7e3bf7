#!/usr/bin/env bash
# Packaging check: .ci/run's package stage, also fine to run by hand (bash tests/package/check.sh).
#
# For a static and a shared build of cosid (library and CLI only, warnings as errors):
#   install    cmake --install into a fresh prefix; the headers, library, CMake package,
#              pkg-config file and CLI must be there, and the CLI must run
#   exports    shared only: the library exports cosid's API and nothing else (no std::
#              templates, no cosid::detail), counted from nm -D
#   find_package   tests/package/find_package builds consumer.cc against the prefix and runs it;
#              asking for a version of another major must fail (SameMajorVersion)
#   pkg-config consumer.cc compiled and linked with `pkg-config --cflags --libs cosid`, and run
# Then once: tests/package/add_subdirectory vendors this checkout and runs consumer.cc, and the
# vendored build must contain neither the CLI nor the tests, nor install anything.
#
# Everything goes to build/package/ (removed first). CXX picks the compiler (default g++).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
readonly ROOT="$PWD"
readonly WORK="$ROOT/build/package"
readonly CXX="${CXX:-g++}"
readonly HERE="$ROOT/tests/package"
rm -rf "$WORK"

fail() {
  echo "package: $*" >&2
  exit 1
}

# check_exports LIB: every dynamic symbol LIB defines is in namespace cosid (functions, typeinfo,
# vtables) or a C function named cosid_*, and none is in cosid::detail.
check_exports() {
  local symbols count bad
  symbols="$(nm -D --defined-only "$1" | c++filt | cut -d' ' -f3-)"
  count="$(grep -c . <<<"$symbols")"
  bad="$(grep -vE '^((typeinfo( name)?|vtable|VTT) for )?cosid::|^cosid_' <<<"$symbols" || true)"
  bad+="$(grep -E 'cosid::detail::' <<<"$symbols" || true)"
  if [[ -n "$bad" ]]; then
    echo "$bad" >&2
    fail "$1 exports the symbols above, which are not cosid's public API"
  fi
  echo "exports: $count symbols, all cosid's public API"
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
    -DCOSID_BUILD_BENCHMARKS=OFF -DCOSID_BUILD_CLI=ON
  cmake --build "$build" -j 2
  cmake --install "$build" --prefix "$prefix"

  pc_file="$(find "$prefix" -name cosid.pc)"
  libdir="$(dirname "$(dirname "$pc_file")")"
  for file in "$prefix/bin/cosid" "$libdir/cmake/cosid/cosidConfig.cmake" \
              "$libdir/cmake/cosid/cosidConfigVersion.cmake" \
              "$libdir/cmake/cosid/cosidTargets.cmake"; do
    [[ -f "$file" ]] || fail "$kind install lacks $file"
  done
  # Every public header, including those in subdirectories of include/cosid.
  while IFS= read -r header; do
    [[ -f "$prefix/include/$header" ]] || fail "$kind install lacks include/$header"
  done < <(cd "$ROOT/include" && find cosid -name '*.h')
  if [[ $kind == shared ]]; then
    [[ -f "$libdir/libcosid.so" ]] || fail "no $libdir/libcosid.so"
    check_exports "$libdir/libcosid.so"
  else
    [[ -f "$libdir/libcosid.a" ]] || fail "no $libdir/libcosid.a"
  fi
  "$prefix/bin/cosid" layout > /dev/null || fail "the installed CLI does not run"

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

  echo "--- $kind: pkg-config consumer ---"
  pc_flags="$(PKG_CONFIG_PATH="$(dirname "$pc_file")" pkg-config --cflags --libs cosid)"
  echo "pkg-config --cflags --libs cosid: $pc_flags"
  # shellcheck disable=SC2086  # the flags are words
  "$CXX" -std=c++17 -Wall -Wextra -Werror "$HERE/consumer.cc" -o "$WORK/$kind/pkg_config_consumer" \
    $pc_flags "-Wl,-rpath,$libdir"
  "$WORK/$kind/pkg_config_consumer"

  # A shared install is used as one: the consumers load libcosid.so; the CLI carries its own copy.
  for exe in "$WORK/$kind/find_package/consumer" "$WORK/$kind/pkg_config_consumer"; do
    if [[ $kind == shared ]] && ! ldd "$exe" | grep -q "libcosid.so.0 => $libdir/"; then
      fail "$exe does not load $libdir/libcosid.so.0"
    fi
  done
done

echo "--- add_subdirectory(cosid) consumer ---"
cmake_configure "$HERE/add_subdirectory" "$WORK/vendored" -DCOSID_SOURCE_DIR="$ROOT"
cmake --build "$WORK/vendored" -j 2
"$WORK/vendored/consumer"
targets="$(cmake --build "$WORK/vendored" --target help)"
for target in cosid_cli error_test cosid_example_basic; do
  if grep -q "^$target:" <<<"$targets"; then
    fail "vendored, cosid defines $target; it should define the library only"
  fi
done
# cosid_internal (for the CLI and tests) is defined but excluded from the build.
if [[ -n "$(find "$WORK/vendored" -name 'libcosid_internal*')" ]]; then
  fail "vendored, cosid built cosid_internal"
fi
# COSID_INSTALL is off: the project that vendors cosid installs nothing of it.
if grep -rq 'file(INSTALL' "$WORK/vendored/cosid" --include=cmake_install.cmake; then
  fail "vendored, cosid adds install rules"
fi
echo "package: all checks passed"
