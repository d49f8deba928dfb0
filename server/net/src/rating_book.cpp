#include "inarow/server/rating_book.h"

#include <algorithm>
#include <array>
#include <span>

namespace inarow::server {

namespace v1 = ::inarow::v1;

Rating RatingBook::get(const std::string& player, const std::string& variant) const {
  std::lock_guard lock(mutex_);
  auto it = book_.find({player, variant});
  return it == book_.end() ? Rating{} : it->second;
}

void RatingBook::set(const std::string& player, const std::string& variant, Rating r) {
  std::lock_guard lock(mutex_);
  book_[{player, variant}] = r;
}

void RatingBook::set_games(const std::string& player, const std::string& variant, int games) {
  std::lock_guard lock(mutex_);
  games_[{player, variant}] = games;
}

std::vector<RatingBook::Entry> RatingBook::of_player(const std::string& player) const {
  std::lock_guard lock(mutex_);
  std::vector<Entry> out;
  for (auto it = book_.lower_bound({player, {}}); it != book_.end() && it->first.first == player;
       ++it) {
    auto g = games_.find(it->first);
    out.push_back(Entry{it->first.second, it->second, g == games_.end() ? 0 : g->second});
  }
  return out;
}

std::vector<RatingBook::Ranked> RatingBook::ranking(const std::string& variant,
                                                    int min_games) const {
  std::vector<Ranked> out;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [key, games] : games_) {
      if (key.second != variant || games < min_games) continue;
      auto r = book_.find(key);
      if (r != book_.end()) out.push_back(Ranked{key.first, r->second, games});
    }
  }
  std::sort(out.begin(), out.end(), [](const Ranked& a, const Ranked& b) {
    if (a.rating.rating != b.rating.rating) return a.rating.rating > b.rating.rating;
    if (a.games != b.games) return a.games > b.games;
    return a.player < b.player;
  });
  return out;
}

std::vector<v1::RatingChange> RatingBook::rate(const MatchSetup& match, v1::Result r,
                                               std::vector<StoreOp>& ops) {
  std::vector<v1::RatingChange> changes;
  if (!match.rated) return changes;
  if (r != v1::RESULT_FIRST_WINS && r != v1::RESULT_SECOND_WINS && r != v1::RESULT_DRAW) {
    return changes;
  }
  const double first_score = r == v1::RESULT_FIRST_WINS ? 1.0 : r == v1::RESULT_DRAW ? 0.5 : 0.0;
  const std::string& variant = match.variant.name;
  // Read and written under one lock: a player's two matches may end at once
  // on two strands, and each update must start from the other's result.
  std::lock_guard lock(mutex_);
  std::array<Rating*, 2> book;
  std::array<Rating, 2> before;
  for (int s = 0; s < 2; ++s) {
    book[s] = &book_.try_emplace({match.seats[s].player_id, variant}).first->second;
    before[s] = *book[s];
  }
  for (int s = 0; s < 2; ++s) {
    const double score = s == 0 ? first_score : 1.0 - first_score;
    const GameResult game{before[1 - s], score};
    const Rating after = glicko2_update(before[s], std::span(&game, 1));
    const std::string& player = match.seats[s].player_id;
    *book[s] = after;
    ++games_[{player, variant}];
    ops.push_back(store_op::SaveRating{player, variant, after});
    v1::RatingChange c;
    c.set_player_id(player);
    *c.mutable_before() = to_proto(before[s]);
    *c.mutable_after() = to_proto(after);
    changes.push_back(c);
  }
  return changes;
}

}  // namespace inarow::server
