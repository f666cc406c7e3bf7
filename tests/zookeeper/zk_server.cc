// SPDX-License-Identifier: Apache-2.0
#include "zk_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>

#include "base/fail.h"
#include "support/test_util.h"

extern char** environ;

namespace cosid::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// How long a server gets to start serving: a JVM starts in 2 to 5 s on an idle machine, far
// slower on two cores shared with other builds; this bound only guards a hang.
constexpr milliseconds kStartDeadline{60000};
// How often a starting server, or an ensemble electing a leader, is asked again: it tells nothing
// by itself, so asking is the only way to know.
constexpr milliseconds kPollInterval{50};

constexpr const char* kDefaultJar = "/usr/share/java/zookeeper.jar";
constexpr const char* kFaketimeLibrary = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";

std::string env_or(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::string(value) : fallback;
}

bool is_file(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The java binary: $JAVA (a path, or a name looked up on PATH), else java on PATH; "" if none
// is executable. Resolved here because execve() does not search PATH.
std::string java_binary() {
  const std::string java = env_or("JAVA", "java");
  if (java.find('/') != std::string::npos) return access(java.c_str(), X_OK) == 0 ? java : "";
  std::istringstream path(env_or("PATH", "/usr/bin:/bin"));
  std::string dir;
  while (std::getline(path, dir, ':')) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + java;
    if (is_file(candidate) && access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

std::string server_jar() { return env_or("COSID_ZOOKEEPER_JAR", kDefaultJar); }

// The server's class path: the jar, and beside it the jute jar (the wire format's classes; Debian's
// zookeeper.jar names it in its manifest already, a distribution's lib/ does not) and, with
// COSID_ZK_LOG=1, slf4j-simple, which makes the server log (without a binding slf4j drops all).
std::string class_path() {
  const std::string jar = server_jar();
  const std::string dir = jar.substr(0, jar.find_last_of('/') + 1);
  std::string path = jar;
  if (dir + "zookeeper-jute.jar" != jar && is_file(dir + "zookeeper-jute.jar")) {
    path += ":" + dir + "zookeeper-jute.jar";
  }
  if (env_or("COSID_ZK_LOG", "") == "1" && is_file(dir + "slf4j-simple.jar")) {
    path += ":" + dir + "slf4j-simple.jar";
  }
  return path;
}

bool write_text(const std::string& path, const std::string& text, Status& status) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    return detail::fail(status, errc::store_unavailable,
                        "cannot write " + path + ": check the test's temporary directory");
  }
  return true;
}

bool make_dir(const std::string& path, Status& status) {
  if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
    return detail::fail(status, errc::store_unavailable,
                        "mkdir " + path + " failed: " + std::strerror(errno));
  }
  return true;
}

// `count` distinct free ports on 127.0.0.1: each socket bound to port 0 stays open until all are
// chosen, so the kernel hands out distinct ones; the servers bind them a moment later.
bool free_ports(int count, std::vector<int>& ports, Status& status) {
  std::vector<int> sockets;
  bool ok = true;
  for (int i = 0; i < count && ok; ++i) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    ok = fd >= 0 && bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
         getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
    if (fd >= 0) sockets.push_back(fd);
    if (ok) ports.push_back(ntohs(address.sin_port));
  }
  const int error = errno;
  for (const int fd : sockets) close(fd);
  if (!ok) {
    return detail::fail(status, errc::store_unavailable,
                        std::string("cannot bind a socket to 127.0.0.1:0 to find a free port: ") +
                            std::strerror(error));
  }
  return true;
}

// The settings every server shares: the tick that sets session and sync timeouts, no admin web
// server (it would take port 8080), and only the four-letter words the tests ask. Each server
// adds its data directory and its client address, on 127.0.0.1 only.
constexpr const char* kCommonConfig =
    "tickTime=2000\n"
    "initLimit=5\n"
    "syncLimit=2\n"
    "admin.enableServer=false\n"
    "4lw.commands.whitelist=ruok,srvr,mntr\n";

int remaining_ms(steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<milliseconds>(deadline - steady_clock::now());
  return left.count() > 0 ? static_cast<int>(left.count()) : 0;
}

