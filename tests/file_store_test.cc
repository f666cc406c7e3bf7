// FileLeaseStore beyond the conformance kit: what is on disk, corruption, lock waits, escaping,
// and a real process killed in the middle of its changes.
#include "cosid/lease/file_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>

#include "cosid/clock.h"
#include "test_util.h"

namespace cosid::lease {
namespace {

using std::chrono::milliseconds;

constexpr std::int64_t kStart = 1700000000000;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream data;
  data << in.rdbuf();
  return data.str();
}

void write_file(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
}

class FileStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/cosid-file-store-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    store_ = open_store(milliseconds(10000));
    ASSERT_NE(store_, nullptr);
    owner_.key = "host:1";
    std::error_code ec;
    ASSERT_TRUE(Incarnation::random(owner_.incarnation, ec));
    terms_.slot_limit = 4;
  }

  void TearDown() override {
    store_.reset();
    if (DIR* listing = ::opendir(dir_.c_str())) {
      while (const dirent* entry = ::readdir(listing)) {
        const std::string name = entry->d_name;
        if (name != "." && name != "..") ::unlink((dir_ + "/" + name).c_str());
      }
      ::closedir(listing);
    }
    ::rmdir(dir_.c_str());
  }

  std::unique_ptr<FileLeaseStore> open_store(milliseconds lock_timeout) {
    FileLeaseStoreOptions options;
    options.clock = &clock_;
    options.lock_timeout = lock_timeout;
    std::error_code ec;
    std::string message;
    auto store = FileLeaseStore::open(dir_, options, ec, &message);
    EXPECT_NE(store, nullptr) << message;
    return store;
  }

  AcquireRequest request(std::uint32_t slot, const std::string& name_space = "orders") const {
    AcquireRequest request;
    request.name_space = name_space;
    request.slot = slot;
    request.owner = owner_;
    request.terms = terms_;
    request.ttl = milliseconds(30000);
    return request;
  }

  SlotLease acquire(FileLeaseStore& store, std::uint32_t slot) {
    AcquireOutcome outcome = AcquireOutcome::kTaken;
    SlotLease lease;
    SlotRecord record;
    std::error_code ec;
    std::string message;
    EXPECT_TRUE(store.acquire(request(slot), outcome, lease, record, ec, &message)) << message;
    EXPECT_EQ(outcome, AcquireOutcome::kAcquired);
    return lease;
  }

  bool scan(std::vector<SlotRecord>& records, std::error_code& ec, std::string* message) {
    std::int64_t now = 0;
    return store_->scan("orders", terms_, records, now, ec, message);
  }

  ManualClock clock_{kStart};
  std::string dir_;
  std::unique_ptr<FileLeaseStore> store_;
  Owner owner_;
  NamespaceTerms terms_;
};

TEST_F(FileStoreTest, RecordsOutliveTheStoreObject) {
  const SlotLease lease = acquire(*store_, 2);
  store_ = open_store(milliseconds(10000));
  std::vector<SlotRecord> records;
  std::error_code ec;
  ASSERT_TRUE(scan(records, ec, nullptr));
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].slot, 2u);
  EXPECT_TRUE(records[0].held);
  EXPECT_EQ(records[0].owner.key, "host:1");
  EXPECT_EQ(records[0].owner.incarnation, owner_.incarnation);
  EXPECT_EQ(records[0].ceiling, lease.ceiling);
  EXPECT_EQ(records[0].next_floor, lease.ceiling);
}

TEST_F(FileStoreTest, TheRecordIsTheDocumentedText) {
  acquire(*store_, 1);
  const std::string text = read_file(dir_ + "/ns.orders.lease");
  const std::string expected_start =
      "cosid-lease-store 1\nterms 4 1000\nslot 1 1 1 " + std::to_string(kStart + 30000) + " 0 " +
      std::to_string(kStart + 31000) + " " + std::to_string(kStart + 31000) + " " +
      owner_.incarnation.to_string() + " =host%3A1 =host%3A1\nend 1 ";
  EXPECT_EQ(text.substr(0, expected_start.size()), expected_start);
  EXPECT_EQ(text.size(), expected_start.size() + 9);  // 8 hex digits and '\n'
}

TEST_F(FileStoreTest, AFlippedByteIsCorruptAndTheFileIsKept) {
  acquire(*store_, 1);
  const std::string path = dir_ + "/ns.orders.lease";
  std::string text = read_file(path);
  const std::size_t at = text.find(" 0 ");  // the floor 0 becomes 1: a valid-looking record
  ASSERT_NE(at, std::string::npos);
  text[at + 1] = '1';
  write_file(path, text);
  std::vector<SlotRecord> records;
  std::error_code ec;
  std::string message;
  EXPECT_FALSE(scan(records, ec, &message));
  EXPECT_ERRC(ec, errc::store_corrupt);
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("checksum"), std::string::npos) << message;
  AcquireOutcome outcome;
  SlotLease lease;
  SlotRecord record;
  EXPECT_FALSE(store_->acquire(request(2), outcome, lease, record, ec));
  EXPECT_ERRC(ec, errc::store_corrupt);
  EXPECT_EQ(read_file(path), text);  // never reset
}

