# SPDX-License-Identifier: Apache-2.0
# Every source file carries the licence's SPDX line (LICENSE is the Apache License 2.0) within its
# first three lines, so that a file copied out of the tree still says under which licence it is.
# Run by ctest: cmake -DROOT=<source dir> -P tests/licence_lines.cmake
if(NOT ROOT)
  message(FATAL_ERROR "licence_lines.cmake: pass -DROOT=<the source directory>")
endif()
set(_line "SPDX-License-Identifier: Apache-2.0")
file(GLOB_RECURSE _files LIST_DIRECTORIES false RELATIVE "${ROOT}"
     "${ROOT}/include/*.h" "${ROOT}/src/*.h" "${ROOT}/src/*.cc" "${ROOT}/src/*.c"
     "${ROOT}/tests/*.h" "${ROOT}/tests/*.cc" "${ROOT}/tests/*.c" "${ROOT}/tests/*.pml"
     "${ROOT}/tests/*.sh" "${ROOT}/tests/*.py" "${ROOT}/tests/*.cmake" "${ROOT}/examples/*.h"
     "${ROOT}/examples/*.cc"
     "${ROOT}/examples/*.c" "${ROOT}/fuzz/*.h" "${ROOT}/fuzz/*.cc" "${ROOT}/fuzz/*.py"
     "${ROOT}/cmake/*.cmake" "${ROOT}/cmake/*.in" "${ROOT}/*CMakeLists.txt")
list(APPEND _files ".ci/run")
set(_missing "")
set(_count 0)
foreach(_file IN LISTS _files)
  if(_file MATCHES "^build" OR _file MATCHES "/build/")
    continue()
  endif()
  math(EXPR _count "${_count} + 1")
  file(STRINGS "${ROOT}/${_file}" _head LIMIT_COUNT 3)
  string(FIND "${_head}" "${_line}" _at)
  if(_at EQUAL -1)
    string(APPEND _missing "\n  ${_file}")
  endif()
endforeach()
if(_missing)
  message(FATAL_ERROR "these sources lack the line '${_line}' in their first three lines "
                      "(add it as their first comment, after a #! line):${_missing}")
endif()
message(STATUS "licence lines: all ${_count} sources carry '${_line}'")