// Asks `done` every kPollInterval until it says yes (true) or `timeout` has passed (false).
template <typename Done>
bool poll_until(Done done, milliseconds timeout) {
  const auto deadline = steady_clock::now() + timeout;
  while (!done()) {
    if (steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(kPollInterval);
  }
  return true;
}

}  // namespace

bool zookeeper_available(std::string& why) {
  if (java_binary().empty()) {
    const std::string java = env_or("JAVA", "");
    why = (java.empty() ? std::string("no java on PATH") : "$JAVA=" + java + " is no java") +
          ": apt-get install default-jre-headless";
    return false;
  }
  if (!is_file(server_jar())) {
    why = "no ZooKeeper server jar at " + server_jar() +
          " (COSID_ZOOKEEPER_JAR names another): apt-get install zookeeper";
    return false;
  }
  return true;
}

bool zookeeper_required() { return env_or("CI", "") == "true"; }

std::string exchange(int port, const std::string& request, milliseconds timeout,
                     std::size_t max_bytes) {
  const auto deadline = steady_clock::now() + timeout;
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return "";
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  std::string answer;
  bool connected = connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  if (!connected && errno == EINPROGRESS) {
    pollfd waiting{fd, POLLOUT, 0};
    int error = 0;
    socklen_t length = sizeof error;
    connected = poll(&waiting, 1, remaining_ms(deadline)) == 1 &&
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 && error == 0;
  }
  // MSG_NOSIGNAL: a server that closed first must not raise SIGPIPE in the test.
  if (connected && send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
                       static_cast<ssize_t>(request.size())) {
    char buffer[4096];
    while (answer.size() < max_bytes) {
      pollfd waiting{fd, POLLIN, 0};
      if (poll(&waiting, 1, remaining_ms(deadline)) != 1) break;  // timed out
      const ssize_t got = recv(fd, buffer, sizeof buffer, 0);
      if (got <= 0) break;  // closed (the four-letter words end so) or reset
      answer.append(buffer, static_cast<std::size_t>(got));
    }
  }
  close(fd);
  return answer;
}

std::string four_letter(int port, const std::string& word, milliseconds timeout) {
  return exchange(port, word, timeout, std::string::npos);
}

std::string four_letter_field(const std::string& answer, const std::string& name) {
  const std::string key = name + ": ";
  std::istringstream lines(answer);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.compare(0, key.size(), key) == 0) return line.substr(key.size());
  }
  return "";
}

std::vector<std::string> faketime_env(const std::string& offset, std::string& why) {
  if (!is_file(kFaketimeLibrary)) {
    why = std::string("no libfaketime at ") + kFaketimeLibrary + ": apt-get install libfaketime";
    return {};
  }
  // FAKETIME_FORCE_MONOTONIC_FIX=0: libfaketime's rewrite of pthread_cond_timedwait on a
  // monotonic condition variable stretches the JVM's timed waits (measured on two cores: a
  // standalone server served after 21 s with it, 1 s without); the JVM's condition variables
  // wait on the monotonic clock, which is not faked, so they need no fix.
  return {std::string("LD_PRELOAD=") + kFaketimeLibrary, "FAKETIME=" + offset,
          "FAKETIME_DONT_FAKE_MONOTONIC=1", "FAKETIME_FORCE_MONOTONIC_FIX=0"};
}

// --- ZkProcess ---

ZkProcess::ZkProcess(std::string dir, std::string main_class, int client_port)
    : dir_(std::move(dir)), main_class_(std::move(main_class)), client_port_(client_port) {}

ZkProcess::~ZkProcess() { kill9(); }

