// A child process the arena talks to by lines over its standard input and
// output (an external engine). Reads wait with a deadline; a child that does
// not answer in time is killed, never waited on forever.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace inarow::arena {

class Subprocess {
 public:
  using Clock = std::chrono::steady_clock;

  // Start `argv[0]` (searched on PATH) with its stdin and stdout on pipes;
  // stderr is inherited. Returns nullopt with `error` set if it cannot start.
  static std::optional<Subprocess> spawn(const std::vector<std::string>& argv, std::string* error);
  // Split a command line on blanks, honouring '...' and "..." quoting.
  static std::vector<std::string> split_command(const std::string& command);

  Subprocess(Subprocess&&) noexcept;
  Subprocess& operator=(Subprocess&&) noexcept;
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;
  ~Subprocess();  // kills the child if it still runs

  // Send one line (a newline is appended). False if the child has gone.
  bool write_line(const std::string& line);
  enum class ReadStatus { line, timeout, closed };
  // The next line without its line ending (CR LF, LF or CR), by the deadline.
  ReadStatus read_line(std::string& line, Clock::time_point deadline);
  // Close stdin, give the child `grace` to exit, then kill it; reap it.
  void stop(std::chrono::milliseconds grace);
  void kill();
  pid_t pid() const { return pid_; }

 private:
  Subprocess(pid_t pid, int in, int out) : pid_(pid), in_(in), out_(out) {}
  void close_fds();
  bool reaped_try();

  pid_t pid_ = -1;
  int in_ = -1;   // child's stdin, our write end
  int out_ = -1;  // child's stdout, our read end
  std::string buffer_;
};

}  // namespace inarow::arena
