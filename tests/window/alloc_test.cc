// SPDX-License-Identifier: Apache-2.0
// Zero heap allocations per id: every global operator new of this program is replaced with one
// that counts, per thread, and the hot paths (next(), next_batch(), including the waits for a new
// tick) must leave the calling thread's count unchanged once the generator is made and has issued
// its first id. A correctness test, not a timing one.
//
// Under ASan and UBSan the replacement works as well (their runtime intercepts malloc, which the
// replacement calls), and the test runs. TSan's runtime defines operator new itself, so the test
// is not built there (tests/CMakeLists.txt); under MSan the count is not asserted and the tests
// skip and say why.
#include <dirent.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <system_error>
#include <vector>

#include "cosid/binding.h"
#include "cosid/clock.h"
#include "cosid/generator.h"
#include "cosid/layout.h"
#include "cosid/options.h"
#include "cosid/runtime.h"
#include "cosid/segment/generator.h"
#include "cosid/segment/memory_range_store.h"
#include "support/temp_dir.h"

#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define COSID_ALLOC_TEST_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define COSID_ALLOC_TEST_SANITIZED 1
#endif

namespace {

// Allocations made by this thread. Thread-local, so that another thread (a runtime's background
// thread, gtest's) cannot change what the test thread sees; constant-initialised, so reading it
// inside operator new needs no initialisation.
thread_local std::uint64_t t_allocations = 0;

void* counted_alloc(std::size_t size) {
  ++t_allocations;
  return std::malloc(size == 0 ? 1 : size);
}

void* counted_aligned_alloc(std::size_t size, std::align_val_t alignment) {
  ++t_allocations;
  const auto align = static_cast<std::size_t>(alignment);
  void* p = nullptr;
  if (posix_memalign(&p, align < sizeof(void*) ? sizeof(void*) : align, size == 0 ? 1 : size) !=
      0) {
    return nullptr;
  }
  return p;
}

}  // namespace

