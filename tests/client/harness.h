// Test support for the console client: real processes on real sockets.
// ServerProcess runs inarow-server on 127.0.0.1 with an ephemeral port (read
// from its log); ClientProcess runs inarow with pipes for standard input and
// output, and reads its lines with deadlines so a test never hangs.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace inarow::client::testing {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// A fresh directory under the system's temp dir, removed with the object.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

class ServerProcess {
 public:
  // `store` is a file (kept across restarts) or ":memory:"; port 0 is ephemeral.
  ServerProcess(std::string store, std::uint16_t port = 0);
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
  TempDir dir_;
  pid_t pid_ = -1;
  std::uint16_t port_ = 0;
  int starts_ = 0;
};

class ClientProcess {
 public:
  ClientProcess(const std::string& url, const std::string& name, const fs::path& config_dir,
                std::vector<std::string> extra_args = {});
  ~ClientProcess();
  ClientProcess(const ClientProcess&) = delete;
  ClientProcess& operator=(const ClientProcess&) = delete;

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

// key=value fields of a client line; values unquoted.
std::optional<std::string> field(const std::string& line, const std::string& key);

}  // namespace inarow::client::testing
