// SPDX-License-Identifier: Apache-2.0
#include "crash_fs.h"

#include "window/state_record.h"

namespace cosid::testing {

ImageState decode_image(const std::vector<unsigned char>& image) {
  ImageState out;
  if (image.size() != detail::kStateFileSize) return out;
  const detail::StateImage decoded = detail::decode_image(image.data());
  for (int b = 0; b < 2; ++b) {
    out.block_valid[b] = decoded.valid(b);
    out.blocks[b] = decoded.records[b];
  }
  if (decoded.current >= 0) {
    out.valid = true;
    out.block = decoded.current;
    out.record = out.blocks[out.block];
  }
  return out;
}

bool Auditor::check(std::uint64_t id, const std::string& context) {
  ++checked_;
  // The last millisecond of the id's tick: every millisecond of it must lie inside the window.
  const std::int64_t t = layout_.tick_end_ms(layout_.parse(id).timestamp);
  const std::uint64_t version = fs_.durable_version();
  if (version != version_) {
    state_ = decode_image(fs_.durable(path_));
    version_ = version;
  }
  const ImageState& state = state_;
  if (state.valid && t <= state.record.ceiling_ms) return true;
  violations_.push_back(
      context + ": id " + std::to_string(id) + " has t=" + std::to_string(t) +
      (state.valid ? " above the durable ceiling " + std::to_string(state.record.ceiling_ms)
                   : std::string(" but the durable file has no valid record")));
  return false;
}

}  // namespace cosid::testing
