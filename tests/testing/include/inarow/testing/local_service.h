// What the tests' private services (a PostgreSQL cluster, a redis-server)
// share: a free port on 127.0.0.1, a child process with its output in a
// log that dies with the tests, waiting for it, the end of its log, and
// one instance per test process, started on first use and stopped when
// every test has run.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "inarow/common/expected.h"

namespace inarow::testing {

// A port nobody listens on now (the kernel's pick); a race with another
// process is caught when the service cannot bind it.
std::uint16_t free_loopback_port();

// The end of a file (at most `bytes` of it), from byte `from` on.
std::string file_tail(const std::filesystem::path& file, std::uintmax_t from = 0,
                      std::size_t bytes = 2000);
// Its size, 0 if it is not there yet.
std::uintmax_t file_size_or_zero(const std::filesystem::path& file);

struct SpawnOptions {
  // Run as this user and group (PostgreSQL refuses to run as root).
  std::optional<std::pair<uid_t, gid_t>> as_user;
  // What the child gets when the tests die (PR_SET_PDEATHSIG): SIGKILL for
  // a service with nothing to save, SIGINT for PostgreSQL's fast shutdown;
  // 0 for none (a program that ends by itself).
  int death_signal = 9;
};

// Runs argv[0] (a path) with its standard output and error appended to
// `log` and standard input from /dev/null; the child's pid. Everything is
// made before the fork: the child only makes system calls until it runs
// the program. The death signal is tied to the calling thread: call it
// from the main thread, or from one that outlives the child.
pid_t spawn_logged(const std::vector<std::string>& argv, const std::filesystem::path& log,
                   const SpawnOptions& options = {});

// Waits up to `timeout` for `pid`; its wait status, or nullopt if it still runs.
std::optional<int> wait_for_exit(pid_t pid, std::chrono::milliseconds timeout);

// One T per test process: get() makes it on first use (or says again why
// it could not), and a gtest environment destroys it after the last test.
// Define one at namespace scope (its environment must be registered before
// the tests run).
template <class T>
class PerProcess {
 public:
  using Make = std::function<inarow::expected<std::unique_ptr<T>, std::string>()>;

  PerProcess() { ::testing::AddGlobalTestEnvironment(new Stop(*this)); }

  T* get(const Make& make) {
    std::lock_guard lock(mutex_);
    if (instance_) return instance_.get();
    if (!failure_.empty()) return nullptr;  // tried once: the same answer
    auto made = make();
    if (!made) {
      failure_ = made.error();
      return nullptr;
    }
    instance_ = std::move(*made);
    return instance_.get();
  }
  const std::string& error() {
    std::lock_guard lock(mutex_);
    return failure_;
  }

 private:
  class Stop : public ::testing::Environment {
   public:
    explicit Stop(PerProcess& owner) : owner_(owner) {}
    void TearDown() override {
      std::lock_guard lock(owner_.mutex_);
      owner_.instance_.reset();
    }

   private:
    PerProcess& owner_;
  };

  std::mutex mutex_;
  std::unique_ptr<T> instance_;
  std::string failure_;
};

}  // namespace inarow::testing