TEST_F(FileStoreTest, ATornRecordIsCorrupt) {
  acquire(*store_, 1);
  const std::string path = dir_ + "/ns.orders.lease";
  const std::string text = read_file(path);
  for (const std::size_t keep : {text.size() - 1, text.size() / 2, std::size_t{0}}) {
    write_file(path, text.substr(0, keep));
    std::vector<SlotRecord> records;
    std::error_code ec;
    std::string message;
    EXPECT_FALSE(scan(records, ec, &message)) << keep;
    EXPECT_ERRC(ec, errc::store_corrupt);
    EXPECT_NE(message.find("end line"), std::string::npos) << message;
  }
}

TEST_F(FileStoreTest, ALeftoverTemporaryFileIsOverwritten) {
  write_file(dir_ + "/ns.orders.tmp", "half a record from a crash");
  const SlotLease lease = acquire(*store_, 0);
  EXPECT_EQ(lease.fence, 1u);
  std::vector<SlotRecord> records;
  std::error_code ec;
  ASSERT_TRUE(scan(records, ec, nullptr));
  EXPECT_EQ(records.size(), 1u);
}

TEST_F(FileStoreTest, ALockHeldElsewhereRunsOutAsUnavailable) {
  std::vector<SlotRecord> records;
  std::error_code ec;
  ASSERT_TRUE(scan(records, ec, nullptr));  // creates the namespace and its lock file
  const int fd = ::open((dir_ + "/ns.orders.lock").c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  struct flock lock;
  std::memset(&lock, 0, sizeof lock);
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  ASSERT_EQ(::fcntl(fd, F_OFD_SETLK, &lock), 0);
  for (const milliseconds timeout : {milliseconds(0), milliseconds(20)}) {
    store_ = open_store(timeout);
    std::string message;
    EXPECT_FALSE(scan(records, ec, &message));
    EXPECT_ERRC(ec, errc::store_unavailable);
    EXPECT_NE(message.find("ns.orders.lock"), std::string::npos) << message;
  }
  ::close(fd);  // released: the store works again
  EXPECT_TRUE(scan(records, ec, nullptr)) << ec.message();
}

TEST_F(FileStoreTest, NamespacesAndKeysAreEscaped) {
  owner_.key = "host a:1\n=%";
  AcquireOutcome outcome;
  SlotLease lease;
  SlotRecord record;
  std::error_code ec;
  std::string message;
  ASSERT_TRUE(store_->acquire(request(3, "billing/eu west"), outcome, lease, record, ec, &message))
      << message;
  EXPECT_EQ(::access((dir_ + "/ns.billing%2Feu%20west.lease").c_str(), F_OK), 0);
  std::vector<SlotRecord> records;
  std::int64_t now = 0;
  ASSERT_TRUE(store_->scan("billing/eu west", terms_, records, now, ec));
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].owner.key, "host a:1\n=%");
  EXPECT_EQ(records[0].last_owner_key, "host a:1\n=%");
}

TEST_F(FileStoreTest, OpenRefusesBadArguments) {
  FileLeaseStoreOptions options;
  std::error_code ec;
  std::string message;
  EXPECT_EQ(FileLeaseStore::open("", options, ec, &message), nullptr);
  EXPECT_ERRC(ec, errc::invalid_argument);
  options.lock_timeout = milliseconds(-1);
  EXPECT_EQ(FileLeaseStore::open(dir_, options, ec, &message), nullptr);
  EXPECT_ERRC(ec, errc::invalid_argument);
  options.lock_timeout = milliseconds(10);
  EXPECT_EQ(FileLeaseStore::open(dir_ + "/missing/leases", options, ec, &message), nullptr);
  EXPECT_ERRC(ec, errc::store_unavailable);
  EXPECT_NE(message.find("missing/leases"), std::string::npos) << message;
  // A missing last component is created.
  EXPECT_NE(FileLeaseStore::open(dir_ + "/sub", options, ec, &message), nullptr) << message;
  ::rmdir((dir_ + "/sub").c_str());
}

// A real process renews its lease in a loop and is SIGKILLed at random moments, as often in the
// middle of a write, rename or fsync as not. After each kill the record reads back whole, is still
// the child's, and its ceiling never went down.
TEST_F(FileStoreTest, AProcessKilledMidChangeLeavesAWholeRecord) {
  const SlotLease lease = acquire(*store_, 0);
  std::mt19937 random(12345);
  std::int64_t last_ceiling = lease.ceiling;
  for (int cycle = 0; cycle < 20; ++cycle) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      for (;;) {
        clock_.advance(milliseconds(1));
        SlotLease renewed;
        std::error_code ec;
        if (!store_->renew(lease, terms_, milliseconds(30000), renewed, ec)) ::_exit(2);
      }
    }
    ::usleep(static_cast<useconds_t>(random() % 20000));
    ASSERT_EQ(::kill(child, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the child stopped by itself, status " << status;
    std::vector<SlotRecord> records;
    std::error_code ec;
    std::string message;
    ASSERT_TRUE(scan(records, ec, &message)) << message;
    ASSERT_EQ(records.size(), 1u);
    EXPECT_EQ(records[0].fence, lease.fence);
    EXPECT_EQ(records[0].owner.incarnation, owner_.incarnation);
    EXPECT_GE(records[0].ceiling, last_ceiling);
    last_ceiling = records[0].ceiling;
  }
}

}  // namespace
}  // namespace cosid::lease
