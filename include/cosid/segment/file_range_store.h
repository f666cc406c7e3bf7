// SPDX-License-Identifier: Apache-2.0
// FileRangeStore: a RangeStore in a directory on local disk, shared by every process of one host
// that opens the same directory (src/segment/RANGES.md, "File store").
//
// Each key is one small record file, changed only under an exclusive open-file-description lock
// on a lock file of its own, and only by writing a new file and renaming it over the old one
// (write temp, fsync, rename, fsync the directory), as the file lease store does: a change is all
// there after a crash, or not at all, and a call returns success only once its own write is
// durable, so no value of a claimed range is used before the claim survives a power loss. The
// record carries the key's value text (range_rules.h), its version, an identity drawn at random
// when the key is created, and a CRC32C; a record that does not read back exactly, or one whose
// identity is not the one this store saw (deleted and created again), or that is missing where
// this store saw one, is errc::store_corrupt and never reset: starting a key over would hand its
// values out again.
//
// A call waits for another process's lock at most lock_timeout; past it, store_unavailable.
// Local disks only: OFD locks and rename atomicity are not to be trusted on network file systems.
//
// Thread safety: every call may come from any thread; a store may also be used in a child forked
// from the process that opened it (each call opens its own descriptors).
#ifndef COSID_SEGMENT_FILE_RANGE_STORE_H_
#define COSID_SEGMENT_FILE_RANGE_STORE_H_

#include <chrono>
#include <memory>
#include <string>

#include "cosid/config.h"
#include "cosid/events.h"
#include "cosid/export.h"
#include "cosid/fs.h"
#include "cosid/segment/range_store.h"

namespace cosid {
namespace segment {

struct FileRangeStoreOptions {
  // How long one call waits for another process's lock before store_unavailable; 0 tries once.
  std::chrono::milliseconds lock_timeout{10000};
  // The file calls (tests fail them); null: the real file system. REQUIRES: outlives the store.
  FileSystem* file_system = nullptr;
  // Receives EventKind::kRangeKeyStarted when a claim creates a key's record (a key never claimed
  // in this store); null: not reported. Called on the claiming thread. REQUIRES: outlives the
  // store.
  EventListener* listener = nullptr;
};

class COSID_EXPORT FileRangeStore final : public RangeStore {
 public:
  // Opens the store in the existing `directory`. A missing directory is never created here: it is
  // errc::store_not_initialized (the message names the path and the `cosid store init` that
  // creates it), since a new store starts every key from zero. Fails also with invalid_argument
  // (an empty path, a negative lock_timeout) or store_unavailable.
  [[nodiscard]] static std::unique_ptr<FileRangeStore> open(const std::string& directory,
                                                            const FileRangeStoreOptions& options,
                                                            Status& status);
#if COSID_HAS_EXCEPTIONS
  static std::unique_ptr<FileRangeStore> open(const std::string& directory,
                                              const FileRangeStoreOptions& options = {});
#endif

  // Creates the store's `directory` as FileLeaseStore::init() does (one directory may hold both
  // kinds of record): the last component only, its parent synced. `created` false: it existed.
  [[nodiscard]] static bool init(const std::string& directory, const FileRangeStoreOptions& options,
                                 bool& created, Status& status);

  ~FileRangeStore() override;
  FileRangeStore(const FileRangeStore&) = delete;
  FileRangeStore& operator=(const FileRangeStore&) = delete;

  bool claim(const RangeRequest& request, Range& range, Status& status) override;
  bool give_back(const std::string& key, const Range& unused, bool& returned,
                 Status& status) override;
  bool seal(const std::string& key, RangeState& state, Status& status) override;
  bool read(const std::string& key, RangeState& state, Status& status) override;

  const std::string& directory() const noexcept;

 private:
  class Impl;
  explicit FileRangeStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace segment
}  // namespace cosid

#endif  // COSID_SEGMENT_FILE_RANGE_STORE_H_
