# SPDX-License-Identifier: Apache-2.0
# Strict warnings for cosid's own targets only: PRIVATE, so they never leak into a consumer's build.
# The C++-only ones are limited to C++ sources, so C targets (tests/c, examples/c) take the rest.
function(cosid_set_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wshadow -Wcast-align
    "$<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor;-Wold-style-cast;-Woverloaded-virtual>"
    "$<$<COMPILE_LANGUAGE:C>:-Wstrict-prototypes;-Wmissing-prototypes>")
  if(COSID_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
