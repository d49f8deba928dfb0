// The server's chess clock: Fischer time control, initial time plus an
// increment after each move. Time points are passed in, so tests can drive it
// without waiting.
#pragma once

#include <array>
#include <chrono>
#include <optional>

#include "inarow/engine/variant.h"

namespace inarow::server {

using SteadyClock = std::chrono::steady_clock;
using TimePoint = SteadyClock::time_point;
using Millis = std::chrono::milliseconds;

// A Fischer clock as a request sets it (v1::TimeControl, checked): initial
// time and increment, both 0 for an untimed game.
struct ClockSetting {
  Millis initial{0};
  Millis increment{0};

  friend bool operator==(const ClockSetting&, const ClockSetting&) = default;
};

class FischerClock {
 public:
  FischerClock() = default;  // no clock: nobody ever runs out of time
  FischerClock(Millis initial, Millis increment);

  bool enabled() const { return enabled_; }
  Millis initial() const { return initial_; }
  Millis increment() const { return increment_; }

  // Start the side's clock (stopping nobody: call stop first if one runs).
  void start(Side s, TimePoint now);
  // Charge the running side for the time since it started and stop it.
  void stop(TimePoint now);
  // The side to move finished its move: charge it, add the increment and
  // start the other side. False (and nothing changes) if its flag had fallen.
  bool press(TimePoint now);
  // The players change sides (an opening's swap): each one's time goes with
  // them, and the clock that runs keeps running for the same player.
  void swap_sides(TimePoint now);

  Millis remaining(Side s, TimePoint now) const;
  std::optional<Side> running() const { return running_; }
  // How long until the running side's flag falls; nullopt if none runs.
  std::optional<Millis> until_flag(TimePoint now) const;
  bool flagged(TimePoint now) const;

  // Restore stored values; nothing runs afterwards.
  void set(Millis first, Millis second);

 private:
  bool enabled_ = false;
  Millis initial_{0};
  Millis increment_{0};
  std::array<Millis, 2> left_{};
  std::optional<Side> running_;
  TimePoint since_{};
};

}  // namespace inarow::server
