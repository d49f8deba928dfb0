// The matchmaker's pairing rule, without threads: seekers of the same variant,
// time control and rated-ness are paired when their ratings are within both
// players' windows, and a window widens the longer its player waits. The open
// seeks are also there to be listed, and one may be taken out of the queue by
// its id (accepted from the lobby, whatever the window). The lobby
// (net/lobby.h) owns one on its strand and calls pair() on every new seek and on
// a timer.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "inarow/server/fischer_clock.h"

namespace inarow::server {

struct Seeker {
  Seeker() = default;
  Seeker(std::string player, Variant variant_, ClockSetting clock_, double rating_,
         TimePoint since_, bool rated_ = true, std::string seek_id_ = {})
      : player_id(std::move(player)),
        variant(std::move(variant_)),
        clock(clock_),
        rating(rating_),
        since(since_),
        rated(rated_),
        seek_id(std::move(seek_id_)) {}

  // Only seeks of the same variant, clock and rated-ness pair.
  bool same_terms(const Seeker& other) const {
    return variant.name == other.variant.name && clock == other.clock && rated == other.rated;
  }

  std::string player_id;
  Variant variant;  // by its canonical name, which tells every rule apart
  ClockSetting clock;
  double rating = 1500.0;
  TimePoint since{};
  bool rated = true;
  std::string seek_id;  // names the open seek in the lobby
};

struct MatchmakerPolicy {
  double initial_window = 100.0;  // rating points either side at once
  double widening_per_second = 50.0;
  double max_window = 1000.0;

  // A seeker's window after waiting this long (never less than at once).
  double window(double waited_seconds) const {
    return std::min(max_window,
                    initial_window + widening_per_second * std::max(0.0, waited_seconds));
  }
};

class Matchmaker {
 public:
  explicit Matchmaker(MatchmakerPolicy policy = {}) : policy_(policy) {}

  // False if the player already seeks.
  bool add(Seeker s);
  bool remove(const std::string& player_id);
  bool seeking(const std::string& player_id) const;
  std::size_t size() const { return queue_.size(); }
  // The open seeks, oldest first.
  const std::vector<Seeker>& seekers() const { return queue_; }
  const Seeker* find(const std::string& seek_id) const;
  // Takes the seek with this id out of the queue (it was accepted).
  std::optional<Seeker> take(const std::string& seek_id);

  double window(const Seeker& s, TimePoint now) const;
  // Pairs everyone who can be paired now. The longer-waiting player comes
  // first in each pair (and plays first); each seeker is offered the closest
  // rating among those that fit. A seeker `can_play` refuses (one at a limit
  // on live games, say) is passed over and stays in the queue.
  std::vector<std::pair<Seeker, Seeker>> pair(
      TimePoint now, const std::function<bool(const Seeker&)>& can_play = nullptr);

 private:
  MatchmakerPolicy policy_;
  std::vector<Seeker> queue_;  // oldest first
};

}  // namespace inarow::server
