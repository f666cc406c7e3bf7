// How the commands that issue ids (`next`, `segment next`) write them: whole lines gathered into
// chunks, each chunk written and flushed once it is large, or at once when streaming; and, when
// streaming (-n 0), SIGINT and SIGTERM ask the command to stop after the current id.
//
// Thread safety: one IdOutput per command run, on its one thread; the stop flag is set by the
// signal handler and read by that thread.
#ifndef COSID_CLI_ID_OUTPUT_H_
#define COSID_CLI_ID_OUTPUT_H_

#include <cstdio>
#include <string>

namespace cosid {
namespace cli {

// Makes SIGINT and SIGTERM set the flag stop_requested() reads (SA_RESTART: a write the signal
// interrupts goes on, and the command stops after it).
void install_stop_handlers();
bool stop_requested() noexcept;

class IdOutput {
 public:
  // `name` is the command's, for the message of a failed write.
  IdOutput(const char* name, std::FILE* out, std::FILE* err) : name_(name), out_(out), err_(err) {}

  // Where the caller appends whole lines.
  std::string& chunk() noexcept { return chunk_; }

  // After a line: writes the chunk when `streaming` (flushed, a line at a time) or once it is
  // large. False when the write failed: the run must stop.
  bool line_done(bool streaming);

  // Writes and flushes the chunk. On failure stops the run: quietly for a closed pipe (the reader
  // has gone: the command ignores SIGPIPE, so that it shows as EPIPE), with a message on `err` for
  // anything else; failed() is then true.
  bool flush();

  bool failed() const noexcept { return failed_; }

 private:
  const char* name_;
  std::FILE* out_;
  std::FILE* err_;
  std::string chunk_;
  bool failed_ = false;
};

}  // namespace cli
}  // namespace cosid

#endif  // COSID_CLI_ID_OUTPUT_H_
