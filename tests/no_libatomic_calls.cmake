# SPDX-License-Identifier: Apache-2.0
# Fails if the library calls into libatomic: every atomic operation cosid uses must compile to the
# target's own instructions (x86-64: lock cmpxchg; AArch64: LSE cas or ldaxr/stlxr, through
# libgcc's outline-atomics helpers __aarch64_*; ARMv7: ldrexd/strexd). src/base/target_check.cc
# refuses targets where std::atomic says otherwise; this checks the object code itself.
#   cmake -DNM=<nm for the target> -DLIBRARY=<libcosid.a> -P no_libatomic_calls.cmake
execute_process(COMMAND "${NM}" --undefined-only "${LIBRARY}" OUTPUT_VARIABLE undefined
                RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "${NM} --undefined-only ${LIBRARY} failed (${failed})")
endif()
# Whole C symbols only ("U __atomic_load_8"), not C++ names that merely contain the word.
string(REGEX MATCHALL "U __atomic_[A-Za-z0-9_]+" calls "${undefined}")
if(calls)
  list(REMOVE_DUPLICATES calls)
  string(REPLACE "U " "" calls "${calls}")
  message(FATAL_ERROR "${LIBRARY} calls into libatomic (${calls}): an atomic is not lock-free on "
                      "this target; see cmake/toolchains/README.md")
endif()
message(STATUS "${LIBRARY}: no calls into libatomic")
