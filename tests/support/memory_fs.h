// SPDX-License-Identifier: Apache-2.0
// MemoryFs (alias CrashFs, see crash_fs.h): an in-memory FileSystem for tests that fails any call
// with any errno and models a power loss (tests/SCENARIOS.md, "Harnesses").
//
// Every file keeps `current` (what reads see: the page cache), `durable` (what is on the disk)
// and the list of writes made since its last sync. Every directory keeps its current and durable
// entries and the list of name operations (create, rename, unlink) since its last sync.
//   - write_at updates `current` and appends to the pending list.
//   - a successful sync/sync_data applies the pending writes to `durable` and clears the list;
//     syncing a directory makes its entries durable.
//   - an injected sync_data/sync failure applies a subset of the pending writes' 512-byte sectors
//     to `durable` (FailedSync::applied), clears the list (the kernel marks the pages clean) and
//     leaves `current` with the new bytes or reverts it to the bytes before the pending writes,
//     whatever reached the disk (FailedSync::keep_new).
//   - crash(mode, seed) applies the pending writes of every file per CrashMode and each pending
//     directory operation at random, then current = durable; descriptors and locks vanish.
//   - crash_at(n): the n-th call (any kind, counted by total_calls()) and every later one never
//     happen: they return EIO without effect, and crash_point_hit() turns true, until crash().
// Thread-safe (one mutex). Deterministic for a given seed.
#ifndef COSID_TESTS_SUPPORT_MEMORY_FS_H_
#define COSID_TESTS_SUPPORT_MEMORY_FS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cosid/fs.h"

namespace cosid::testing {

class MemoryFs : public FileSystem {
 public:
  enum class Op {
    kOpenDirectory,
    kOpen,
    kOpenForReading,
    kCreate,
    kRead,
    kReadDurable,
    kWrite,
    kSync,
    kSyncData,
    kRename,
    kUnlink,
    kStat,
    kLock,
  };

  // What a power loss does with each file's writes since its last sync.
  enum class CrashMode {
    kDropAll,  // none reaches the disk (LevelDB's model)
    kPrefix,   // the first r of n, r random in [0, n]
    kSubset,   // each with probability 1/2, applied in a random order (reordering)
    kTorn,     // those before a random one i; write i torn at a 512-byte boundary; none after
    kGarbage,  // those before a random one i; the sectors of write i filled with garbage
  };
  static constexpr CrashMode kAllCrashModes[] = {CrashMode::kDropAll, CrashMode::kPrefix,
                                                 CrashMode::kSubset, CrashMode::kTorn,
                                                 CrashMode::kGarbage};
  static const char* to_string(CrashMode mode);

  // What an injected sync failure does. File systems differ in what reached the disk and in what
  // the page cache holds afterwards (Rebello et al., "Can Applications Recover from fsync
  // Failures?", USENIX ATC 2020), so both are parameters.
  struct FailedSync {
    enum class Applied { kNone, kAll, kRandomSectors };
    Applied applied = Applied::kNone;  // which pending sectors reached the disk anyway
    bool keep_new = true;              // the page cache keeps the new bytes, else the old ones
  };

  // One call as seen by the file system, for tests that check call patterns.
  struct LogEntry {
    int call;  // its index, as total_calls() counts
    Op op;
    int fd;
    std::int64_t offset;
    std::size_t size;
    int error;                        // 0 on success
    std::vector<unsigned char> data;  // for writes: the bytes written
  };

  MemoryFs();

  // Fails the `nth` next call of `op` (1 = the very next one) with `error`; with `persistent`,
  // that call and every later one fail until clear_faults().
  void fail(Op op, int error, int nth = 1, bool persistent = false);
  // The `nth` next write writes only its first `bytes` bytes and then fails with EIO (a short
  // write, reported as EIO as the POSIX implementation does).
  void short_write(std::size_t bytes, int nth = 1);
  void clear_faults();
  // How many calls of `op` were made (failed ones included).
  int calls(Op op) const;
  // How many calls of any kind were made (close excluded: it cannot fail).
  int total_calls() const;

  void set_failed_sync(FailedSync behaviour);
  // Seeds the generator used by failed syncs (FailedSync::Applied::kRandomSectors).
  void set_seed(std::uint64_t seed);

  // The call with index `n` (1-based, as total_calls() counts) and every later one return EIO
  // without effect until crash(). 0 disarms.
  void crash_at(int n);
  bool crash_point_hit() const;

  // A power loss: drop every pending write and directory operation (kDropAll, every op lost).
  void crash();
  // A power loss under `mode`; pending directory operations are each applied or lost at random.
  // Disarms crash_at. Descriptors and locks vanish.
  void crash(CrashMode mode, std::uint64_t seed);