// Every replaceable global allocation and deallocation function ([new.delete]).
void* operator new(std::size_t size) {
  if (void* p = counted_alloc(size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) {
  if (void* p = counted_alloc(size)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return counted_alloc(size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return counted_alloc(size);
}
void* operator new(std::size_t size, std::align_val_t alignment) {
  if (void* p = counted_aligned_alloc(size, alignment)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
  if (void* p = counted_aligned_alloc(size, alignment)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return counted_aligned_alloc(size, alignment);
}
void* operator new[](std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return counted_aligned_alloc(size, alignment);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }

namespace {

constexpr int kIds = 100000;
constexpr int kBatches = 100;
constexpr std::size_t kBatchSize = 256;

#if defined(COSID_ALLOC_TEST_SANITIZED)
#define COSID_SKIP_UNDER_SANITIZER()                                                            \
  GTEST_SKIP() << "built with TSan or MSan, whose runtime interposes malloc and operator new "  \
                  "with its own per-thread machinery: the count is asserted in release, debug " \
                  "and ASan builds"
#else
#define COSID_SKIP_UNDER_SANITIZER() \
  do {                               \
  } while (false)
#endif

// Issues kIds ids with next() and kBatches batches with next_batch(), checking each succeeds, and
// returns how many allocations this thread made meanwhile. `ids` and `batch` are sized before.
std::uint64_t allocations_while_issuing(cosid::Generator& generator,
                                        std::vector<std::uint64_t>& ids,
                                        std::vector<std::uint64_t>& batch, bool& ok) {
  std::error_code ec;
  ok = true;
  const std::uint64_t before = t_allocations;
  for (int i = 0; i < kIds && ok; ++i) {
    ids[static_cast<std::size_t>(i)] = generator.next(ec);
    ok = !ec;
  }
  for (int i = 0; i < kBatches && ok; ++i) {
    ok = generator.next_batch(batch.data(), batch.size(), ec) >= 1 && !ec;
  }
  return t_allocations - before;
}

TEST(Alloc, CountingAllocatorSeesAllocations) {
  COSID_SKIP_UNDER_SANITIZER();
  const std::uint64_t before = t_allocations;
  auto p = std::make_unique<int>(1);
  auto q = std::make_unique<std::uint64_t[]>(3);
  EXPECT_EQ(t_allocations - before, 2u);
}

// A generator over a binding with a far ceiling on the system clock: the default layout's 4,096
// ids a tick, so the 100,000 ids also go through the waits for the next tick.
TEST(Alloc, NextAndNextBatchAllocateNothing) {
  COSID_SKIP_UNDER_SANITIZER();
  const cosid::Layout layout = cosid::layouts::kDefault;
  cosid::SystemClock clock;
  cosid::Binding binding(0, layout.epoch_ms() - 1, layout.end_ms() - 1);
  std::error_code ec;
  cosid::Status status;
  const std::unique_ptr<cosid::Generator> generator =
      cosid::Generator::create(layout, binding, clock, {}, status);
  ASSERT_TRUE(generator) << status.message();
  std::vector<std::uint64_t> ids(kIds);
  std::vector<std::uint64_t> batch(kBatchSize);
  ASSERT_NE(generator->next(ec), 0u) << ec.message();  // warm up

  bool ok = false;
  const std::uint64_t allocations = allocations_while_issuing(*generator, ids, batch, ok);
  ASSERT_TRUE(ok);
  EXPECT_EQ(allocations, 0u);
  for (std::size_t i = 1; i < ids.size(); ++i) ASSERT_LT(ids[i - 1], ids[i]);
}

// The same through a Runtime on a real state file, its background thread renewing the ceiling
// (every 50 ms here): the thread that issues ids still allocates nothing.
TEST(Alloc, RuntimeGeneratorAllocatesNothing) {
  COSID_SKIP_UNDER_SANITIZER();
  const TempDir dir("alloc_test");
  cosid::Options options;
  options.slot = 0;
  options.state_file = dir.path() + "/state";
  options.ahead = std::chrono::milliseconds(100);
  cosid::Status status;
  const std::unique_ptr<cosid::Runtime> runtime = cosid::Runtime::open(options, {}, status);
  ASSERT_TRUE(runtime) << status.message();
  cosid::Generator* generator = runtime->generator("default", status);
  ASSERT_NE(generator, nullptr) << status.message();
  std::error_code ec;
  std::vector<std::uint64_t> ids(kIds);
  std::vector<std::uint64_t> batch(kBatchSize);
  ASSERT_NE(generator->next(ec), 0u) << ec.message();  // warm up

  bool ok = false;
  const std::uint64_t allocations = allocations_while_issuing(*generator, ids, batch, ok);
  ASSERT_TRUE(ok);
  EXPECT_EQ(allocations, 0u);
  EXPECT_TRUE(runtime->close(status)) << status.message();
}

// A segment generator with segments of 100: the 100,000 ids cross a thousand segment ends, with
// the calls that wait for the background claim among them. Then, closed, the failing calls of the
// error_code overloads: they build no message.
TEST(Alloc, SegmentNextAndNextBatchAllocateNothingNorDoTheirFailures) {
  COSID_SKIP_UNDER_SANITIZER();
  cosid::segment::GeneratorOptions options;
  options.key = "alloc";
  options.step = 100;
  cosid::Status status;
  const std::unique_ptr<cosid::segment::SegmentGenerator> generator =
      cosid::segment::SegmentGenerator::open(std::make_shared<cosid::segment::MemoryRangeStore>(),
                                             options, status);
  ASSERT_TRUE(generator) << status.message();
  std::error_code ec;
  std::vector<std::int64_t> batch(kBatchSize);
  ASSERT_NE(generator->next(ec), 0) << ec.message();  // warm up

  bool ok = true;
  std::int64_t last = 0;
  const std::uint64_t before = t_allocations;
  for (int i = 0; i < kIds && ok; ++i) {
    const std::int64_t id = generator->next(ec);
    ok = !ec && id > last;
    last = id;
  }
  for (int i = 0; i < kBatches && ok; ++i) {
    ok = generator->next_batch(batch.data(), batch.size(), ec) >= 1 && !ec;
  }
  const std::uint64_t issuing = t_allocations - before;
  ASSERT_TRUE(ok) << ec.message();
  EXPECT_EQ(issuing, 0u);

  ASSERT_TRUE(generator->close(status)) << status.message();
  const std::uint64_t closed_before = t_allocations;
  EXPECT_EQ(generator->next(ec), 0);
  EXPECT_EQ(ec, cosid::make_error_code(cosid::errc::closed));
  EXPECT_EQ(generator->next_batch(batch.data(), batch.size(), ec), 0u);
  EXPECT_EQ(ec, cosid::make_error_code(cosid::errc::closed));
  EXPECT_EQ(t_allocations - closed_before, 0u);
}

}  // namespace