bool ZkProcess::start(const std::vector<std::string>& env, Status& status) {
  if (running()) return true;
  std::string why;
  if (!zookeeper_available(why)) return detail::fail(status, errc::store_unavailable, why);

  // Everything the child needs is built before fork(): the test may have threads (a ZooKeeper
  // client's), so the child may only make async-signal-safe calls until it execs.
  std::vector<std::string> args = {java_binary(), "-Xmx128m", "-XX:+UseSerialGC"};
  if (env_or("COSID_ZK_LOG", "") == "1") {
    // Each line with its time, so that a log tells how long each step took.
    args.push_back("-Dorg.slf4j.simpleLogger.showDateTime=true");
    args.push_back("-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS");
  }
  args.insert(args.end(), {"-cp", class_path(), main_class_, dir_ + "/zoo.cfg"});
  std::vector<std::string> variables;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string variable = *entry;
    const std::string name = variable.substr(0, variable.find('='));
    bool overridden = false;
    for (const std::string& extra : env)
      overridden |= extra.compare(0, name.size() + 1, name + "=") == 0;
    if (!overridden) variables.push_back(variable);
  }
  variables.insert(variables.end(), env.begin(), env.end());
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(&arg[0]);
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (std::string& variable : variables) envp.push_back(&variable[0]);
  envp.push_back(nullptr);

  const std::string log = dir_ + "/server.log";
  const int log_fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  const int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (log_fd < 0 || null_fd < 0) {
    const int error = errno;
    if (log_fd >= 0) close(log_fd);
    if (null_fd >= 0) close(null_fd);
    return detail::fail(status, errc::store_unavailable,
                        "cannot open " + log + " or /dev/null: " + std::strerror(error));
  }
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child == 0) {
    // The JVM dies with the thread that started it, however the test ends; if the parent is
    // already gone, the signal would never come.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    // dup2 leaves the copies without O_CLOEXEC, so the JVM keeps exactly these three.
    dup2(null_fd, STDIN_FILENO);
    dup2(log_fd, STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    execve(argv[0], argv.data(), envp.data());
    static const char kMessage[] = "zk_server: execve of java failed\n";
    (void)!write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
    _exit(127);
  }
  const int fork_error = errno;
  close(log_fd);
  close(null_fd);
  if (child < 0) {
    return detail::fail(status, errc::store_unavailable,
                        std::string("fork failed: ") + std::strerror(fork_error));
  }
  pid_ = child;
  paused_ = false;
  return true;
}

bool ZkProcess::wait_serving(Status& status) {
  const auto deadline = steady_clock::now() + kStartDeadline;
  std::string last;
  while (true) {
    int wait_status = 0;
    if (pid_ > 0 && waitpid(pid_, &wait_status, WNOHANG) == pid_) {
      pid_ = -1;
      return detail::fail(status, errc::store_unavailable,
                          "the ZooKeeper server of " + dir_ + " exited (wait status " +
                              std::to_string(wait_status) + ") before serving; its log ends:\n" +
                              log_tail());
    }
    if (pid_ <= 0) {
      return detail::fail(status, errc::store_unavailable,
                          "the ZooKeeper server of " + dir_ + " is not running");
    }
    // imok says the process is up; a Mode in srvr that it serves clients (a peer without a
    // quorum answers imok but "not currently serving requests").
    if (four_letter(client_port_, "ruok") == "imok") {
      last = four_letter(client_port_, "srvr");
      if (!four_letter_field(last, "Mode").empty()) return true;
    }
    if (steady_clock::now() >= deadline) {
      return detail::fail(status, errc::store_unavailable,
                          "the ZooKeeper server of " + dir_ + " (pid " + std::to_string(pid_) +
                              ", client port " + std::to_string(client_port_) +
                              ") did not serve within " + std::to_string(kStartDeadline.count()) +
                              " ms; srvr said \"" + last + "\"; its log ends:\n" + log_tail());
    }
    std::this_thread::sleep_for(kPollInterval);
  }
}

void ZkProcess::kill9() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  paused_ = false;
}

void ZkProcess::pause() {
  if (pid_ <= 0 || paused_) return;
  kill(pid_, SIGSTOP);
  // Returns once the JVM has stopped, not merely been sent the signal.
  int wait_status = 0;
  while (waitpid(pid_, &wait_status, WUNTRACED) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(wait_status) || WIFSIGNALED(wait_status)) {
    pid_ = -1;  // it died before it stopped, and is reaped
    return;
  }
  paused_ = true;
}

void ZkProcess::resume() {
  if (pid_ <= 0 || !paused_) return;
  kill(pid_, SIGCONT);
  int wait_status = 0;
  while (waitpid(pid_, &wait_status, WCONTINUED) < 0 && errno == EINTR) {
  }
  paused_ = false;
}

