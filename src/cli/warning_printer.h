// SPDX-License-Identifier: Apache-2.0
// The runtime's warnings on standard error, as `cosid: warning: MESSAGE`, for the commands that
// open a Runtime. Called on the runtime's threads; stdio's own locking keeps lines whole.
#ifndef COSID_SRC_CLI_WARNING_PRINTER_H_
#define COSID_SRC_CLI_WARNING_PRINTER_H_

#include <cstdio>

#include "cli/command.h"
#include "cosid/runtime.h"

namespace cosid {
namespace cli {

class WarningPrinter final : public EventListener {
 public:
  // `report_created`: whether a new state file is worth a warning (not for a temporary one).
  explicit WarningPrinter(std::FILE* err, bool report_created = true)
      : err_(err), report_created_(report_created) {}

  void on_event(const Event& event) noexcept override {
    switch (event.kind) {
      case EventKind::kStateFileCreated:
        if (!report_created_) break;
        [[fallthrough]];
      case EventKind::kNoStateFile:
      case EventKind::kStateWriteFailed:
      case EventKind::kStateFileReplaced:
      case EventKind::kStateFileDamaged:
      case EventKind::kWaitingForFloor:
      case EventKind::kBorrowingAhead:  // --start borrow: the ids lead the clock for a while
      case EventKind::kLeaseWaiting:
      case EventKind::kDuplicateOwnerKey:
      case EventKind::kClockSkew:
      case EventKind::kLeaseRenewalFailed:
      case EventKind::kLeaseLost:
      case EventKind::kStoreLog:
      case EventKind::kRangeKeyStarted:
      case EventKind::kSlowSync:
        std::fprintf(err_, "cosid: warning: %s%s\n", event.message.c_str(),
                     write_hint(event.code, event.message));
        std::fflush(err_);
        break;
      default:
        break;
    }
  }

 private:
  std::FILE* err_;
  const bool report_created_;
};

}  // namespace cli
}  // namespace cosid

#endif  // COSID_SRC_CLI_WARNING_PRINTER_H_
