// SPDX-License-Identifier: Apache-2.0
// Forwarding header, kept for 0.7 only (CHANGES.md): StoreRegistry and the types of its factories
// moved to cosid/store_registry.h in 0.7. Include that instead; this file goes in 0.8.
#ifndef COSID_LEASE_STORE_REGISTRY_H_
#define COSID_LEASE_STORE_REGISTRY_H_

#include "cosid/store_registry.h"

// In 0.7 these left namespace cosid::lease for cosid; the old names still work in 0.7.
namespace cosid {
namespace lease {
using StoreRegistry = ::cosid::StoreRegistry;
using StoreContext = ::cosid::StoreContext;
using StoreSettings = ::cosid::StoreSettings;
using StoreFactory = ::cosid::StoreFactory;
using RangeStoreContext = ::cosid::RangeStoreContext;
using RangeStoreFactory = ::cosid::RangeStoreFactory;
using StoreInitReport = ::cosid::StoreInitReport;
using StoreInitializer = ::cosid::StoreInitializer;
}  // namespace lease
}  // namespace cosid

#endif  // COSID_LEASE_STORE_REGISTRY_H_
