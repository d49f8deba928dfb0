// A Store in memory, for tests: what the SQLite store keeps, kept in maps,
// with no file and no fsync. It can be told to fail its writes, to test
// what the server does when a commit fails.
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "inarow/server/store.h"

namespace inarow::server {

class MemoryStore final : public Store {
 public:
  inarow::expected<void, StoreError> write(std::span<const StoreOp> ops) override;
  std::optional<PlayerRecord> find_player(const std::string& id) override;
  std::optional<PlayerRecord> find_player_by_token(const std::string& token_hash) override;
  std::optional<PlayerRecord> find_account(const std::string& name_key) override;
  LeaderboardPage leaderboard(const std::string& variant, int min_games, std::size_t offset,
                              std::size_t limit) override;
  std::vector<MatchRecord> load_unfinished() override;
  std::optional<MatchRecord> load_match(const std::string& id) override;
  std::int64_t last_alive_ms() override;
  std::optional<std::vector<MatchRecord>> list_games(const std::string& player_id,
                                                     const std::string& viewer,
                                                     const std::optional<GameCursor>& before,
                                                     std::size_t limit) override;

  // While set, every write fails and changes nothing.
  void fail_writes(bool fail) { fail_writes_.store(fail); }
  // Writes that succeeded (one per transaction).
  std::size_t commits() const;

 private:
  void apply(const store_op::SavePlayer& op);
  void apply(const store_op::SaveRating& op);
  void apply(const store_op::CreateMatch& op);
  void apply(const store_op::AppendEvent& op);
  void apply(const store_op::FinishMatch& op);
  void apply(const store_op::Alive& op);
  void apply(const store_op::ClockFrom& op);
  void name_players(MatchRecord& m) const;  // the caller holds mutex_
  // The stored player `pred` picks (one SavePlayer made them a player: an
  // op of another kind alone only left a trace); the caller holds mutex_.
  template <class Pred>
  std::optional<PlayerRecord> find_if(Pred pred) const;
  void apply(const store_op::SaveAccount& op);
  void apply(const store_op::AddDevice& op);
  void apply(const store_op::RevokeDevices& op);
  void apply(const store_op::TakeOver& op);
  // The matches `ops` would write with a generation not theirs (store.h:
  // StoreError::fenced); the caller holds mutex_.
  std::vector<std::string> fenced_in(std::span<const StoreOp> ops) const;

  mutable std::mutex mutex_;
  std::atomic<bool> fail_writes_{false};
  std::size_t commits_ = 0;
  std::map<std::string, PlayerRecord> players_;  // games: what SaveRating said
  std::vector<std::string> match_order_;         // by creation
  std::map<std::string, MatchRecord> matches_;   // live ones carry their events
  std::int64_t alive_ms_ = 0;
};

}  // namespace inarow::server
