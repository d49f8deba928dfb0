// Drive an io_context from the test's own thread until a condition holds:
// the socket-free tests of the router and the match actor wait for the event
// they mean, never for a fixed time.
#pragma once

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <functional>

namespace inarow::testing {

// Runs `ioc` in slices of 5 ms until `done` holds; false if it does not
// within `timeout`.
inline bool run_until(boost::asio::io_context& ioc, const std::function<bool()>& done,
                      std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    ioc.restart();
    ioc.run_for(std::chrono::milliseconds(5));
  }
  return true;
}

}  // namespace inarow::testing