std::string ZkProcess::log_tail(int lines) const {
  const std::string text = read_file(dir_ + "/server.log");
  std::size_t start = text.size();
  for (int i = 0; i <= lines && start > 0; ++i) {
    start = text.rfind('\n', start - 1);
    if (start == std::string::npos) {
      start = 0;
      break;
    }
  }
  std::string tail = text.substr(start);
  if (tail.empty()) {
    tail = env_or("COSID_ZK_LOG", "") == "1"
               ? "(empty)"
               : "(empty: run with COSID_ZK_LOG=1 for the server's log)";
  }
  return tail;
}

// --- ZkServer ---

ZkServer::ZkServer(ZkServerOptions options) : options_(std::move(options)), root_("zk_server") {}

ZkServer::~ZkServer() { process_.reset(); }

bool ZkServer::start(Status& status) {
  if (root_.path().empty()) {
    return detail::fail(status, errc::store_unavailable, "no temporary directory for the server");
  }
  std::vector<int> ports;
  if (!free_ports(1, ports, status)) return false;
  const std::string config = std::string(kCommonConfig) + "dataDir=" + root_.file("data") +
                             "\nclientPort=" + std::to_string(ports[0]) +
                             "\nclientPortAddress=127.0.0.1\n";
  if (!make_dir(root_.file("data"), status) || !write_text(root_.file("zoo.cfg"), config, status)) {
    return false;
  }
  process_ = std::make_unique<ZkProcess>(
      root_.path(), "org.apache.zookeeper.server.ZooKeeperServerMain", ports[0]);
  return process_->start(options_.env, status) && process_->wait_serving(status);
}

bool ZkServer::restart(Status& status) {
  if (process_ == nullptr) return start(status);
  process_->kill9();
  return process_->start(options_.env, status) && process_->wait_serving(status);
}

bool ZkServer::serve_again(Status& status) {
  resume();
  if (pid() < 0) return restart(status);
  status.clear();
  return true;
}

std::string ZkServer::connect_string() const { return "127.0.0.1:" + std::to_string(port()); }
int ZkServer::port() const { return process_ ? process_->client_port() : -1; }
pid_t ZkServer::pid() const { return process_ ? process_->pid() : -1; }
void ZkServer::kill9() {
  if (process_) process_->kill9();
}
void ZkServer::pause() {
  if (process_) process_->pause();
}
void ZkServer::resume() {
  if (process_) process_->resume();
}
std::string ZkServer::four_letter(const std::string& word) const {
  return process_ ? testing::four_letter(process_->client_port(), word) : "";
}
std::string ZkServer::log_tail() const { return process_ ? process_->log_tail() : ""; }

// --- ZkEnsemble ---

ZkEnsemble::ZkEnsemble() : root_("zk_ensemble") {}

ZkProcess* ZkEnsemble::peer(int i) const {
  return i >= 0 && i < kPeers ? peers_[static_cast<std::size_t>(i)].get() : nullptr;
}

ZkEnsemble::~ZkEnsemble() {
  for (auto& process : peers_) process.reset();
}

bool ZkEnsemble::start(Status& status) {
  if (root_.path().empty()) {
    return detail::fail(status, errc::store_unavailable, "no temporary directory for the ensemble");
  }
  // Per peer: the client port, the quorum port (followers to the leader), the election port.
  std::vector<int> ports;
  if (!free_ports(3 * kPeers, ports, status)) return false;
  std::string servers;
  for (int i = 0; i < kPeers; ++i) {
    servers += "server." + std::to_string(i + 1) +
               "=127.0.0.1:" + std::to_string(ports[static_cast<std::size_t>(3 * i + 1)]) + ":" +
               std::to_string(ports[static_cast<std::size_t>(3 * i + 2)]) +
               ";127.0.0.1:" + std::to_string(ports[static_cast<std::size_t>(3 * i)]) + "\n";
  }
  for (int i = 0; i < kPeers; ++i) {
    const std::string dir = root_.file("peer" + std::to_string(i + 1));
    const std::string config = std::string(kCommonConfig) + "dataDir=" + dir +
                               "/data\nstandaloneEnabled=false\n" + servers;
    if (!make_dir(dir, status) || !make_dir(dir + "/data", status) ||
        !write_text(dir + "/data/myid", std::to_string(i + 1) + "\n", status) ||
        !write_text(dir + "/zoo.cfg", config, status)) {
      return false;
    }
    peers_[static_cast<std::size_t>(i)] =
        std::make_unique<ZkProcess>(dir, "org.apache.zookeeper.server.quorum.QuorumPeerMain",
                                    ports[static_cast<std::size_t>(3 * i)]);
  }
  // All three first: a peer serves only once a quorum has elected a leader.
  for (auto& process : peers_) {
    if (!process->start({}, status)) return false;
  }
  for (auto& process : peers_) {
    if (!process->wait_serving(status)) return false;
  }
  if (wait_for_leader(kStartDeadline) < 0) {
    return detail::fail(status, errc::store_unavailable,
                        "the ensemble's peers serve but do not agree on one leader and two "
                        "followers; their logs end:\n" +
                            log_tail());
  }
  return true;
}

