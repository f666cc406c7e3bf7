// SPDX-License-Identifier: Apache-2.0
// cosid bench: measures how many ids a Runtime on a real state file issues per second, on N
// threads, against the layout's sequence limit.
#include <dirent.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "base/parse_util.h"
#include "cli/commands.h"
#include "cli/layout_flags.h"
#include "cli/output_format.h"
#include "cli/warning_printer.h"
#include "cosid/clock.h"
#include "cosid/generator.h"
#include "cosid/options.h"
#include "cosid/runtime.h"

namespace cosid {
namespace cli {
namespace {

constexpr const char* kName = "bench";

constexpr const char* kDescription =
    "Measures the generator: opens a Runtime on slot 0 over a real state file (a new temporary\n"
    "file in $TMPDIR or /tmp, removed afterwards, unless --state-file names one), with the\n"
    "background thread that renews the ceiling, and lets N threads call next() (or next_batch()\n"
    "with --batch K > 1) for S seconds. Then it prints one JSON line:\n"
    "\n"
    "  "
    "{\"threads\":N,\"seconds\":S,\"ids\":...,\"ids_per_s\":...,\"limit_per_s\":...,\"ratio\":...,"
    "\n"
    "   \"cpu_s\":...,\"cpu_s_per_million_ids\":...,\"end_lead_ms\":...,\"busy_loops\":K,"
    "\"busy_cpu_s\":...}\n"
    "\n"
    "  ids_per_s              ids issued per second of wall time, all threads together\n"
    "  limit_per_s            the layout's sequence limit: 2^sequence_bits ids per tick\n"
    "                         (4096000 for the default layout)\n"
    "  ratio                  ids_per_s / limit_per_s; above 1 by at most the ticks that\n"
    "                         --max-drift lets the run borrow at its end (see end_lead_ms)\n"
    "  cpu_s                  CPU seconds (user + system) the process used while measuring,\n"
    "                         less what the busy loops used\n"
    "  cpu_s_per_million_ids  cpu_s per million ids: what waiting at the limit costs\n"
    "  end_lead_ms            the last id's time minus the clock at the end, in ms: above 0,\n"
    "                         ticks not yet come were borrowed; ratio counts their ids, so\n"
    "                         over the run the clock's own share is about\n"
    "                         ratio - end_lead_ms / (1000 * S)\n"
    "  busy_loops             K of --busy-loops (0 without it)\n"
    "  busy_cpu_s             CPU seconds the busy loops got\n"
    "\n"
    "--busy-loops K runs the measurement under load: K more threads of this process spin on a\n"
    "counter from before the first id until after the last, competing with the generator's\n"
    "threads for the cores, as other work on a shared machine does.\n"
    "\n"
    "--verify keeps every id and checks afterwards that none was issued twice. A failed next()\n"
    "or a duplicate is reported and the exit status is 1. The figures depend on the machine and\n"
    "its load: compare them within one run. A run of S seconds touches up to S + 1 ticks, so for\n"
    "a layout that counts seconds give many seconds, or the ratio can approach (S + 1) / S.\n";

constexpr std::uint64_t kMaxThreads = 1024;
constexpr std::uint64_t kMaxSeconds = 3600;
constexpr std::uint64_t kMaxBatch = 1u << 20;
constexpr std::uint64_t kMaxBusyLoops = 64;
// --verify reserves room for the ids up front, estimating no more than this many ids per second
// and thread when the layout's limit is higher (a wide sequence); the vectors grow past it if
// they must.
constexpr double kVerifyRatePerThread = 50e6;

// A new directory under $TMPDIR (or /tmp) for the state file, removed with everything the state
// file left in it when the object goes away.
class TempStateDir {
 public:
  bool create(std::string& error) {
    const char* tmp = std::getenv("TMPDIR");
    std::string dir = (tmp != nullptr && *tmp != '\0') ? tmp : "/tmp";
    if (dir.back() != '/') dir += '/';
    dir += "cosid-bench-XXXXXX";
    if (mkdtemp(&dir[0]) == nullptr) {
      error = "cannot create a temporary directory " + quote(dir) + ": " +
              std::generic_category().message(errno) +
              ". Set TMPDIR to a writable directory or give --state-file";
      return false;
    }
    dir_ = dir;
    return true;
  }
  std::string state_file() const { return dir_ + "/state"; }
  ~TempStateDir() {
    if (dir_.empty()) return;
    // The state file and anything else it left (the temporary file it is created through).
    if (DIR* dir = opendir(dir_.c_str())) {
      while (const struct dirent* entry = readdir(dir)) {
        const std::string name = entry->d_name;
        if (name != "." && name != "..") unlink((dir_ + "/" + name).c_str());
      }
      closedir(dir);
    }
    rmdir(dir_.c_str());
  }

