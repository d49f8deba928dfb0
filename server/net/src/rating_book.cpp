#include "inarow/server/rating_book.h"

#include <algorithm>
#include <array>
#include <span>

namespace inarow::server {

namespace v1 = ::inarow::v1;

Rating RatingBook::get(const std::string& player, const std::string& variant) const {
  std::lock_guard lock(mutex_);
  auto it = book_.find({player, variant});
  return it == book_.end() ? Rating{} : it->second.rating;
}

void RatingBook::admit(const PlayerRecord& record) {
  std::lock_guard lock(mutex_);
  for (const auto& [variant, rating] : record.ratings) {
    auto games = record.games.find(variant);
    book_[{record.id, variant}] = Entry{rating, games == record.games.end() ? 0 : games->second};
  }
}

void RatingBook::forget(const std::string& player) {
  std::lock_guard lock(mutex_);
  auto from = book_.lower_bound({player, {}});
  auto to = from;
  while (to != book_.end() && to->first.first == player)
    ++to;
  book_.erase(from, to);
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
  std::array<Entry*, 2> book;
  std::array<Rating, 2> before;
  for (int s = 0; s < 2; ++s) {
    book[s] = &book_.try_emplace({match.seats[s].player_id, variant}).first->second;
    before[s] = book[s]->rating;
  }
  for (int s = 0; s < 2; ++s) {
    const double score = s == 0 ? first_score : 1.0 - first_score;
    const GameResult game{before[1 - s], score};
    const Rating after = glicko2_update(before[s], std::span(&game, 1));
    const std::string& player = match.seats[s].player_id;
    book[s]->rating = after;
    ++book[s]->games;
    ops.push_back(store_op::SaveRating{player, variant, after, book[s]->games});
    v1::RatingChange c;
    c.set_player_id(player);
    *c.mutable_before() = to_proto(before[s]);
    *c.mutable_after() = to_proto(after);
    changes.push_back(c);
  }
  return changes;
}

}  // namespace inarow::server
