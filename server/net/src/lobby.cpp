#include "inarow/server/lobby.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "ids.h"
#include "inarow/common/json.h"

namespace inarow::server {

namespace asio = boost::asio;
namespace v1 = ::inarow::v1;
using ErrorCode = boost::system::error_code;

Lobby::Lobby(Strand strand, std::shared_ptr<MatchServices> services, Identity& identity,
             MatchRegistry& matches)
    : strand_(strand),
      services_(std::move(services)),
      identity_(identity),
      matches_(matches),
      matchmaker_(services_->config.matchmaker),
      tick_(strand),
      rng_(services_->config.bot_seed ? services_->config.bot_seed : std::random_device{}()) {}

Expected<void> Lobby::seek(const std::string& player, const v1::Seek& seek) {
  auto terms = check_game(seek.variant(), seek.time_control());
  if (!terms) return inarow::unexpected(terms.error());
  const std::string pool =
      fmt::format("{}/{}+{}", terms->variant.name, terms->clock.initial.count(),
                  terms->clock.increment.count());
  seek_clocks_[pool] = terms->clock;
  Seeker s{player, pool, services_->ratings.get(player, terms->variant.name).rating,
           SteadyClock::now()};
  if (!matchmaker_.add(std::move(s))) {
    return fail_with(ProtocolError::already_seeking, "already seeking a game");
  }
  arm_tick();
  return {};
}

void Lobby::run_matchmaker() {
  for (auto& [a, b] : matchmaker_.pair(SteadyClock::now())) {
    const std::string variant_name = a.pool.substr(0, a.pool.find('/'));
    auto variant = Variant::parse(variant_name);
    if (!variant) continue;
    create_match(*variant, v1::MATCH_KIND_SEEK, true, seek_clocks_[a.pool],
                 {a.player_id, b.player_id}, {});
  }
}

void Lobby::arm_tick() {
  // While anyone seeks, pair again as the windows widen.
  if (ticking_ || matchmaker_.size() == 0 || shutting_down_) return;
  ticking_ = true;
  tick_.expires_after(services_->config.matchmaker_tick);
  tick_.async_wait([this, owner = owner_.lock()](ErrorCode ec) {
    ticking_ = false;
    if (ec) return;
    run_matchmaker();
    arm_tick();
  });
}

Expected<std::string> Lobby::play_bot(const std::string& player, const v1::PlayBot& req) {
  auto terms = check_game(req.variant(), req.time_control(), {req.level()});
  if (!terms) return inarow::unexpected(terms.error());
  const std::string& level = terms->levels[0];
  const Side side = from_proto(req.side()).value_or(Side::first);
  std::array<std::string, 2> seats;
  std::array<std::string, 2> levels;
  seats[index(side)] = player;
  seats[index(opponent(side))] = identity_.bot(level).id;
  levels[index(opponent(side))] = level;
  auto match = create_match(std::move(terms->variant), v1::MATCH_KIND_BOT, true, terms->clock,
                            seats, levels);
  return match->id();
}

Expected<std::string> Lobby::start_bot_match(const v1::StartBotMatch& req) {
  auto terms =
      check_game(req.variant(), req.time_control(), {req.first_level(), req.second_level()});
  if (!terms) return inarow::unexpected(terms.error());
  const std::string& first = terms->levels[0];
  const std::string& second = terms->levels[1];
  auto match =
      create_match(std::move(terms->variant), v1::MATCH_KIND_BOT_VS_BOT, true, terms->clock,
                   {identity_.bot(first).id, identity_.bot(second).id}, {first, second});
  return match->id();
}

Expected<std::string> Lobby::create_private(const std::string& player,
                                            const v1::CreatePrivate& req) {
  auto terms = check_game(req.variant(), req.time_control());
  if (!terms) return inarow::unexpected(terms.error());
  // One open private game per player: a new one replaces the old.
  std::erase_if(privates_, [&](const auto& kv) { return kv.second.creator == player; });
  static constexpr char kAlphabet[] = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  std::string code;
  do {
    code.clear();
    for (int i = 0; i < 6; ++i)
      code += kAlphabet[rng_() % (sizeof(kAlphabet) - 1)];
  } while (privates_.contains(code));
  privates_[code] = PrivateGame{player, std::move(terms->variant), terms->clock,
                                from_proto(req.side()).value_or(Side::first), req.rated()};
  return code;
}

Expected<std::string> Lobby::join_private(const std::string& player, const v1::JoinPrivate& req) {
  auto it = privates_.find(req.code());
  if (it == privates_.end()) {
    return fail_with(ProtocolError::unknown_code,
                     "no open game with code '" + json::echo(req.code()) + "'");
  }
  if (it->second.creator == player) {
    return fail_with(ProtocolError::bad_request, "you cannot join your own game");
  }
  PrivateGame game = it->second;
  privates_.erase(it);
  std::array<std::string, 2> seats;
  seats[index(game.side)] = game.creator;
  seats[index(opponent(game.side))] = player;
  auto match =
      create_match(game.variant, v1::MATCH_KIND_PRIVATE, game.rated, game.clock, seats, {});
  return match->id();
}

Seat Lobby::seat_for(const Player& p, const Variant& v, std::string level) const {
  return Seat{p.id, p.name, p.bot, std::move(level), services_->ratings.get(p.id, v.name)};
}

std::shared_ptr<MatchActor> Lobby::create_match(Variant variant, v1::MatchKind kind, bool rated,
                                                ClockSetting clock,
                                                std::array<std::string, 2> seat_ids,
                                                std::array<std::string, 2> levels) {
  MatchSetup setup;
  setup.id = new_match_id();
  setup.kind = kind;
  setup.rated = rated;
  setup.initial = clock.initial;
  setup.increment = clock.increment;
  for (int s = 0; s < 2; ++s) {
    setup.seats[s] = seat_for(identity_.at(seat_ids[s]), variant, levels[s]);
  }
  setup.variant = std::move(variant);
  auto actor = std::make_shared<MatchActor>(services_, std::move(setup));
  matches_.add(actor);
  services_->metrics.matches_started[kind].fetch_add(1, std::memory_order_relaxed);
  services_->metrics.matches_live[kind].fetch_add(1, std::memory_order_relaxed);

  std::vector<std::pair<std::weak_ptr<Connection>, Side>> seated;
  for (int s = 0; s < 2; ++s) {
    Player& p = identity_.at(seat_ids[s]);
    p.matches.insert(actor->id());
    for (auto& connection : identity_.live_connections(p))
      seated.emplace_back(connection, static_cast<Side>(s));
  }
  spdlog::debug("match_started match={} variant={} first={} second={}", actor->id(),
                actor->setup().variant.name, seat_ids[0], seat_ids[1]);
  actor->start(std::move(seated));
  return actor;
}

v1::MatchList Lobby::list() const {
  v1::MatchList list;
  for (const auto& [id, match] : matches_.all()) {
    if (match->over) continue;
    auto* s = list.add_matches();
    const MatchSetup& setup = match->setup();
    s->set_match_id(id);
    s->set_variant(setup.variant.name);
    s->set_kind(setup.kind);
    for (int i = 0; i < 2; ++i) {
      auto* info = i == 0 ? s->mutable_first() : s->mutable_second();
      info->set_id(setup.seats[i].player_id);
      info->set_name(setup.seats[i].name);
      info->set_bot(setup.seats[i].bot);
      *info->mutable_rating() = to_proto(setup.seats[i].rating);
    }
    s->set_ply(match->ply);
    s->set_spectators(match->spectators);
  }
  return list;
}

void Lobby::match_ended(const std::string& match_id) {
  auto timer = std::make_shared<asio::steady_timer>(strand_, services_->config.reconnect_grace);
  timer->async_wait([this, owner = owner_.lock(), timer, match_id](ErrorCode) {
    auto match = matches_.find(match_id);
    if (!match) return;
    for (int s = 0; s < 2; ++s) {
      if (Player* p = identity_.find(match->setup().seats[s].player_id)) p->matches.erase(match_id);
    }
    matches_.retire(match_id);
  });
  if (shutting_down_) timer->cancel();
}

void Lobby::shutdown() {
  shutting_down_ = true;
  tick_.cancel();
}

}  // namespace inarow::server
