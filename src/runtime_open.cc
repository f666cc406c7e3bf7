// SPDX-License-Identifier: Apache-2.0
// Runtime::open(): a static slot, or one leased from a store. Apart from runtime.cc so that a
// program that opens static slots only (Runtime::open_static()) links no lease store, no store
// registry and no check of a store's options.
#include <memory>

#include "base/fail.h"
#include "cosid/runtime.h"
#include "runtime_keeper.h"

namespace cosid {

std::unique_ptr<Runtime> Runtime::open(const Options& options,
                                       const RuntimeEnvironment& environment, Status& status) {
  static constexpr detail::RuntimeStart kAnySlot{&validate_options, &detail::open_runtime_keeper};
  return open_with(kAnySlot, options, environment, status);
}

#if COSID_HAS_EXCEPTIONS
std::unique_ptr<Runtime> Runtime::open(const Options& options,
                                       const RuntimeEnvironment& environment) {
  Status status;
  auto runtime = open(options, environment, status);
  detail::throw_if_failed(status);
  return runtime;
}
#endif

}  // namespace cosid
