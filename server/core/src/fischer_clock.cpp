#include "inarow/server/fischer_clock.h"

#include <algorithm>

namespace inarow::server {

FischerClock::FischerClock(Millis initial, Millis increment)
    : enabled_(initial.count() > 0), initial_(initial), increment_(increment) {
  left_ = {initial, initial};
}

void FischerClock::start(Side s, TimePoint now) {
  if (!enabled_) return;
  running_ = s;
  since_ = now;
}

void FischerClock::stop(TimePoint now) {
  if (!enabled_ || !running_) return;
  left_[index(*running_)] = remaining(*running_, now);
  running_.reset();
}

bool FischerClock::press(TimePoint now) {
  if (!enabled_ || !running_) return true;
  const Side mover = *running_;
  if (flagged(now)) return false;
  stop(now);
  left_[index(mover)] += increment_;
  start(opponent(mover), now);
  return true;
}

void FischerClock::swap_sides(TimePoint now) {
  if (!enabled_) return;
  const std::optional<Side> was = running_;
  stop(now);
  std::swap(left_[0], left_[1]);
  if (was) start(opponent(*was), now);
}

Millis FischerClock::remaining(Side s, TimePoint now) const {
  if (!enabled_) return Millis{0};
  Millis left = left_[index(s)];
  if (running_ == s) left -= std::chrono::duration_cast<Millis>(now - since_);
  return std::max(left, Millis{0});
}

std::optional<Millis> FischerClock::until_flag(TimePoint now) const {
  if (!enabled_ || !running_) return std::nullopt;
  return remaining(*running_, now);
}

bool FischerClock::flagged(TimePoint now) const {
  if (!enabled_ || !running_) return false;
  return left_[index(*running_)] - (now - since_) <= Millis{0};
}

void FischerClock::set(Millis first, Millis second) {
  left_ = {first, second};
  running_.reset();
}

}  // namespace inarow::server
