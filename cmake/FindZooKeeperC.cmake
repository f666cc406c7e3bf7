# SPDX-License-Identifier: Apache-2.0
# Finds the ZooKeeper C client, multi-threaded flavour (Debian: libzookeeper-mt-dev), which ships
# no CMake config and no .pc file. Defines ZooKeeperC::zookeeper_mt.
find_path(ZooKeeperC_INCLUDE_DIR zookeeper/zookeeper.h)
find_library(ZooKeeperC_LIBRARY NAMES zookeeper_mt)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(ZooKeeperC
  REQUIRED_VARS ZooKeeperC_LIBRARY ZooKeeperC_INCLUDE_DIR
  REASON_FAILURE_MESSAGE "install the ZooKeeper C client (Debian: apt-get install libzookeeper-mt-dev)")
mark_as_advanced(ZooKeeperC_INCLUDE_DIR ZooKeeperC_LIBRARY)
if(ZooKeeperC_FOUND AND NOT TARGET ZooKeeperC::zookeeper_mt)
  add_library(ZooKeeperC::zookeeper_mt UNKNOWN IMPORTED)
  set_target_properties(ZooKeeperC::zookeeper_mt PROPERTIES
    IMPORTED_LOCATION "${ZooKeeperC_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${ZooKeeperC_INCLUDE_DIR}")
endif()
