// SPDX-License-Identifier: Apache-2.0
// Forwarding header, kept for 0.7 only (CHANGES.md): the ZooKeeper lease store moved to
// cosid/zookeeper/lease_store.h in 0.7. Include that instead; this file goes in 0.8.
#ifndef COSID_LEASE_ZOOKEEPER_STORE_H_
#define COSID_LEASE_ZOOKEEPER_STORE_H_

#include "cosid/zookeeper/lease_store.h"

#endif  // COSID_LEASE_ZOOKEEPER_STORE_H_
