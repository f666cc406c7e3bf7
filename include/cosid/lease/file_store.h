// SPDX-License-Identifier: Apache-2.0
// FileLeaseStore: a SlotLeaseStore in a directory on local disk, shared by every process of one
// host that opens the same directory. Several processes started with no configuration but the
// directory get distinct slots, and a crashed one's slot is free again after its ttl.
//
// Each namespace is one record file, changed only under an exclusive open-file-description lock
// (F_OFD_SETLK) on a lock file of its own, and only by writing a new file and renaming it over the
// old one (write temp, fsync, rename, fsync the directory): a change is all there after a crash,
// or not at all. A call returns success only once its own write is durable: every successful
// acquire (its idempotent retry included), renew and release writes and syncs, so a failed
// directory fsync is never followed by an answer from a record a power loss could take back. The
// record carries a CRC32C; a file that does not read back exactly is reported as
// errc::store_corrupt and never reset, because the floors in it are what keeps ids unique (nor
// restored from a backup, whose floors are older). The on-disk format is described at the top of
// src/lease/file_store.cc.
//
// The store's clock is the host's (SystemClock), or the Clock given in the options for tests; all
// processes of the host read the same clock, so their leases expire alike.
//
// A call waits for another process's lock at most lock_timeout, polling with sleeps of 1 ms
// doubling to 32 ms on the host's monotonic clock (never on the store clock, which a test may
// freeze); past it the call fails with errc::store_unavailable. A process killed while it holds
// the lock releases it with its last descriptor, so a lock is never left behind. Once locked, a
// call checks that the lock file is still the one at its path, and locks that one anew if it was
// removed or replaced (store_unavailable after 3 such changes in one call).
//
// Local disks only: OFD locks and rename atomicity are not to be trusted on network file systems.
//
// Thread safety: every call may come from any thread; a store object may also be used in a child
// forked from the process that opened it (each call opens its own descriptors).
#ifndef COSID_LEASE_FILE_STORE_H_
#define COSID_LEASE_FILE_STORE_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "cosid/clock.h"
#include "cosid/config.h"
#include "cosid/export.h"
#include "cosid/fs.h"
#include "cosid/lease/store.h"

namespace cosid {
namespace lease {

struct FileLeaseStoreOptions {
  // The store's clock; null: the host's real clock. REQUIRES: outlives the store.
  Clock* clock = nullptr;
  // How long one call waits for another process's lock before store_unavailable; 0 tries once.
  std::chrono::milliseconds lock_timeout{10000};
  // The file calls (tests fail them); null: the real file system. It must implement open_shared
  // and rename_replace. REQUIRES: outlives the store.
  FileSystem* file_system = nullptr;
};

class COSID_EXPORT FileLeaseStore final : public SlotLeaseStore {
 public:
  // Opens the store in the existing `directory`. A missing directory is never created here: it is
  // errc::store_not_initialized (the message names the path and the `cosid store init` that
  // creates it), since a new store starts every slot from zero and a mistyped or moved directory
  // would repeat ids. Fails also with invalid_argument for an empty path or a negative
  // lock_timeout, and with store_unavailable when the directory cannot be opened.
  [[nodiscard]] static std::unique_ptr<FileLeaseStore> open(const std::string& directory,
                                                            const FileLeaseStoreOptions& options,
                                                            Status& status);
#if COSID_HAS_EXCEPTIONS
  // Throws cosid::Error with the message.
  static std::unique_ptr<FileLeaseStore> open(const std::string& directory,
                                              const FileLeaseStoreOptions& options = {});
#endif

  // Creates the store's `directory`, as `cosid store init --store file:DIR` does: the last
  // component only (0770), its parent synced; the parent must exist. `created` false: it existed,
  // and nothing changed. Fails with invalid_argument (an empty path) or store_unavailable.
  // StoreRegistry::init() calls it for the type "file".
  [[nodiscard]] static bool init(const std::string& directory, const FileLeaseStoreOptions& options,
                                 bool& created, Status& status);

  ~FileLeaseStore() override;
  FileLeaseStore(const FileLeaseStore&) = delete;
  FileLeaseStore& operator=(const FileLeaseStore&) = delete;

  bool scan(const std::string& name_space, const NamespaceTerms& terms,
            std::vector<SlotRecord>& records, std::int64_t& store_now, Status& status) override;
  bool acquire(const AcquireRequest& request, AcquireOutcome& outcome, SlotLease& lease,
               SlotRecord& record, Status& status) override;
  bool renew(const SlotLease& held, const NamespaceTerms& terms, std::chrono::milliseconds ttl,
             SlotLease& renewed, Status& status) override;
  bool release(const SlotLease& held, const NamespaceTerms& terms, std::int64_t last_issued,
               Status& status) override;
  bool fence(const std::string& name_space, const NamespaceTerms& terms, std::uint32_t slot,
             std::int64_t not_before, FenceResult& result, Status& status) override;

  const std::string& directory() const noexcept { return directory_; }

 private:
  class Transaction;

  FileLeaseStore(std::string directory, int directory_fd, const FileLeaseStoreOptions& options);

  const std::string directory_;
  const int directory_fd_;
  FileSystem& fs_;
  // Lock waits run on real time, whatever the store clock does; it is also the default store clock.
  SystemClock system_clock_;
  Clock& clock_;
  const std::chrono::milliseconds lock_timeout_;
};

}  // namespace lease
}  // namespace cosid

#endif  // COSID_LEASE_FILE_STORE_H_
