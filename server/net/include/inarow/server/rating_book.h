// The rating book: the Glicko-2 rating and rated games per variant of every
// player the server holds in memory, read when a match starts and updated
// when a rated match ends. A player's entries come in with the player
// (Identity::admit, from the store) and go with them (forget); the store
// has everyone's, and the leaderboard is read from there. Shared by the
// lobby and the match actors; every call may come from any thread.
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
  // A player's rating in a variant (the starting one if none is held).
  Rating get(const std::string& player, const std::string& variant) const;
  // A player's ratings and games as the store has them.
  void admit(const PlayerRecord& record);
  // A player let go of: their entries go too.
  void forget(const std::string& player);

  // A rated match ended with `result`: both players' new ratings go into the
  // book and into `ops` (to be stored with the result); the changes are
  // returned for the ended event. Nothing for unrated matches or results
  // that are not a win or a draw.
  std::vector<inarow::v1::RatingChange> rate(const MatchSetup& match, inarow::v1::Result result,
                                             std::vector<StoreOp>& ops);

 private:
  struct Entry {
    Rating rating;
    int games = 0;  // rated games finished
  };
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, Entry> book_;  // (player, variant)
};

}  // namespace inarow::server
