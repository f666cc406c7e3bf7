// SPDX-License-Identifier: Apache-2.0
// The C API's segment ids (include/cosid/c.h, "Segment ids") over segment::SegmentGenerator, with
// the reporting of every entry point (c_support.h).
#include <cstdint>
#include <memory>
#include <new>
#include <string>

#include "capi/c_support.h"
#include "cosid/c.h"
#include "cosid/segment/generator.h"
#include "cosid/segment/options.h"
#include "cosid/store_registry.h"

// The registry comes first so that it outlives the generator and the store it made (the memory
// store is the registry's own).
struct cosid_segment_t {
  cosid::StoreRegistry registry;
  std::unique_ptr<cosid::segment::SegmentGenerator> generator;
};

namespace {

using cosid::c_api::close_of;
using cosid::c_api::guarded;
using cosid::c_api::issue_batch;
using cosid::c_api::issue_next;
using cosid::c_api::null_argument;
using cosid::c_api::out_of_memory;
using cosid::c_api::report;
using cosid::c_api::sources_of;
using cosid::c_api::succeed;

}  // namespace

int cosid_segment_open(const char* config_file, const char* const* keys, const char* const* values,
                       size_t count, const char* key, cosid_segment_t** out, char* err,
                       size_t err_len) noexcept {
  return guarded(err, err_len, [&] {
    static const char kName[] = "cosid_segment_open";
    if (key == nullptr) return null_argument(kName, "key", err, err_len);
    if (out == nullptr) return null_argument(kName, "out", err, err_len);
    cosid::OptionSources sources;
    const int given = sources_of(kName, config_file, keys, values, count, sources, err, err_len);
    if (given != COSID_OK) return given;
    cosid::Status status;
    const cosid::segment::SegmentOptions options =
        cosid::segment::resolve_segment_options(sources, status);
    if (!status.ok()) return report(status, err, err_len);
    std::unique_ptr<cosid_segment_t> handle(new (std::nothrow) cosid_segment_t);
    if (handle == nullptr) return out_of_memory(err, err_len);
    std::shared_ptr<cosid::segment::RangeStore> store =
        handle->registry.open_range(cosid::RangeStoreContext{options}, status);
    if (store == nullptr) return report(status, err, err_len);
    const cosid::segment::KeyDefinition definition = options.definition_of(key);
    cosid::segment::GeneratorOptions generator_options;
    generator_options.key = key;
    generator_options.offset = definition.offset;
    generator_options.step = definition.step;
    generator_options.safe_distance = options.safe_distance;
    handle->generator =
        cosid::segment::SegmentGenerator::open(std::move(store), generator_options, status);
    if (handle->generator == nullptr) return report(status, err, err_len);
    *out = handle.release();
    return succeed(err, err_len);
  });
}

int cosid_segment_next(cosid_segment_t* segment, int64_t* id, char* err, size_t err_len) noexcept {
  return guarded(err, err_len, [&] {
    static const char kName[] = "cosid_segment_next";
    if (segment == nullptr) return null_argument(kName, "segment", err, err_len);
    if (id == nullptr) return null_argument(kName, "id", err, err_len);
    return issue_next(*segment->generator, id, err, err_len);
  });
}

int cosid_segment_next_batch(cosid_segment_t* segment, int64_t* ids, size_t count, size_t* written,
                             char* err, size_t err_len) noexcept {
  return guarded(err, err_len, [&] {
    static const char kName[] = "cosid_segment_next_batch";
    if (segment == nullptr) return null_argument(kName, "segment", err, err_len);
    if (ids == nullptr) return null_argument(kName, "ids", err, err_len);
    if (written == nullptr) return null_argument(kName, "written", err, err_len);
    return issue_batch(kName, *segment->generator, ids, count, written, err, err_len);
  });
}

int cosid_segment_close(cosid_segment_t* segment, char* err, size_t err_len) noexcept {
  return guarded(err, err_len, [&] {
    if (segment == nullptr) return null_argument("cosid_segment_close", "segment", err, err_len);
    return close_of(*segment->generator, err, err_len);
  });
}

void cosid_segment_destroy(cosid_segment_t* segment) noexcept {
  // ~SegmentGenerator closes it first; a destructor does not throw.
  delete segment;
}
