// Messages per connection: a token bucket refilled at `rate` per second,
// holding at most `burst`.
#pragma once

#include <algorithm>
#include <chrono>

#include "inarow/server/fischer_clock.h"

namespace inarow::server {

class RateLimiter {
 public:
  RateLimiter(double rate, double burst) : rate_(rate), burst_(burst), tokens_(burst) {}
  // True if a message may pass now (and takes its token).
  bool take(TimePoint now) {
    const double dt = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    tokens_ = std::min(burst_, tokens_ + dt * rate_);
    if (tokens_ < 1.0) return false;
    tokens_ -= 1.0;
    return true;
  }

 private:
  double rate_, burst_, tokens_;
  TimePoint last_ = SteadyClock::now();
};

}  // namespace inarow::server
