// Real processes for tests. ServerProcess runs inarow-server on 127.0.0.1
// with an ephemeral port (read from its log); ChildProcess runs any program
// with pipes for standard input and output, and reads its lines with
// deadlines so a test never hangs.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "inarow/testing/temp_dir.h"

namespace inarow::testing {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

class ServerProcess {
 public:
  // `store` is a file (kept across restarts) or ":memory:"; port 0 is ephemeral.
  // `binary` defaults to the inarow-server this build made.
  explicit ServerProcess(std::string store, std::uint16_t port = 0,
                         std::string binary = INAROW_SERVER_BINARY);
  ~ServerProcess();
  std::uint16_t port() const { return port_; }
  std::string url() const;
  // SIGTERM and wait: the graceful stop (bye, close 1001).
  void stop();
  // Start again on the same port and store.
  void restart();

 private:
  void start(std::uint16_t port);
  std::string store_;
  std::string binary_;
  TempDir dir_;
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
