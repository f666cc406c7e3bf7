// SPDX-License-Identifier: Apache-2.0
// Forwarding header, kept for 0.7 only (CHANGES.md): the ZooKeeper range store moved to
// cosid/zookeeper/range_store.h in 0.7. Include that instead; this file goes in 0.8.
#ifndef COSID_SEGMENT_ZOOKEEPER_RANGE_STORE_H_
#define COSID_SEGMENT_ZOOKEEPER_RANGE_STORE_H_

#include "cosid/zookeeper/range_store.h"

#endif  // COSID_SEGMENT_ZOOKEEPER_RANGE_STORE_H_
