// The rating book: every player's Glicko-2 rating per variant, read when a
// match starts and updated when a rated match ends. Shared by the lobby and
// the match actors; every call may come from any thread.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "inarow/server/match_core.h"
#include "inarow/server/rating.h"
#include "inarow/server/store.h"

namespace inarow::server {

class RatingBook {
 public:
  Rating get(const std::string& player, const std::string& variant) const;
  void set(const std::string& player, const std::string& variant, Rating r);
  // Rated games finished (restored from the store; rate() counts on).
  void set_games(const std::string& player, const std::string& variant, int games);

  // A player's ratings, by variant name, with their games.
  struct Entry {
    std::string variant;
    Rating rating;
    int games = 0;
  };
  std::vector<Entry> of_player(const std::string& player) const;
  // A variant's players with at least `min_games` games, best first (ties:
  // more games, then the player id).
  struct Ranked {
    std::string player;
    Rating rating;
    int games = 0;
  };
  std::vector<Ranked> ranking(const std::string& variant, int min_games) const;

  // A rated match ended with `result`: both players' new ratings go into the
  // book and into `ops` (to be stored with the result); the changes are
  // returned for the ended event. Nothing for unrated matches or results
  // that are not a win or a draw.
  std::vector<inarow::v1::RatingChange> rate(const MatchSetup& match, inarow::v1::Result result,
                                             std::vector<StoreOp>& ops);

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, Rating> book_;
  std::map<std::pair<std::string, std::string>, int> games_;  // same keys
};

}  // namespace inarow::server
