#include "inarow/server/memory_store.h"

#include <algorithm>
#include <utility>

namespace inarow::server {

inarow::expected<void, StoreError> MemoryStore::write(std::span<const StoreOp> ops) {
  if (fail_writes_.load()) return inarow::unexpected(StoreError{"writes fail (as asked)", {}});
  std::lock_guard lock(mutex_);
  // A batch with a fenced op changes nothing, as a database's rollback.
  if (auto fenced = fenced_in(ops); !fenced.empty()) {
    std::string message = "fenced:";
    for (const std::string& id : fenced)
      message += " " + id;
    return inarow::unexpected(StoreError{std::move(message), std::move(fenced)});
  }
  for (const StoreOp& op : ops)
    std::visit([this](const auto& o) { apply(o); }, op);
  ++commits_;
  return {};
}

std::vector<std::string> MemoryStore::fenced_in(std::span<const StoreOp> ops) const {
  // The generations as the batch leaves them so far (its CreateMatch and
  // TakeOver ops) over the stored ones.
  std::map<std::string, std::int64_t> batch;
  std::vector<std::string> fenced;
  auto stored = [&](const std::string& id) -> std::optional<std::int64_t> {
    if (auto b = batch.find(id); b != batch.end()) return b->second;
    if (auto m = matches_.find(id); m != matches_.end()) return m->second.generation;
    return std::nullopt;
  };
  auto fence = [&](const std::string& id) {
    if (std::ranges::find(fenced, id) == fenced.end()) fenced.push_back(id);
  };
  auto check = [&](const std::string& id, std::int64_t generation) {
    if (generation != 0 && stored(id) != generation) fence(id);
  };
  for (const StoreOp& op : ops) {
    if (const auto* create = std::get_if<store_op::CreateMatch>(&op)) {
      batch[create->match.id] = create->match.generation;
    } else if (const auto* take = std::get_if<store_op::TakeOver>(&op)) {
      const auto now = stored(take->match_id);
      if (!now || take->generation <= *now) {
        fence(take->match_id);
      } else {
        batch[take->match_id] = take->generation;
      }
    } else if (const auto* append = std::get_if<store_op::AppendEvent>(&op)) {
      check(append->match_id, append->generation);
    } else if (const auto* finish = std::get_if<store_op::FinishMatch>(&op)) {
      check(finish->match_id, finish->generation);
    } else if (const auto* clock = std::get_if<store_op::ClockFrom>(&op)) {
      check(clock->match_id, clock->generation);
    }
  }
  return fenced;
}

void MemoryStore::apply(const store_op::TakeOver& op) {
  if (auto it = matches_.find(op.match_id); it != matches_.end()) {
    it->second.generation = op.generation;
  }
}

std::size_t MemoryStore::commits() const {
  std::lock_guard lock(mutex_);
  return commits_;
}

void MemoryStore::apply(const store_op::SavePlayer& op) {
  PlayerRecord& p = players_[op.player.id];
  p.id = op.player.id;
  p.name = op.player.name;
  p.token_hash = op.player.token_hash;
  p.bot = op.player.bot;
}

void MemoryStore::apply(const store_op::SaveRating& op) {
  PlayerRecord& p = players_[op.player_id];
  p.ratings[op.variant] = op.rating;
  // A variant without a game has no count, as in the SQLite store.
  if (op.games > 0) {
    p.games[op.variant] = op.games;
  } else {
    p.games.erase(op.variant);
  }
}

void MemoryStore::apply(const store_op::CreateMatch& op) {
  if (!matches_.contains(op.match.id)) match_order_.push_back(op.match.id);
  matches_[op.match.id] = op.match;
}

void MemoryStore::apply(const store_op::AppendEvent& op) {
  auto it = matches_.find(op.match_id);
  if (it == matches_.end()) return;
  it->second.events.push_back(op.blob);
  it->second.event_ms.push_back(op.at_ms);
}

void MemoryStore::apply(const store_op::Alive& op) {
  alive_ms_ = op.at_ms;
}

void MemoryStore::apply(const store_op::ClockFrom& op) {
  auto it = matches_.find(op.match_id);
  if (it == matches_.end() || it->second.result != 0) return;
  auto& times = it->second.event_ms;
  if (op.seq >= 1 && op.seq <= times.size()) times[op.seq - 1] = op.at_ms;
}

void MemoryStore::apply(const store_op::SaveAccount& op) {
  PlayerRecord& p = players_[op.player_id];
  if (p.password_hash.empty()) p.account_since_ms = op.created_ms;
  p.name_key = op.name_key;
  p.password_hash = op.password_hash;
}

void MemoryStore::apply(const store_op::AddDevice& op) {
  players_[op.player_id].device_token_hashes.push_back(op.token_hash);
}

void MemoryStore::apply(const store_op::RevokeDevices& op) {
  PlayerRecord& p = players_[op.player_id];
  std::erase_if(p.device_token_hashes,
                [&](const std::string& t) { return t != op.keep_token_hash; });
  if (p.token_hash != op.keep_token_hash) p.token_hash.clear();
}

std::int64_t MemoryStore::last_alive_ms() {
  std::lock_guard lock(mutex_);
  return alive_ms_;
}

void MemoryStore::apply(const store_op::FinishMatch& op) {
  auto it = matches_.find(op.match_id);
  if (it == matches_.end()) return;
  MatchRecord& m = it->second;
  m.result = op.result;
  m.reason = op.reason;
  m.ended_ms = op.ended_ms;
  m.moves = op.moves;
  m.ratings = op.ratings;
  if (op.swapped) {
    std::swap(m.first_id, m.second_id);
    std::swap(m.first_level, m.second_level);
  }
  m.events.clear();  // a finished match is its record
  m.event_ms.clear();
}

template <class Pred>
std::optional<PlayerRecord> MemoryStore::find_if(Pred pred) const {
  for (const auto& [id, p] : players_) {
    if (!p.id.empty() && pred(p)) return p;
  }
  return std::nullopt;
}

std::optional<PlayerRecord> MemoryStore::find_player(const std::string& id) {
  std::lock_guard lock(mutex_);
  auto it = players_.find(id);
  if (it == players_.end() || it->second.id.empty()) return std::nullopt;
  return it->second;
}

std::optional<PlayerRecord> MemoryStore::find_player_by_token(const std::string& token_hash) {
  std::lock_guard lock(mutex_);
  if (token_hash.empty()) return std::nullopt;  // a bot's, or a revoked one
  return find_if([&](const PlayerRecord& p) {
    return p.token_hash == token_hash ||
           std::ranges::find(p.device_token_hashes, token_hash) != p.device_token_hashes.end();
  });
}

std::optional<PlayerRecord> MemoryStore::find_account(const std::string& name_key) {
  std::lock_guard lock(mutex_);
  if (name_key.empty()) return std::nullopt;  // a guest's
  return find_if([&](const PlayerRecord& p) { return p.name_key == name_key; });
}

LeaderboardPage MemoryStore::leaderboard(const std::string& variant, int min_games,
                                         std::size_t offset, std::size_t limit) {
  std::lock_guard lock(mutex_);
  std::vector<RankedPlayer> ranked;
  // Every rating, as the SQLite store counts them (one without a stored
  // player is listed without a name).
  for (const auto& [id, p] : players_) {
    auto r = p.ratings.find(variant);
    if (r == p.ratings.end()) continue;
    auto g = p.games.find(variant);
    const int games = g == p.games.end() ? 0 : g->second;
    if (games < min_games) continue;
    ranked.push_back(RankedPlayer{id, p.name, p.bot, r->second, games});
  }
  std::sort(ranked.begin(), ranked.end(), [](const RankedPlayer& a, const RankedPlayer& b) {
    if (a.rating.rating != b.rating.rating) return a.rating.rating > b.rating.rating;
    if (a.games != b.games) return a.games > b.games;
    return a.player_id < b.player_id;
  });
  LeaderboardPage page;
  page.total = ranked.size();
  for (std::size_t i = offset; i < ranked.size() && i - offset < limit; ++i)
    page.entries.push_back(std::move(ranked[i]));
  return page;
}

std::vector<MatchRecord> MemoryStore::load_unfinished() {
  std::lock_guard lock(mutex_);
  std::vector<MatchRecord> out;
  for (const std::string& id : match_order_) {
    const MatchRecord& m = matches_.at(id);
    if (m.result == 0) out.push_back(m);
  }
  return out;
}

std::optional<MatchRecord> MemoryStore::load_match(const std::string& id) {
  std::lock_guard lock(mutex_);
  auto it = matches_.find(id);
  if (it == matches_.end()) return std::nullopt;
  MatchRecord m = it->second;
  if (m.result != 0) name_players(m);
  return m;
}

void MemoryStore::name_players(MatchRecord& m) const {
  if (auto p = players_.find(m.first_id); p != players_.end()) {
    m.first_name = p->second.name;
    m.first_bot = p->second.bot;
  }
  if (auto p = players_.find(m.second_id); p != players_.end()) {
    m.second_name = p->second.name;
    m.second_bot = p->second.bot;
  }
}

std::optional<std::vector<MatchRecord>> MemoryStore::list_games(
    const std::string& player_id, const std::string& viewer,
    const std::optional<GameCursor>& before, std::size_t limit) {
  std::lock_guard lock(mutex_);
  if (!players_.contains(player_id)) return std::nullopt;
  std::vector<const MatchRecord*> games;
  for (const auto& [id, m] : matches_) {
    if (m.result == 0 || (m.first_id != player_id && m.second_id != player_id)) continue;
    if (!visible_to(m, viewer)) continue;
    if (before && std::pair(m.ended_ms, m.id) >= std::pair(before->ended_ms, before->id)) continue;
    games.push_back(&m);
  }
  std::sort(games.begin(), games.end(), [](const MatchRecord* a, const MatchRecord* b) {
    return std::pair(a->ended_ms, a->id) > std::pair(b->ended_ms, b->id);
  });
  std::vector<MatchRecord> out;
  for (std::size_t i = 0; i < games.size() && i < limit; ++i) {
    MatchRecord m = *games[i];
    m.plies = static_cast<int>(m.moves.size());
    m.moves.clear();
    name_players(m);
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace inarow::server