 private:
  std::string dir_;
};

double cpu_seconds() {
  struct rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  const auto seconds = [](const struct timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

std::string fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

// The first failure any worker saw; the others stop at once.
struct FirstError {
  std::mutex mutex;
  std::string message;
  bool set = false;
  void record(const Status& status) {
    std::lock_guard<std::mutex> lock(mutex);
    if (set) return;
    set = true;
    message = status.message();
  }
};

struct Worker {
  std::uint64_t ids = 0;
  std::vector<std::uint64_t> kept;  // with --verify
};

// The CPU time of the calling thread, in seconds (0 if it cannot be read).
double thread_cpu_seconds() {
  struct timespec now {};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) != 0) return 0;
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

// --busy-loops: load beside the measurement. Spins on a volatile counter (a store the compiler
// must keep, so the loop is not optimised away) until `stop`, then reports the CPU time it got,
// which the process's cpu_s then leaves out. Relaxed on `stop`: it publishes nothing, the loop
// only has to see it eventually.
void run_busy_loop(const std::atomic<bool>& stop, double& cpu_s) {
  const double before = thread_cpu_seconds();
  volatile std::uint64_t counter = 0;
  while (!stop.load(std::memory_order_relaxed)) counter = counter + 1;
  cpu_s = thread_cpu_seconds() - before;
}

void run_worker(Generator& generator, std::uint64_t batch, bool verify, std::atomic<int>& ready,
                const std::atomic<bool>& go, const std::atomic<bool>& stop, FirstError& first_error,
                std::atomic<bool>& failed, Worker& worker) {
  std::vector<std::uint64_t> buffer(static_cast<std::size_t>(batch));
  Status status;
  ready.fetch_add(1, std::memory_order_acq_rel);
  while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
  std::uint64_t ids = 0;
  while (!stop.load(std::memory_order_relaxed)) {
    if (batch == 1) {
      const std::uint64_t id = generator.next(status);
      if (!status.ok()) {
        first_error.record(status);
        failed.store(true, std::memory_order_relaxed);
        break;
      }
      ++ids;
      if (verify) worker.kept.push_back(id);
    } else {
      const std::size_t got = generator.next_batch(buffer.data(), buffer.size(), status);
      if (!status.ok()) {
        first_error.record(status);
        failed.store(true, std::memory_order_relaxed);
        break;
      }
      ids += got;
      if (verify)
        worker.kept.insert(worker.kept.end(), buffer.begin(),
                           buffer.begin() + static_cast<std::ptrdiff_t>(got));
    }
  }
  worker.ids = ids;
}

// What the flags ask for.
struct BenchSettings {
  std::uint64_t threads = 1;
  std::uint64_t seconds = 1;
  std::uint64_t batch = 1;
  std::uint64_t busy_loops = 0;
  std::chrono::milliseconds max_drift = GeneratorOptions{}.max_drift;  // the runtime's default
  Layout layout;
  bool verify = false;
};

// What one run measured.
struct Measurement {
  double elapsed_s = 0;
  double cpu_s = 0;  // less what the busy loops used
  double busy_cpu_s = 0;
  std::int64_t end_lead_ms = 0;
};

// The counts --threads, --seconds, --batch and --busy-loops, each 1 or more but the last.
bool read_counts(const ParsedArgs& args, BenchSettings& settings, std::string& error) {
  if ((args.has("threads") && !parse_option_number("threads", args.value_or("threads", ""),
                                                   kMaxThreads, settings.threads, error)) ||
      (args.has("seconds") && !parse_option_number("seconds", args.value_or("seconds", ""),
                                                   kMaxSeconds, settings.seconds, error)) ||
      (args.has("batch") && !parse_option_number("batch", args.value_or("batch", ""), kMaxBatch,
                                                 settings.batch, error)) ||
      (args.has("busy-loops") && !parse_option_number("busy-loops", args.value_or("busy-loops", ""),
                                                      kMaxBusyLoops, settings.busy_loops, error))) {
    return false;
  }
  const char* zero = settings.threads == 0   ? "--threads: give at least 1 thread"
                     : settings.seconds == 0 ? "--seconds: give at least 1 second"
                     : settings.batch == 0   ? "--batch: give at least 1 id per call"
                                             : nullptr;
  if (zero == nullptr) return true;
  error = zero;
  return false;
}

// Reads the flags into `settings`; on a usage error, sets `error` to its text and returns false.
bool read_settings(const ParsedArgs& args, BenchSettings& settings, std::string& error) {
  if (!read_counts(args, settings, error)) return false;
  if (args.has("max-drift")) {
    const std::string text = args.value_or("max-drift", "");
    Status why;
    if (!detail::parse_duration(text, settings.max_drift, why)) {
      error = "--max-drift: " + quote(text) + ": " + why.message();
      return false;
    }
  }
  if (!layout_from_flags(args, settings.layout, error)) return false;
  // An empty path would silently mean no state file at all, which the flag is there to avoid.
  if (args.has("state-file") && args.value_or("state-file", "").empty()) {
    error = "--state-file: empty: give the path of the state file to benchmark with";
    return false;
  }
  if (!args.positionals().empty()) {
    error = "unexpected argument " + quote(args.positionals().front());
    return false;
  }
  settings.verify = args.has("verify");
  return true;
}

// The layout's sequence limit, in ids per second.
double limit_per_second(const Layout& layout) {
  const double ticks_per_second = 1000.0 / static_cast<double>(unit_ms(layout.unit));
  const double per_tick = static_cast<double>(std::uint64_t{1} << layout.sequence_bits);
  return per_tick * ticks_per_second;
}

// One Worker a thread; with --verify, room for the ids each is expected to keep.
std::vector<Worker> make_workers(const BenchSettings& settings) {
  std::vector<Worker> workers(static_cast<std::size_t>(settings.threads));
  if (!settings.verify) return workers;
  // At most the limit over the run and the drift, plus a tick; a wide sequence is capped by
  // what a thread can do. Split evenly, with a margin: a thread may get more than its share.
  const double ticks_per_second = 1000.0 / static_cast<double>(unit_ms(settings.layout.unit));
  const double threads = static_cast<double>(settings.threads);
  const double span_s = static_cast<double>(settings.seconds) +
                        static_cast<double>(settings.max_drift.count()) / 1000.0 +
                        1.0 / ticks_per_second;
  const double total =
      std::min(limit_per_second(settings.layout) * span_s, kVerifyRatePerThread * threads * span_s);
  const auto each =
      static_cast<std::size_t>(total / threads * 1.25) + static_cast<std::size_t>(settings.batch);
  for (Worker& worker : workers) worker.kept.reserve(each);
  return workers;
}

// Runs the workers (beside the busy loops) for --seconds or until one fails, and measures.
Measurement measure(Generator& generator, const BenchSettings& settings,
                    std::vector<Worker>& workers, FirstError& first_error) {
  // The load first, so that every id of the measurement is issued beside it.
  std::atomic<bool> stop_busy{false};
  std::vector<double> busy_cpu(static_cast<std::size_t>(settings.busy_loops), 0.0);
  std::vector<std::thread> busy;
  busy.reserve(busy_cpu.size());
  for (double& cpu : busy_cpu) {
    busy.emplace_back(run_busy_loop, std::cref(stop_busy), std::ref(cpu));
  }

  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::atomic<bool> stop{false};
  std::atomic<bool> failed{false};
  std::vector<std::thread> pool;
  pool.reserve(workers.size());
  for (Worker& worker : workers) {
    pool.emplace_back(run_worker, std::ref(generator), settings.batch, settings.verify,
                      std::ref(ready), std::cref(go), std::cref(stop), std::ref(first_error),
                      std::ref(failed), std::ref(worker));
  }
  while (ready.load(std::memory_order_acquire) < static_cast<int>(settings.threads)) {
    std::this_thread::yield();
  }
  const double cpu_before = cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  go.store(true, std::memory_order_release);
  const auto deadline = start + std::chrono::seconds(settings.seconds);
  while (!failed.load(std::memory_order_relaxed) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  stop.store(true, std::memory_order_relaxed);
  const auto end = std::chrono::steady_clock::now();
  for (std::thread& thread : pool) thread.join();
  const double process_cpu_s = cpu_seconds() - cpu_before;
  Measurement measurement;
  measurement.elapsed_s = std::chrono::duration<double>(end - start).count();
  // How far the last id's time lies ahead of the clock (ticks borrowed with --max-drift or by the
  // generator's own catching up): those ids count in `ratio` although their ticks had not come
  // yet. close() returns the last timestamp issued; the runtime's close() closes it again,
  // which is a no-op.
  SystemClock clock;
  measurement.end_lead_ms = generator.close() - clock.now_ms();
  stop_busy.store(true, std::memory_order_relaxed);
  for (std::thread& thread : busy) thread.join();
  // The busy loops ran a little before cpu_before and after the reading above, so what they used
  // is a little more than their share of process_cpu_s; never below 0.
  for (const double cpu : busy_cpu) measurement.busy_cpu_s += cpu;
  measurement.cpu_s = std::max(0.0, process_cpu_s - measurement.busy_cpu_s);
  return measurement;
}

// --verify: each thread's ids increase and no id was issued twice; else the refusal's text.
bool verify_ids(std::vector<Worker>& workers, std::uint64_t ids, std::string& error) {
  std::vector<std::uint64_t> all;
  all.reserve(static_cast<std::size_t>(ids));
  for (Worker& worker : workers) {
    // Each thread's own ids must increase: the generator issues them in order.
    if (std::adjacent_find(worker.kept.begin(), worker.kept.end(),
                           [](std::uint64_t a, std::uint64_t b) { return a >= b; }) !=
        worker.kept.end()) {
      error =
          "--verify: a thread received an id not greater than its previous one: the generator "
          "is broken. Please report it";
      return false;
    }
    all.insert(all.end(), worker.kept.begin(), worker.kept.end());
    std::vector<std::uint64_t>().swap(worker.kept);
  }
  std::sort(all.begin(), all.end());
  const auto duplicate = std::adjacent_find(all.begin(), all.end());
  if (duplicate == all.end()) return true;
  error = "--verify: id " + std::to_string(*duplicate) +
          " was issued twice: the generator is broken. Please report it";
  return false;
}

// The JSON line the description documents.
std::string result_line(const BenchSettings& settings, std::uint64_t ids,
                        const Measurement& measurement) {
  const double limit_per_s = limit_per_second(settings.layout);
  const double ids_per_s = static_cast<double>(ids) / measurement.elapsed_s;
  const double cpu_s = measurement.cpu_s;
  Record record;
  record.add_number("threads", settings.threads)
      .add_number("seconds", settings.seconds)
      .add_number("ids", ids)
      .add_number("ids_per_s", static_cast<std::uint64_t>(ids_per_s + 0.5))
      .add_number("limit_per_s", static_cast<std::uint64_t>(limit_per_s))
      .add_number("ratio", fixed(ids_per_s / limit_per_s, 4))
      .add_number("cpu_s", fixed(cpu_s, 3))
      .add_number("cpu_s_per_million_ids",
                  fixed(ids == 0 ? 0.0 : cpu_s * 1e6 / static_cast<double>(ids), 4))
      .add_number("end_lead_ms", measurement.end_lead_ms)
      .add_number("busy_loops", settings.busy_loops)
      .add_number("busy_cpu_s", fixed(measurement.busy_cpu_s, 3));
  return record.to_json_line();
}

// The runtime options: slot 0 on --state-file or a file in `temp_dir`; false with `error` when
// the temporary directory cannot be made.
bool runtime_options(const ParsedArgs& args, const BenchSettings& settings, TempStateDir& temp_dir,
                     Options& options, std::string& error) {
  options.layout = settings.layout;
  options.slot = 0;
  if (args.has("state-file")) {
    options.state_file = args.value_or("state-file", "");
  } else {
    if (!temp_dir.create(error)) return false;
    options.state_file = temp_dir.state_file();
  }
  options.start_wait = options.ahead + std::chrono::seconds(1);
  return true;
}

int run_bench(Invocation& invocation) {
  const ParsedArgs& args = invocation.args;
  const auto usage = [&](const std::string& text) {
    return usage_error(invocation.err, kName, std::string(kName) + ": " + text);
  };
  const auto failed = [&](const std::string& text) {
    return runtime_error(invocation.err, std::string(kName) + ": " + text);
  };
  BenchSettings settings;
  std::string error;
  if (!read_settings(args, settings, error)) return usage(error);
  TempStateDir temp_dir;
  Options options;
  if (!runtime_options(args, settings, temp_dir, options, error)) return failed(error);
  if (settings.max_drift >= options.ahead) {
    return usage("--max-drift: " + quote(args.value_or("max-drift", "")) +
                 ": must be shorter than the ceiling's lead, " +
                 detail::format_duration(options.ahead));
  }

  Status status;
  WarningPrinter warnings(invocation.err, args.has("state-file"));
  RuntimeEnvironment environment;
  environment.listener = &warnings;
  environment.generator.max_drift = settings.max_drift;
  const std::unique_ptr<Runtime> runtime = Runtime::open(options, environment, status);
  if (runtime == nullptr) return call_failed(invocation.err, kName, status);
  Generator* generator = runtime->generator("default", status);
  if (generator == nullptr) {
    Status ignored;
    (void)runtime->close(ignored);
    return failed(status.code().message());
  }

  std::vector<Worker> workers = make_workers(settings);
  FirstError first_error;
  const Measurement measurement = measure(*generator, settings, workers, first_error);
  Status closing;
  if (!runtime->close(closing)) {
    std::fprintf(invocation.err, "cosid: warning: %s\n", closing.message().c_str());
  }
  if (first_error.set) return failed(first_error.message);
  std::uint64_t ids = 0;
  for (const Worker& worker : workers) ids += worker.ids;
  if (settings.verify && !verify_ids(workers, ids, error)) return failed(error);
  const std::string line = result_line(settings, ids, measurement);
  std::fwrite(line.data(), 1, line.size(), invocation.out);
  return finish_output(kExitOk, invocation.out, invocation.err);
}

}  // namespace

const Command& bench_command() {
  static const Command command{
      kName,
      "measure ids per second against the layout's sequence limit",
      "cosid bench [--threads N] [--seconds S] [--batch K] [--max-drift DUR] [--busy-loops K] "
      "[OPTION]...",
      kDescription,
      {
          {"Options",
           {
               {"threads", '\0', "N", "call the generator from N threads (default 1)"},
               {"seconds", '\0', "S", "measure for S whole seconds (default 1)"},
               {"batch", '\0', "K",
                "take up to K ids a call with next_batch() (default 1: next())"},
               {"max-drift", '\0', "DUR",
                "let a used-up tick borrow ticks up to DUR ahead, such as 5ms (default 20ms, "
                "the library's; 0ms: none)"},
               {"busy-loops", '\0', "K",
                "run K threads that spin beside the measurement, 0 to 64 (default 0: no load)"},
               {"state-file", '\0', "PATH",
                "state file for slot 0 (default: a temporary one, removed after)"},
               {"verify", '\0', nullptr, "keep every id and check that none was issued twice"},
               help_option(),
           }},
          layout_flags_group(),
      },
      {
          {kExitOk, "the measurement ran and its JSON line was printed"},
          {kExitFailure,
           "the runtime did not open, next() failed, --verify found a duplicate, or a write "
           "failed"},
          usage_exit_status(),
      },
      run_bench,
  };
  return command;
}

}  // namespace cli
}  // namespace cosid
