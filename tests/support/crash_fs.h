// SPDX-License-Identifier: Apache-2.0
// CrashFs: the in-process crash model of tests/SCENARIOS.md, "Harnesses" (implemented by
// MemoryFs, see memory_fs.h), and the tools the crash campaign and the disk-fault scenarios share:
// decoding the state file a restart would read, and the write-ahead auditor (scenario C-09).
#ifndef COSID_TESTS_SUPPORT_CRASH_FS_H_
#define COSID_TESTS_SUPPORT_CRASH_FS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cosid/layout.h"
#include "cosid/state_file.h"
#include "memory_fs.h"

namespace cosid::testing {

using CrashFs = MemoryFs;
using CrashMode = MemoryFs::CrashMode;

// The record a start would pick from a state file image: the valid block with the highest
// generation. `valid` is false when the image is not 8,192 bytes or has no valid block.
struct ImageState {
  bool valid = false;
  int block = -1;
  StateRecord record;
  bool block_valid[2] = {false, false};
  StateRecord blocks[2];
};
ImageState decode_image(const std::vector<unsigned char>& image);

// C-09, the write-ahead auditor: checks every id a generator returns against the ceiling decoded
// from the *durable* bytes of the state file (what a power loss right now would leave), never the
// value the library caches. check() returns false and remembers a description on a violation.
class Auditor {
 public:
  Auditor(CrashFs& fs, std::string path, const Layout& layout)
      : fs_(fs), path_(std::move(path)), layout_(layout) {}

  // Checks one id just returned; `context` (the seed, the crash point) goes into the message.
  bool check(std::uint64_t id, const std::string& context);
  std::int64_t checked() const { return checked_; }
  const std::vector<std::string>& violations() const { return violations_; }

 private:
  CrashFs& fs_;
  const std::string path_;
  const Layout layout_;
  std::int64_t checked_ = 0;
  std::uint64_t version_ = ~std::uint64_t{0};  // of the durable image decoded below
  ImageState state_;
  std::vector<std::string> violations_;
};

}  // namespace cosid::testing

#endif  // COSID_TESTS_SUPPORT_CRASH_FS_H_
