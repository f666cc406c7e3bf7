// SPDX-License-Identifier: Apache-2.0
// RuntimeMetrics: a snapshot of what a Runtime has done, and its text in the Prometheus
// exposition format (version 0.0.4), made without any dependency.
//
// Runtime::metrics() fills the snapshot: the generator's counters (Generator::stats()), the
// state file's writes, the window and the slot. Counters only grow while the runtime lives;
// floor and ceiling are instants in Unix milliseconds. to_prometheus() prints every field under
// the names below, with the labels namespace="..." and slot="..." on every sample:
//
//   cosid_ids_issued_total              counter  ids returned by the generator
//   cosid_sequence_waits_total          counter  waits: a tick's sequence was used up
//   cosid_ceiling_waits_total           counter  waits for a higher ceiling
//   cosid_clock_backwards_total         counter  waits: the clock was behind the last tick
//   cosid_floor_waits_total             counter  waits for the clock to pass the floor
//   cosid_generator_failures_total      counter  generator calls that returned an error
//   cosid_state_writes_total            counter  ceilings made durable in the state file
//   cosid_state_write_failures_total    counter  attempts to make a ceiling durable that failed
//   cosid_state_slow_syncs_total        counter  attempts to make a ceiling durable that took
//                                                longer than ahead/4
//   cosid_lease_renewals_total          counter  lease renewals that succeeded
//   cosid_lease_renewal_failures_total  counter  lease renewals that failed
//   cosid_lease_losses_total            counter  leases lost (slot_lost)
//   cosid_floor_timestamp_seconds       gauge    the window's floor, Unix seconds
//   cosid_ceiling_timestamp_seconds     gauge    the window's durable ceiling, Unix seconds
//   cosid_state_sync_max_seconds        gauge    the longest attempt to make a ceiling durable
//                                                in the last minute, in seconds
//
// Each kind of wait is counted once per call that waited for it, however long it waited.
//
// The instants are printed in seconds, as Prometheus names them (`_timestamp_seconds`), with the
// milliseconds as three exact decimals: 1796005378123 ms prints as 1796005378.123. The sync time
// is printed in seconds with its microseconds as six exact decimals: 12345 us prints as 0.012345.
//
// Thread safety: RuntimeMetrics is a plain value. to_prometheus() reads only its argument and may
// be called from any thread.
#ifndef COSID_METRICS_H_
#define COSID_METRICS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cosid/export.h"

namespace cosid {

struct COSID_EXPORT RuntimeMetrics {
  std::string namespace_name;  // Options::namespace_name
  std::uint32_t slot = 0;

  // From Generator::stats(); all 0 until the first call to Runtime::generator().
  std::uint64_t ids_issued = 0;
  std::uint64_t sequence_waits = 0;   // waits at the sequence limit of a tick
  std::uint64_t ceiling_waits = 0;    // waits at the ceiling
  std::uint64_t clock_backwards = 0;  // waits: the clock was behind the last tick issued
  std::uint64_t floor_waits = 0;      // waits for the clock to pass the floor (not the one at open)
  std::uint64_t generator_failures = 0;

  // The state file: every ceiling made durable, the first one Runtime::open() writes before any
  // id included (so 1 right after open), and every failed attempt. Both stay 0 without a state
  // file. The clean-shutdown record close() writes is not a ceiling and is not counted.
  std::uint64_t state_writes = 0;
  std::uint64_t state_write_failures = 0;

  // How long the state file's ceilings take to become durable (the write and fdatasync of both
  // blocks, the first ceiling included, failed attempts too), on the clock's monotonic time. Ids
  // stop when one takes longer than about ahead/2 (renewal is due when ahead/2 remains), so:
  // state_slow_syncs counts those that took longer than ahead/4 (the event kSlowSync reports
  // them), and state_sync_max_us is the longest of the last minute, in microseconds. "The last
  // minute" is the current 10-second interval of the monotonic clock and the five before it: a
  // sync is shown for at least 50 s and at most 60 s after it ended. Set ahead above twice that
  // value. Both stay 0 without a state file and with a store.
  std::uint64_t state_slow_syncs = 0;
  std::int64_t state_sync_max_us = 0;

  // The window (floor, ceiling], in Unix milliseconds.
  std::int64_t floor_ms = 0;
  std::int64_t ceiling_ms = 0;

  // A store lease's renewals. A static slot (state file or none) holds no lease: these stay 0.
  std::uint64_t lease_renewals = 0;
  std::uint64_t lease_renewal_failures = 0;
  std::uint64_t lease_losses = 0;
};

// The snapshot as Prometheus text: for each metric a `# HELP` and a `# TYPE` line, then its
// sample. Label values are escaped as the format requires (backslash, double quote, line feed).
// Every line ends with a line feed.
COSID_EXPORT std::string to_prometheus(const RuntimeMetrics& metrics);

// Several snapshots (one per runtime, say one per namespace) in one text: each metric's `# HELP`
// and `# TYPE` appear once, followed by one sample per snapshot, as the format requires of a
// metric family. Concatenating single texts instead would repeat them, which scrapers reject.
COSID_EXPORT std::string to_prometheus(const std::vector<RuntimeMetrics>& snapshots);

}  // namespace cosid

#endif  // COSID_METRICS_H_
