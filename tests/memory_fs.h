// MemoryFs: an in-memory FileSystem for tests that fails any call with any errno and models a
// power loss.
//
// Every file keeps two images: `current` (what reads see: the page cache) and `durable` (what
// survived the last successful sync). Directory entries are likewise current or durable, made
// durable by syncing the directory. crash() throws away everything not durable and every open
// descriptor and lock, as a power loss followed by a reboot would. Thread-safe (one mutex).
#ifndef COSID_TESTS_MEMORY_FS_H_
#define COSID_TESTS_MEMORY_FS_H_

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
    kCreate,
    kRead,
    kWrite,
    kSync,
    kSyncData,
    kRename,
    kUnlink,
    kStat,
    kLock,
  };

  MemoryFs();

  // Fails the `nth` next call of `op` (1 = the very next one) with `error`; with `persistent`,
  // that call and every later one fail until clear_faults().
  void fail(Op op, int error, int nth = 1, bool persistent = false);
  void clear_faults();
  // How many calls of `op` were made (failed ones included).
  int calls(Op op) const;

  // A power loss: unsynced data and directory entries are lost, descriptors and locks vanish.
  void crash();

  // Direct access to a file's images by path ("dir/name"), for corrupting and auditing.
  bool exists(const std::string& path) const;
  std::vector<unsigned char> durable(const std::string& path) const;
  std::vector<unsigned char> current(const std::string& path) const;
  void set_both(const std::string& path, const std::vector<unsigned char>& bytes);
  void remove(const std::string& path);  // as an operator's rm: current and durable
  std::vector<std::string> names(const std::string& dir) const;  // current entries

  std::error_code open_directory(const std::string& path, int& fd) override;
  std::error_code open_existing(int dir, const std::string& name, int& fd) override;
  std::error_code create_exclusive(int dir, const std::string& name, int& fd) override;
  std::error_code read_at(int fd, void* data, std::size_t size, std::int64_t offset) override;
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
  struct Inode {
    std::uint64_t number = 0;
    std::vector<unsigned char> current;
    std::vector<unsigned char> durable;
    int lock_owner = -1;  // the descriptor holding the lock, -1 if none
  };
  struct Directory {
    std::map<std::string, std::shared_ptr<Inode>> current;
    std::map<std::string, std::shared_ptr<Inode>> durable;
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
  };

  std::error_code inject(Op op);  // REQUIRES: mutex_ held
  Handle* handle(int fd);
  std::shared_ptr<Inode> find(const std::string& path) const;
  std::uint64_t links(const Inode& inode) const;

  mutable std::mutex mutex_;
  std::map<std::string, Directory> directories_;
  std::map<int, Handle> handles_;
  std::vector<Fault> faults_;
  std::map<Op, int> calls_;
  int next_fd_ = 3;
  std::uint64_t next_inode_ = 1;
};

}  // namespace cosid::testing

#endif  // COSID_TESTS_MEMORY_FS_H_
