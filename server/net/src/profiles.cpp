#include "profiles.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "ids.h"
#include "inarow/bots/bot.h"
#include "inarow/bots/ladder.h"
#include "inarow/common/json.h"
#include "inarow/server/match_core.h"
#include "inarow/server/player_name.h"
#include "inarow/server/request_checks.h"

namespace inarow::server {

namespace v1 = ::inarow::v1;

namespace {

// The player whose name has this key: an account, or a level's bot (which
// is a player whether or not it has played here yet: its profile is asked
// for before a first game against it; a level's name is its key).
std::optional<PlayerRecord> named(Store& store, const std::string& key) {
  if (auto account = store.find_account(key); account && !account->password_hash.empty())
    return account;
  constexpr std::string_view kSuffix = " bot";
  if (!key.ends_with(kSuffix)) return std::nullopt;
  const auto level = bots::find_level(std::string_view(key).substr(0, key.size() - kSuffix.size()));
  if (!level) return std::nullopt;
  if (auto bot = store.find_player(bot_id(level->name))) return bot;
  PlayerRecord fresh;
  fresh.id = bot_id(level->name);
  fresh.name = std::string(level->name) + " bot";
  fresh.bot = true;
  return fresh;
}

// What the arena measured of a level's bot, in every variant with a ladder
// (built into the bots library, so every node answers the same).
void add_measured(const PlayerRecord& player, v1::Profile& out) {
  if (!player.bot) return;
  for (const bots::LevelLadder& ladder : bots::built_in_ladders())
    for (const bots::LadderRung& rung : ladder.rungs) {
      if (player.id != bot_id(rung.level)) continue;
      auto* m = out.add_measured();
      m->set_variant(ladder.variant);
      m->set_level(rung.level);
      m->set_elo(rung.elo);
      m->set_margin(rung.margin);
      m->set_anchor(ladder.anchor());
      m->set_games(static_cast<std::uint32_t>(ladder.games));
    }
}

}  // namespace

Expected<v1::Profile> profile(Store& store, const std::string& asker,
                              const v1::GetProfile& request) {
  if (!request.player_id().empty() && !request.name().empty())
    return fail_with(ProtocolError::bad_request, "ask by player id or by name, not both");
  std::optional<PlayerRecord> player;
  if (!request.name().empty()) {
    auto name = normalise_player_name(request.name());
    if (!name) return inarow::unexpected(name.error());
    player = named(store, name_key(*name));
    if (!player)
      return fail_with(
          ProtocolError::unknown_player,
          fmt::format("no account or bot is named \"{}\"", json::echo(request.name())));
  } else {
    const std::string& id = request.player_id().empty() ? asker : request.player_id();
    player = store.find_player(id);
    if (!player)
      return fail_with(ProtocolError::unknown_player, fmt::format("no player {}", json::echo(id)));
  }
  v1::Profile out;
  out.set_player_id(player->id);
  out.set_name(player->name);
  out.set_bot(player->bot);
  out.set_account(!player->password_hash.empty());
  out.set_account_since_ms(player->account_since_ms);
  for (const auto& [variant, rating] : player->ratings) {
    auto* r = out.add_ratings();
    r->set_variant(variant);
    *r->mutable_rating() = to_proto(rating);
    auto games = player->games.find(variant);
    r->set_games(static_cast<std::uint32_t>(games == player->games.end() ? 0 : games->second));
  }
  add_measured(*player, out);
  return out;
}

Expected<v1::Leaderboard> leaderboard(Store& store, const ServerConfig& config,
                                      const v1::GetLeaderboard& request) {
  auto variant = check_variant(request.variant());
  if (!variant) return inarow::unexpected(variant.error());
  std::size_t from = 0;
  if (!request.after().empty()) {
    const std::string& a = request.after();
    auto [end, ec] = std::from_chars(a.data(), a.data() + a.size(), from);
    if (ec != std::errc{} || end != a.data() + a.size() || a.size() > 9)
      return fail_with(
          ProtocolError::bad_request,
          fmt::format("after is the next cursor of an earlier page, not \"{}\"", json::echo(a)));
  }
  const std::size_t page = static_cast<std::size_t>(std::max(1, config.leaderboard_page_size));
  const std::size_t limit =
      request.limit() == 0 ? page : std::min<std::size_t>(request.limit(), page);
  const int min_games = std::max(0, config.leaderboard_min_games);
  const LeaderboardPage ranked = store.leaderboard(variant->name, min_games, from, limit);
  v1::Leaderboard out;
  out.set_variant(variant->name);
  out.set_total(static_cast<std::uint32_t>(ranked.total));
  out.set_min_games(static_cast<std::uint32_t>(min_games));
  std::size_t rank = from;
  for (const RankedPlayer& r : ranked.entries) {
    auto* e = out.add_entries();
    e->set_rank(static_cast<std::uint32_t>(++rank));
    e->set_player_id(r.player_id);
    e->set_name(r.name);
    e->set_bot(r.bot);
    *e->mutable_rating() = to_proto(r.rating);
    e->set_games(static_cast<std::uint32_t>(r.games));
  }
  if (from + limit < ranked.total) out.set_next(std::to_string(from + limit));
  return out;
}

OutgoingPtr answer_players(Metrics& metrics, Store& store, const ServerConfig& config,
                           const std::string& asker, const v1::ClientMessage& request) {
  const std::uint64_t rid = request.request_id();
  v1::ServerMessage answer;
  answer.set_request_id(rid);
  if (request.has_get_profile()) {
    auto found = profile(store, asker, request.get_profile());
    if (!found) return make_error(metrics, rid, found.error());
    *answer.mutable_profile() = std::move(*found);
  } else {
    auto board = leaderboard(store, config, request.get_leaderboard());
    if (!board) return make_error(metrics, rid, board.error());
    *answer.mutable_leaderboard() = std::move(*board);
  }
  return make_outgoing(std::move(answer));
}

}  // namespace inarow::server
