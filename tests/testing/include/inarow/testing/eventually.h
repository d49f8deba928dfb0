// Wait for a condition something else brings about (a server thread, a
// server process): check it now and then until it holds, never sleep a fixed
// time and hope. (For an io_context the test runs itself, see run_until.h.)
#pragma once

#include <chrono>
#include <functional>
#include <thread>

namespace inarow::testing {

// Checks `holds` every `every` until it is true; false if it is not within
// `timeout`. Checks that are requests stay under a server's rate limit at
// the default pace.
inline bool eventually(const std::function<bool()>& holds,
                       std::chrono::milliseconds timeout = std::chrono::seconds(5),
                       std::chrono::milliseconds every = std::chrono::milliseconds(25)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!holds()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(every);
  }
  return true;
}

}  // namespace inarow::testing
