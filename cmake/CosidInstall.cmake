# SPDX-License-Identifier: Apache-2.0
# `cmake --install`: the public headers, the library, a CMake package (find_package(cosid) gives
# cosid::cosid), a pkg-config file, and the cosid CLI when it is built. With
# -DCOSID_WITH_ZOOKEEPER=ON also the ZooKeeper store: its library, its header and the CMake
# package's component zookeeper (find_package(cosid COMPONENTS zookeeper) gives
# cosid::zookeeper). The conformance kit too when it is built (cosid::tck, with GoogleTest).
# Everything goes under CMAKE_INSTALL_PREFIX by the GNUInstallDirs layout, and
# the CMake package and the pkg-config file find the rest relative to themselves, so
# `cmake --install build --prefix DIR` and a moved prefix both work.
include(CMakePackageConfigHelpers)

set(COSID_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/cosid"
    CACHE STRING "Where cosidConfig.cmake is installed, relative to the prefix")
mark_as_advanced(COSID_INSTALL_CMAKEDIR)

install(TARGETS cosid EXPORT cosidTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The whole public tree, so a header added under include/cosid/ (or a subdirectory of it) is
# installed without another rule; but the ZooKeeper stores' headers only with their library, since
# without it the header declares functions that nothing defines.
set(_cosid_header_rules FILES_MATCHING PATTERN "*.h")
if(NOT COSID_WITH_ZOOKEEPER)
  list(APPEND _cosid_header_rules PATTERN "zookeeper" EXCLUDE PATTERN "zookeeper_*store.h" EXCLUDE)
endif()
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/cosid" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        ${_cosid_header_rules})

install(EXPORT cosidTargets NAMESPACE cosid:: FILE cosidTargets.cmake
        DESTINATION ${COSID_INSTALL_CMAKEDIR})

# The ZooKeeper store: an export set of its own, which cosidConfig.cmake loads only when the
# component is asked for, after finding the C client the store links (a static libcosid_zookeeper
# names ZooKeeperC::zookeeper_mt among its link dependencies). FindZooKeeperC.cmake goes beside
# cosidConfig.cmake, which finds it there. cosid::cosid stays as it is: its consumers need neither
# the C client nor the store.
if(COSID_WITH_ZOOKEEPER)
  set_target_properties(cosid_zookeeper PROPERTIES EXPORT_NAME zookeeper)
  install(TARGETS cosid_zookeeper EXPORT cosidZooKeeperTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(EXPORT cosidZooKeeperTargets NAMESPACE cosid:: FILE cosidZooKeeperTargets.cmake
          DESTINATION ${COSID_INSTALL_CMAKEDIR})
  install(FILES "${PROJECT_SOURCE_DIR}/cmake/FindZooKeeperC.cmake"
          DESTINATION ${COSID_INSTALL_CMAKEDIR})
endif()
# The conformance kit, when it was built against an installed GoogleTest (not one built from
# source for a cross build, which is not installed): its own export set, which cosidConfig.cmake
# loads only where GoogleTest is found, so a consumer without GoogleTest still gets cosid::cosid.
# Its headers (cosid/lease/conformance.h, cosid/segment/conformance.h) are in the tree above.
if(TARGET cosid_tck AND NOT COSID_GTEST_FROM_SOURCE)
  set_target_properties(cosid_tck PROPERTIES EXPORT_NAME tck)
  install(TARGETS cosid_tck EXPORT cosidTckTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT cosidTckTargets NAMESPACE cosid:: FILE cosidTckTargets.cmake
          DESTINATION ${COSID_INSTALL_CMAKEDIR})
endif()
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/cosidConfig.cmake.in"
                              "${PROJECT_BINARY_DIR}/cosidConfig.cmake"
                              INSTALL_DESTINATION ${COSID_INSTALL_CMAKEDIR})
# SameMajorVersion: a request for version X.Y accepts an installed X.Z with Z >= Y.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/cosidConfigVersion.cmake"
                                 COMPATIBILITY SameMajorVersion)
install(FILES "${PROJECT_BINARY_DIR}/cosidConfig.cmake"
              "${PROJECT_BINARY_DIR}/cosidConfigVersion.cmake"
        DESTINATION ${COSID_INSTALL_CMAKEDIR})

# pkg-config. The prefix is written relative to the .pc file's own directory (${pcfiledir}), so it
# stays right under `cmake --install --prefix` and in a moved tree; absolute install dirs are used
# as they are. A static library needs the thread library at the consumer's link, and a C
# program's link (`cc app.c $(pkg-config --static --cflags --libs cosid)`) also the C++ runtime
# and libm, which the C compiler does not add; a shared one brings them along. (_cosid_type: the
# library's TYPE, from CMakeLists.txt.)
set(_cosid_pc_dir "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
if(IS_ABSOLUTE "${_cosid_pc_dir}")
  set(COSID_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH _cosid_pc_up "/prefix/${_cosid_pc_dir}" "/prefix")
  string(REGEX REPLACE "/$" "" _cosid_pc_up "${_cosid_pc_up}")
  set(COSID_PC_PREFIX "\${pcfiledir}/${_cosid_pc_up}")
endif()
foreach(_dir LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${_dir}}")
    set(COSID_PC_${_dir} "${CMAKE_INSTALL_${_dir}}")
  else()
    set(COSID_PC_${_dir} "\${prefix}/${CMAKE_INSTALL_${_dir}}")
  endif()
endforeach()
if(_cosid_type STREQUAL "STATIC_LIBRARY")
  set(COSID_PC_LIBS "-L\${libdir} -lcosid -pthread")
  set(COSID_PC_LIBS_PRIVATE "-lstdc++ -lm")
else()
  set(COSID_PC_LIBS "-L\${libdir} -lcosid")
  set(COSID_PC_LIBS_PRIVATE "-pthread")
endif()
configure_file("${PROJECT_SOURCE_DIR}/cmake/cosid.pc.in" "${PROJECT_BINARY_DIR}/cosid.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/cosid.pc" DESTINATION ${_cosid_pc_dir})

if(TARGET cosid_cli)
  install(TARGETS cosid_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
