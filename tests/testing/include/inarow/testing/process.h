// Real processes for tests. ServerProcess runs inarow-server on 127.0.0.1
// with an ephemeral port (read from its log), with the flags and descriptor
// limit a test asks for, and stops it gracefully or kills it; ChildProcess
// runs any program with pipes for standard input and output, and reads its
// lines with deadlines so a test never hangs.
#pragma once

#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "inarow/testing/temp_dir.h"

namespace inarow::testing {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// How a ServerProcess runs inarow-server.
struct ServerOptions {
  // A file (kept across restarts) or ":memory:".
  std::string store = ":memory:";
  // 0 is ephemeral.
  std::uint16_t port = 0;
  // --no-sync: acks do not wait for fdatasync. False runs as in production.
  bool no_sync = true;
  // Flags after the ones above (--store, --port, --log-level info, ...).
  std::vector<std::string> extra_args;
  // RLIMIT_NOFILE (soft and hard) set in the child before it runs the server.
  std::optional<rlim_t> max_files;
  // What the destructor sends: SIGTERM (a graceful stop, SIGKILL if it does
  // not end within 10 s) or SIGKILL (no goodbye).
  int end_signal = SIGTERM;
  // Defaults to the inarow-server this build made.
  std::string binary = INAROW_SERVER_BINARY;
};

class ServerProcess {
 public:
  explicit ServerProcess(ServerOptions options);
  explicit ServerProcess(std::string store, std::uint16_t port = 0,
                         std::string binary = INAROW_SERVER_BINARY);
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  std::uint16_t port() const { return port_; }
  std::string url() const;
  // The running server's process id; -1 once stopped or killed.
  pid_t pid() const { return pid_; }
  // What the server has written (standard output and error) since it last
  // started.
  std::string log() const;
  // SIGTERM and wait: the graceful stop (bye, close 1001).
  void stop();
  // SIGKILL and wait: a crash (no goodbye, no flush, no checkpoint).
  void kill();
  // Waits for an exit the test brought about (a signal it sent itself); the
  // status (exit code, or 128+signal), nullopt on timeout.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout = 10s);
  // Start again on the same port and store.
  void restart();

 private:
  void start(std::uint16_t port);
  ServerOptions options_;
  TempDir dir_;
  fs::path log_;
  pid_t pid_ = -1;
  std::uint16_t port_ = 0;
  int starts_ = 0;
};

class ChildProcess {
 public:
  // Runs argv[0] (a path) with the arguments that follow.
  explicit ChildProcess(std::vector<std::string> argv);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  void send(const std::string& line);
  void close_stdin();
  // The next line of standard output, or nullopt when none comes in time or
  // the output ended.
  std::optional<std::string> next_line(std::chrono::milliseconds timeout = 10s);
  // Lines until one starts with `prefix`; that line, or nullopt (the lines
  // skipped are kept in transcript()).
  std::optional<std::string> expect(const std::string& prefix,
                                    std::chrono::milliseconds timeout = 15s);
  std::optional<std::string> expect_if(const std::function<bool(const std::string&)>& match,
                                       std::chrono::milliseconds timeout = 15s);
  // Waits for the exit; the status (exit code, or 128+signal), nullopt on timeout.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout = 10s);
  void kill_now();
  const std::string& transcript() const { return transcript_; }

 private:
  pid_t pid_ = -1;
  int in_ = -1;
  int out_ = -1;
  std::string buffer_;
  std::string transcript_;
  bool eof_ = false;
};

}  // namespace inarow::testing
