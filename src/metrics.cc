// SPDX-License-Identifier: Apache-2.0
#include "cosid/metrics.h"

#include <cstddef>

namespace cosid {
namespace {

struct Counter {
  const char* name;
  const char* help;  // constant text without backslash or line feed: needs no escaping
  std::uint64_t RuntimeMetrics::*field;
};

struct Gauge {
  const char* name;
  const char* help;
  std::int64_t RuntimeMetrics::*field;  // printed in seconds
  int decimals;                         // of the field's unit: 3 for ms, 6 for us
};

// The order of the output. The names follow the Prometheus conventions: counters end in
// `_total`, instants are `_timestamp_seconds`, durations `_seconds`.
constexpr Counter kCounters[] = {
    {"cosid_ids_issued_total", "Ids returned by the generator.", &RuntimeMetrics::ids_issued},
    {"cosid_sequence_waits_total",
     "Calls that waited for a new tick because the sequence of a tick was used up.",
     &RuntimeMetrics::sequence_waits},
    {"cosid_ceiling_waits_total", "Calls that waited for the ceiling to be raised.",
     &RuntimeMetrics::ceiling_waits},
    {"cosid_clock_backwards_total",
     "Calls that waited because the clock was behind the last tick issued.",
     &RuntimeMetrics::clock_backwards},
    {"cosid_floor_waits_total", "Calls that waited for the clock to pass the floor.",
     &RuntimeMetrics::floor_waits},
    {"cosid_generator_failures_total", "Calls to the generator that returned an error.",
     &RuntimeMetrics::generator_failures},
    {"cosid_state_writes_total", "Ceilings made durable in the state file.",
     &RuntimeMetrics::state_writes},
    {"cosid_state_write_failures_total",
     "Attempts to make a ceiling durable in the state file that failed.",
     &RuntimeMetrics::state_write_failures},
    {"cosid_state_slow_syncs_total",
     "Attempts to make a ceiling durable in the state file that took longer than ahead/4.",
     &RuntimeMetrics::state_slow_syncs},
    {"cosid_lease_renewals_total", "Lease renewals that succeeded (0 for a static slot).",
     &RuntimeMetrics::lease_renewals},
    {"cosid_lease_renewal_failures_total", "Lease renewals that failed (0 for a static slot).",
     &RuntimeMetrics::lease_renewal_failures},
    {"cosid_lease_losses_total",
     "Leases lost, which stops the ids of the slot (0 for a static slot).",
     &RuntimeMetrics::lease_losses},
};

constexpr Gauge kGauges[] = {
    {"cosid_floor_timestamp_seconds",
     "The floor of the slot's window: every id issued lies after it. Unix time in seconds.",
     &RuntimeMetrics::floor_ms, 3},
    {"cosid_ceiling_timestamp_seconds",
     "The durable ceiling of the slot's window: no id lies after it. Unix time in seconds.",
     &RuntimeMetrics::ceiling_ms, 3},
    {"cosid_state_sync_max_seconds",
     "The longest attempt to make a ceiling durable in the state file in the last minute: ids "
     "stop when one outlasts about ahead/2.",
     &RuntimeMetrics::state_sync_max_us, 6},
};

// A label value as the text format wants it: backslash, double quote and line feed escaped.
void append_label_value(std::string& out, const std::string& value) {
  for (const char c : value) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
}

// `{namespace="...",slot="..."}`
std::string labels_of(const RuntimeMetrics& metrics) {
  std::string labels = "{namespace=\"";
  append_label_value(labels, metrics.namespace_name);
  labels += "\",slot=\"";
  labels += std::to_string(metrics.slot);
  labels += "\"}";
  return labels;
}

// A count of 10^-decimals seconds (ms: 3, us: 6) as seconds with that many decimals, in
// integers: exact where a double would round.
void append_seconds(std::string& out, std::int64_t value, int decimals) {
  std::uint64_t unit = 1;
  for (int i = 0; i < decimals; ++i) unit *= 10;
  // Unsigned arithmetic, so that the most negative value has a magnitude too.
  const std::uint64_t magnitude =
      value < 0 ? 0 - static_cast<std::uint64_t>(value) : static_cast<std::uint64_t>(value);
  if (value < 0) out += '-';
  out += std::to_string(magnitude / unit);
  const std::string fraction = std::to_string(magnitude % unit);
  out += '.';
  out.append(static_cast<std::size_t>(decimals) - fraction.size(), '0');
  out += fraction;
}

void append_header(std::string& out, const char* name, const char* help, const char* type) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
}

}  // namespace

std::string to_prometheus(const std::vector<RuntimeMetrics>& snapshots) {
  std::vector<std::string> labels;
  labels.reserve(snapshots.size());
  for (const RuntimeMetrics& metrics : snapshots) labels.push_back(labels_of(metrics));

  std::string out;
  for (const Counter& counter : kCounters) {
    append_header(out, counter.name, counter.help, "counter");
    for (std::size_t i = 0; i < snapshots.size(); ++i) {
      out += counter.name;
      out += labels[i];
      out += ' ';
      out += std::to_string(snapshots[i].*counter.field);
      out += '\n';
    }
  }
  for (const Gauge& gauge : kGauges) {
    append_header(out, gauge.name, gauge.help, "gauge");
    for (std::size_t i = 0; i < snapshots.size(); ++i) {
      out += gauge.name;
      out += labels[i];
      out += ' ';
      append_seconds(out, snapshots[i].*gauge.field, gauge.decimals);
      out += '\n';
    }
  }
  return out;
}

std::string to_prometheus(const RuntimeMetrics& metrics) {
  return to_prometheus(std::vector<RuntimeMetrics>{metrics});
}

}  // namespace cosid