  // Call logging, off by default: log() returns the calls made while it was on.
  void set_logging(bool on);
  std::vector<LogEntry> log() const;
  void clear_log();

  // A process crash without a power loss (a restart without a reboot): descriptors and locks
  // vanish and crash_at is disarmed, but the page cache (`current`) and the pending writes stay.
  void process_crash();
  // Changes whenever any durable bytes or durable directory entries may have changed: lets an
  // auditor cache what it decoded.
  std::uint64_t durable_version() const;

  // Direct access to a file's images by path ("dir/name"), for corrupting and auditing.
  bool exists(const std::string& path) const;
  std::vector<unsigned char> durable(const std::string& path) const;
  std::vector<unsigned char> current(const std::string& path) const;
  void set_both(const std::string& path, const std::vector<unsigned char>& bytes);
  void remove(const std::string& path);  // as an operator's rm: current and durable
  std::vector<std::string> names(const std::string& dir) const;  // current entries

  std::error_code open_directory(const std::string& path, int& fd) override;
  std::error_code open_existing(int dir, const std::string& name, int& fd) override;
  std::error_code open_for_reading(int dir, const std::string& name, int& fd) override;
  std::error_code create_exclusive(int dir, const std::string& name, int& fd) override;
  std::error_code read_at(int fd, void* data, std::size_t size, std::int64_t offset) override;
  // Reads the durable bytes; with set_direct_reads(false), fails with EINVAL like tmpfs.
  std::error_code read_durable(int fd, void* data, std::size_t size, std::int64_t offset) override;
  void set_direct_reads(bool on);
  std::error_code write_at(int fd, const void* data, std::size_t size,
                           std::int64_t offset) override;
  std::error_code sync(int fd) override;
  std::error_code sync_data(int fd) override;
  std::error_code rename_noreplace(int dir, const std::string& from,
                                   const std::string& to) override;
  std::error_code unlink(int dir, const std::string& name) override;
  std::error_code stat(int fd, FileInfo& info) override;
  std::error_code stat_at(int dir, const std::string& name, FileInfo& info) override;
  std::error_code lock(int fd) override;
  void close(int fd) override;

 private:
  struct Write {
    std::int64_t offset;
    std::vector<unsigned char> data;
  };
  struct Inode {
    std::uint64_t number = 0;
    std::vector<unsigned char> current;
    std::vector<unsigned char> durable;
    std::vector<Write> pending;  // since the last sync
    int lock_owner = -1;         // the descriptor holding the lock, -1 if none
  };
  struct DirOp {
    enum Kind { kCreate, kRename, kUnlink } kind;
    std::string name;
    std::string to;  // kRename
    std::shared_ptr<Inode> inode;
  };
  struct Directory {
    std::map<std::string, std::shared_ptr<Inode>> current;
    std::map<std::string, std::shared_ptr<Inode>> durable;
    std::vector<DirOp> pending;  // since the last sync of the directory
  };
  struct Handle {
    std::string directory;
    std::shared_ptr<Inode> inode;  // null for a directory handle
  };
  struct Fault {
    Op op;
    int error;
    int countdown;
    bool persistent;
    std::size_t short_bytes;  // for a short write: how many bytes land; else SIZE_MAX
  };

  // Counts the call and returns the error to inject, if any. `short_bytes` receives the length
  // of a short write (else SIZE_MAX). REQUIRES: mutex_ held.
  std::error_code inject(Op op, std::size_t* short_bytes = nullptr);
  void record(Op op, int fd, std::int64_t offset, std::size_t size, std::error_code ec,
              const void* data = nullptr);
  std::error_code sync_file(Inode& inode, Op op);  // REQUIRES: mutex_ held
  std::uint64_t random();                          // REQUIRES: mutex_ held
  Handle* handle(int fd);
  std::shared_ptr<Inode> find(const std::string& path) const;
  std::uint64_t links(const Inode& inode) const;

  // Opens an existing entry of directory `dir`, counting the call as `op`.
  std::error_code open_named(Op op, int dir, const std::string& name, int& fd);

  bool direct_reads_ = true;
  mutable std::mutex mutex_;
  std::map<std::string, Directory> directories_;
  std::map<int, Handle> handles_;
  std::vector<Fault> faults_;
  std::map<Op, int> calls_;
  int total_calls_ = 0;
  int crash_at_ = 0;
  bool crash_hit_ = false;
  FailedSync failed_sync_;
  std::uint64_t rng_ = 0x9e3779b97f4a7c15u;
  bool logging_ = false;
  std::uint64_t durable_version_ = 0;
  std::vector<LogEntry> log_;
  int next_fd_ = 3;
  std::uint64_t next_inode_ = 1;
};

}  // namespace cosid::testing

#endif  // COSID_TESTS_SUPPORT_MEMORY_FS_H_