std::string ZkEnsemble::connect_string() const {
  std::string connect;
  for (int i = 0; i < kPeers; ++i) {
    connect += (i == 0 ? "127.0.0.1:" : ",127.0.0.1:") + std::to_string(port(i));
  }
  return connect;
}

int ZkEnsemble::port(int i) const { return peer(i) ? peer(i)->client_port() : -1; }
pid_t ZkEnsemble::pid(int i) const { return peer(i) ? peer(i)->pid() : -1; }

std::string ZkEnsemble::mode(int i) const {
  if (!peer(i) || !peer(i)->running() || peer(i)->paused()) return "";
  return four_letter_field(four_letter(i, "srvr"), "Mode");
}

int ZkEnsemble::leader() const {
  int leader = -1;
  for (int i = 0; i < kPeers; ++i) {
    if (!peer(i) || !peer(i)->running() || peer(i)->paused()) continue;
    const std::string m = mode(i);
    if (m == "leader" && leader < 0) {
      leader = i;
    } else if (m != "follower") {
      return -1;  // a second leader, or a running peer that does not serve
    }
  }
  return leader;
}

int ZkEnsemble::wait_for_leader(milliseconds timeout) {
  int found = -1;
  (void)poll_until([&] { return (found = leader()) >= 0; }, timeout);
  return found;
}

bool ZkEnsemble::wait_for_mode(int i, const std::string& wanted, milliseconds timeout) {
  return poll_until([&] { return mode(i) == wanted; }, timeout);
}

void ZkEnsemble::kill9(int i) {
  if (peer(i)) peer(i)->kill9();
}

bool ZkEnsemble::restart(int i, const std::vector<std::string>& env, Status& status) {
  if (!peer(i)) {
    return detail::fail(
        status, errc::invalid_argument,
        "peer " + std::to_string(i) + " cannot restart: start() the ensemble first");
  }
  peer(i)->kill9();
  return peer(i)->start(env, status) && peer(i)->wait_serving(status);
}

void ZkEnsemble::pause(int i) {
  if (peer(i)) peer(i)->pause();
}
void ZkEnsemble::resume(int i) {
  if (peer(i)) peer(i)->resume();
}
std::string ZkEnsemble::four_letter(int i, const std::string& word) const {
  return peer(i) ? testing::four_letter(peer(i)->client_port(), word) : "";
}

std::string ZkEnsemble::log_tail() const {
  std::string tails;
  for (int i = 0; i < kPeers; ++i) {
    if (peer(i)) tails += "--- peer " + std::to_string(i) + " ---\n" + peer(i)->log_tail(15);
  }
  return tails;
}

namespace {

std::string& environment_connect_string() {
  static std::string text;
  return text;
}

}  // namespace

void ZkServerEnvironment::SetUp() {
  COSID_REQUIRE_ZOOKEEPER();
  server_ = std::make_unique<ZkServer>();
  Status status;
  ASSERT_TRUE(server_->start(status)) << status.message();
  environment_connect_string() = server_->connect_string();
}

void ZkServerEnvironment::TearDown() { server_.reset(); }

const std::string& ZkServerEnvironment::connect_string() { return environment_connect_string(); }

}  // namespace cosid::testing
