#include "inarow/server/lobby.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <string_view>

#include "ids.h"
#include "inarow/common/json.h"

namespace inarow::server {

namespace {

// How often a cluster's node reads the shared pool again while anyone
// follows the open seeks (other nodes' seeks come and go unannounced).
constexpr Millis kPollPoolEvery{1000};

}  // namespace

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
      feed_timer_(strand),
      poll_timer_(strand),
      // A code is the key to a private game: never predictable, and never
      // the same sequence on two nodes of a cluster (bot_seed is the bots').
      rng_(std::random_device{}()) {}

int Lobby::live_matches(const std::string& player, std::initializer_list<v1::MatchKind> kinds) {
  const Player* p = identity_.find(player);
  if (!p) return 0;
  int n = 0;
  for (const std::string& id : p->matches) {
    auto match = matches_.find(id);
    if (!match || match->over.load(std::memory_order_relaxed)) continue;
    for (v1::MatchKind k : kinds) {
      if (match->setup().kind == k) ++n;
    }
  }
  return n;
}

int Lobby::limit_of(v1::MatchKind kind) const {
  return kind == v1::MATCH_KIND_BOT ? services_->config.max_bot_matches_per_player
                                    : services_->config.max_human_matches_per_player;
}

bool Lobby::below_limit(const std::string& player, v1::MatchKind kind) {
  const int live = kind == v1::MATCH_KIND_BOT
                       ? live_matches(player, {v1::MATCH_KIND_BOT})
                       : live_matches(player, {v1::MATCH_KIND_SEEK, v1::MATCH_KIND_PRIVATE});
  return live < limit_of(kind);
}

Expected<void> Lobby::check_limit(const std::string& player, v1::MatchKind kind, const char* who) {
  if (below_limit(player, kind)) return {};
  return inarow::unexpected(limit_failure(kind, who));
}

Failure Lobby::limit_failure(v1::MatchKind kind, const char* who) const {
  const bool bots = kind == v1::MATCH_KIND_BOT;
  return {ProtocolError::too_many_matches,
          fmt::format("{} already {} {} live games against {}, the most allowed", who,
                      std::string_view(who) == "you" ? "have" : "has", limit_of(kind),
                      bots ? "bots" : "people")};
}

void Lobby::seek(const std::string& player, const v1::Seek& seek,
                 std::function<void(Expected<void>)> then) {
  auto terms = check_game(seek.variant(), seek.time_control());
  if (!terms) return then(inarow::unexpected(terms.error()));
  if (auto ok = check_limit(player, v1::MATCH_KIND_SEEK, "you"); !ok) return then(ok);
  // Rated unless it says otherwise: clients from before the field seek rated games.
  const bool rated = seek.has_rated() ? seek.rated() : true;
  const double rating = services_->ratings.get(player, terms->variant.name).rating;
  if (elsewhere_) {
    // One pool for the whole cluster: paired there, made by whichever
    // node's seek completes a pair.
    if (elsewhere_->seeking(player)) {
      return then(fail_with(ProtocolError::already_seeking, "already seeking a game"));
    }
    SharedSeek shared;
    shared.seek_id = fmt::format("{}/s{}", elsewhere_->node_id(), ++seek_count_);
    shared.player_id = player;
    shared.node_id = elsewhere_->node_id();
    shared.terms = seek_terms(terms->variant, terms->clock, rated);
    shared.rating = rating;
    shared.since_ms = unix_ms();
    shared.listing =
        open_seek(player, terms->variant, terms->clock, rated, shared.seek_id).SerializeAsString();
    // The pool counts the player's matches on every node: one at the cap
    // through matches this node does not hold is refused there.
    elsewhere_->seek(
        std::move(shared), [this, weak = owner_, then = std::move(then)](
                               inarow::expected<Directory::SeekAdded, std::string> added) {
          auto owner = weak.lock();
          if (!owner) return;
          asio::post(strand_, [this, owner, added = std::move(added), then = std::move(then)] {
            if (!added) {
              spdlog::warn("cluster: a seek could not be added: {}", added.error());
              return then(
                  fail_with(ProtocolError::internal, "the lobby is not available; try again"));
            }
            switch (*added) {
              case Directory::SeekAdded::added:
                feed_changed();
                return then({});
              case Directory::SeekAdded::already_seeking:
                return then(fail_with(ProtocolError::already_seeking, "already seeking a game"));
              case Directory::SeekAdded::at_cap:
                return then(inarow::unexpected(limit_failure(v1::MATCH_KIND_SEEK, "you")));
            }
          });
        });
    return;
  }
  Seeker s(player, std::move(terms->variant), terms->clock, rating, SteadyClock::now(), rated,
           fmt::format("s{}", seek_count_ + 1));
  if (!matchmaker_.add(std::move(s))) {
    return then(fail_with(ProtocolError::already_seeking, "already seeking a game"));
  }
  ++seek_count_;
  feed_changed();
  arm_tick();
  then({});
}

bool Lobby::cancel_seek(const std::string& player) {
  if (elsewhere_) {
    if (!elsewhere_->cancel_seek(player)) return false;
    feed_changed();
    return true;
  }
  if (!matchmaker_.remove(player)) return false;
  feed_changed();
  return true;
}

void Lobby::run_matchmaker() {
  // A seeker who reached the limit by other games since seeking waits, still
  // listed, until one of them ends.
  const auto free = [this](const Seeker& s) {
    return below_limit(s.player_id, v1::MATCH_KIND_SEEK);
  };
  for (auto& [a, b] : matchmaker_.pair(SteadyClock::now(), free)) {
    create_match(std::move(a.variant), v1::MATCH_KIND_SEEK, a.rated, a.clock,
                 {a.player_id, b.player_id}, {});
  }
}

void Lobby::accept_seek(const std::string& player, const v1::AcceptSeek& req,
                        std::function<void(Expected<std::string>)> then) {
  if (elsewhere_) {
    // Taken in the shared pool, where the cap is counted across the nodes;
    // what this node alone knows of the asker's matches counts too.
    const bool busy = !below_limit(player, v1::MATCH_KIND_SEEK);
    std::string match_id = new_match_id();
    // Answered on the directory's thread: back to the strand, if the
    // lobby is still there.
    elsewhere_->accept_seek(
        req.seek_id(), player, busy, match_id,
        [this, weak = owner_, player, seek_id = req.seek_id(), match_id,
         then = std::move(then)](inarow::expected<Accepted, std::string> result) mutable {
          auto owner = weak.lock();
          if (!owner) return;
          asio::post(strand_, [this, owner, player, seek_id, match_id, result = std::move(result),
                               then = std::move(then)]() mutable {
            accepted_shared(player, seek_id, match_id, std::move(result), std::move(then));
          });
        });
    return;
  }
  const Seeker* open = matchmaker_.find(req.seek_id());
  if (!open) {
    return then(
        fail_with(ProtocolError::unknown_seek,
                  "no open seek '" + json::echo(req.seek_id()) + "': it was taken or withdrawn"));
  }
  if (open->player_id == player) {
    return then(fail_with(ProtocolError::own_seek, "you cannot accept your own seek"));
  }
  if (auto ok = check_limit(player, v1::MATCH_KIND_SEEK, "you"); !ok) {
    return then(inarow::unexpected(ok.error()));
  }
  if (auto ok = check_limit(open->player_id, v1::MATCH_KIND_SEEK, "the seeker"); !ok) {
    return then(inarow::unexpected(ok.error()));
  }
  Seeker seeker = *matchmaker_.take(req.seek_id());
  matchmaker_.remove(player);  // the asker has a game: their own seek goes
  // The seeker waited longer: they play first, as the matchmaker would have them.
  auto match = create_match(std::move(seeker.variant), v1::MATCH_KIND_SEEK, seeker.rated,
                            seeker.clock, {seeker.player_id, player}, {});
  then(match->id());
}

void Lobby::accepted_shared(const std::string& player, const std::string& seek_id,
                            const std::string& match_id,
                            inarow::expected<Accepted, std::string> result,
                            std::function<void(Expected<std::string>)> then) {
  if (!result) {
    spdlog::warn("cluster: a seek could not be accepted: {}", result.error());
    return then(fail_with(ProtocolError::internal, "the lobby is not available; try again"));
  }
  using Outcome = Accepted::Outcome;
  switch (result->outcome) {
    case Outcome::unknown:
      return then(fail_with(ProtocolError::unknown_seek, "no open seek '" + json::echo(seek_id) +
                                                             "': it was taken or withdrawn"));
    case Outcome::own:
      return then(fail_with(ProtocolError::own_seek, "you cannot accept your own seek"));
    case Outcome::asker_busy:
      return then(inarow::unexpected(limit_failure(v1::MATCH_KIND_SEEK, "you")));
    case Outcome::seeker_busy:
      return then(inarow::unexpected(limit_failure(v1::MATCH_KIND_SEEK, "the seeker")));
    case Outcome::taken:
      break;
  }
  feed_changed();
  const SharedSeek seeker = std::move(result->seek);
  v1::Seek seek;
  if (!seek.ParseFromString(seeker.terms)) {
    return then(fail_with(ProtocolError::internal, "the seek's terms do not parse"));
  }
  auto terms = check_game(seek.variant(), seek.time_control());
  if (!terms) return then(inarow::unexpected(terms.error()));
  const bool rated = seek.rated();
  // The seeker may be another node's player: read before the match is made.
  identity_.look_up(
      Identity::Key::id, seeker.player_id, owner_.lock(),
      [this, player, match_id, seeker_id = seeker.player_id, terms = std::move(*terms), rated,
       then = std::move(then)](Player* found) mutable {
        if (!found || shutting_down_ || !identity_.find(player)) {
          return then(fail_with(ProtocolError::unknown_seek, "no open seek: its player is gone"));
        }
        // The seeker waited longer: they play first, as the matchmaker would have them.
        create_match(std::move(terms.variant), v1::MATCH_KIND_SEEK, rated, terms.clock,
                     {seeker_id, player}, {}, match_id);
        then(match_id);
      });
}

v1::OpenSeek Lobby::open_seek(const std::string& player, const Variant& variant, ClockSetting clock,
                              bool rated, const std::string& seek_id) const {
  v1::OpenSeek o;
  o.set_seek_id(seek_id);
  auto* p = o.mutable_player();
  p->set_id(player);
  if (const Player* who = identity_.find(player)) p->set_name(who->name);
  *p->mutable_rating() = to_proto(services_->ratings.get(player, variant.name));
  o.set_variant(variant.name);
  o.mutable_time_control()->set_initial_ms(clock.initial.count());
  o.mutable_time_control()->set_increment_ms(clock.increment.count());
  o.set_rated(rated);
  return o;
}

v1::SeekList Lobby::local_seek_list() const {
  v1::SeekList list;
  const auto& open = matchmaker_.seekers();
  const std::size_t cap = static_cast<std::size_t>(std::max(1, services_->config.list_page_size));
  list.set_total(static_cast<std::uint32_t>(open.size()));
  for (const Seeker& s : open) {
    if (static_cast<std::size_t>(list.seeks_size()) == cap) break;
    *list.add_seeks() = open_seek(s.player_id, s.variant, s.clock, s.rated, s.seek_id);
  }
  list.set_players_online(static_cast<std::uint32_t>(identity_.online()));
  list.set_games_in_play(matches_.in_play());
  return list;
}

v1::SeekList Lobby::shared_seek_list(const SeekPage& page) const {
  // Each entry as the seeker's node made it when they sought (so their
  // rating as it was then: it changes only when a game of theirs ends).
  v1::SeekList list;
  list.set_total(static_cast<std::uint32_t>(page.total));
  for (const SharedSeek& s : page.seeks) {
    if (!list.add_seeks()->ParseFromString(s.listing)) list.mutable_seeks()->RemoveLast();
  }
  list.set_players_online(static_cast<std::uint32_t>(identity_.online()));
  list.set_games_in_play(matches_.in_play());
  return list;
}

void Lobby::seek_list(std::function<void(Expected<v1::SeekList>)> then) {
  if (!elsewhere_) return then(local_seek_list());
  const std::size_t cap = static_cast<std::size_t>(std::max(1, services_->config.list_page_size));
  elsewhere_->list_seeks(cap, [this, weak = owner_, then = std::move(then)](
                                  inarow::expected<SeekPage, std::string> page) mutable {
    auto owner = weak.lock();
    if (!owner) return;
    asio::post(strand_, [this, owner, page = std::move(page), then = std::move(then)] {
      if (!page) {
        spdlog::warn("cluster: the open seeks could not be read: {}", page.error());
        return then(fail_with(ProtocolError::internal, "the lobby is not available; try again"));
      }
      then(shared_seek_list(*page));
    });
  });
}

void Lobby::follow(const ConnectionPtr& connection, bool follow) {
  if (follow) {
    followers_[connection.get()] = connection;
    arm_poll();
  } else {
    followers_.erase(connection.get());
  }
}

void Lobby::feed_changed() {
  if (feed_armed_ || followers_.empty() || shutting_down_) return;
  feed_armed_ = true;
  feed_timer_.expires_after(services_->config.lobby_feed_delay);
  feed_timer_.async_wait([this, owner = owner_.lock()](ErrorCode ec) {
    feed_armed_ = false;
    if (ec || shutting_down_) return;
    seek_list([this](Expected<v1::SeekList> list) {
      if (list) publish(std::move(*list));
    });
  });
}

void Lobby::publish(v1::SeekList list) {
  if (shutting_down_) return;
  if (elsewhere_) {
    // Read again on a timer as well as on changes seen here: only news is sent.
    std::string bytes = list.SerializeAsString();
    if (bytes == last_feed_) return;
    last_feed_ = std::move(bytes);
  }
  v1::ServerMessage m;
  *m.mutable_seek_list() = std::move(list);
  auto out = make_outgoing(std::move(m));
  std::erase_if(followers_, [&](const auto& kv) {
    auto connection = kv.second.lock();
    if (!connection) return true;
    send(services_->metrics, connection, out);
    return false;
  });
}

void Lobby::arm_poll() {
  if (!elsewhere_ || polling_ || followers_.empty() || shutting_down_) return;
  polling_ = true;
  poll_timer_.expires_after(kPollPoolEvery);
  poll_timer_.async_wait([this, owner = owner_.lock()](ErrorCode ec) {
    polling_ = false;
    if (ec || shutting_down_) return;
    std::erase_if(followers_, [](const auto& kv) { return kv.second.expired(); });
    if (followers_.empty()) return;
    seek_list([this](Expected<v1::SeekList> list) {
      if (list) publish(std::move(*list));
      arm_poll();
    });
  });
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
  if (auto ok = check_limit(player, v1::MATCH_KIND_BOT, "you"); !ok) {
    return inarow::unexpected(ok.error());
  }
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

Expected<std::string> Lobby::start_bot_match(const std::string& player,
                                             const v1::StartBotMatch& req) {
  auto terms =
      check_game(req.variant(), req.time_control(), {req.first_level(), req.second_level()});
  if (!terms) return inarow::unexpected(terms.error());
  std::erase_if(bot_vs_bot_, [&](const auto& kv) {
    auto match = matches_.find(kv.first);
    return !match || match->over.load(std::memory_order_relaxed);
  });
  if (const int limit = services_->config.max_bot_vs_bot_total; std::ssize(bot_vs_bot_) >= limit) {
    return fail_with(ProtocolError::too_many_matches,
                     fmt::format("the server already runs {} bot-vs-bot matches, the most it "
                                 "allows; watch one of them or try later",
                                 limit));
  }
  if (const int limit = services_->config.max_bot_vs_bot_per_player;
      std::count_if(bot_vs_bot_.begin(), bot_vs_bot_.end(),
                    [&](const auto& kv) { return kv.second == player; }) >= limit) {
    return fail_with(ProtocolError::too_many_matches,
                     fmt::format("you already started {} live bot-vs-bot matches, the most "
                                 "allowed",
                                 limit));
  }
  const std::string& first = terms->levels[0];
  const std::string& second = terms->levels[1];
  auto match =
      create_match(std::move(terms->variant), v1::MATCH_KIND_BOT_VS_BOT, true, terms->clock,
                   {identity_.bot(first).id, identity_.bot(second).id}, {first, second});
  bot_vs_bot_[match->id()] = player;
  return match->id();
}

Expected<std::string> Lobby::create_private(const std::string& player,
                                            const v1::CreatePrivate& req) {
  auto terms = check_game(req.variant(), req.time_control());
  if (!terms) return inarow::unexpected(terms.error());
  if (auto ok = check_limit(player, v1::MATCH_KIND_SEEK, "you"); !ok)
    return inarow::unexpected(ok.error());
  // One open private game per player: a new one replaces the old. The
  // creator is held while theirs is open (joining reads their rating).
  if (drop_privates_of(player) == 0) identity_.pin(identity_.at(player));
  static constexpr char kAlphabet[] = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  std::string code;
  do {
    code.clear();
    for (int i = 0; i < 6; ++i)
      code += kAlphabet[rng_() % (sizeof(kAlphabet) - 1)];
  } while (privates_.contains(code));
  privates_[code] = PrivateGame{player, std::move(terms->variant), terms->clock,
                                from_proto(req.side()).value_or(Side::first), req.rated()};
  if (elsewhere_) elsewhere_->code_opened(code);
  return code;
}

void Lobby::join_private(const std::string& player, const v1::JoinPrivate& req,
                         std::function<void(Expected<std::string>)> then) {
  auto it = privates_.find(req.code());
  if (it == privates_.end()) {
    return then(fail_with(ProtocolError::unknown_code,
                          "no open game with code '" + json::echo(req.code()) + "'"));
  }
  if (it->second.creator == player) {
    return then(fail_with(ProtocolError::bad_request, "you cannot join your own game"));
  }
  if (it->second.joining) {
    return then(fail_with(
        ProtocolError::unknown_code,
        "no open game with code '" + json::echo(req.code()) + "': another player is joining it"));
  }
  // What this node knows first; a cluster's count of every node's next.
  if (auto ok = check_limit(player, v1::MATCH_KIND_SEEK, "you"); !ok)
    return then(inarow::unexpected(ok.error()));
  if (auto ok = check_limit(it->second.creator, v1::MATCH_KIND_PRIVATE, "the game's creator");
      !ok) {
    return then(inarow::unexpected(ok.error()));
  }
  if (!elsewhere_) return then(start_private(it, player, new_match_id()));
  // The match is held for both where every node counts it before it is
  // made: until then, another node could pair either player past the cap.
  // The game stays open meanwhile, for nobody else to join.
  it->second.joining = true;
  std::string match_id = new_match_id();
  elsewhere_->hold_match(
      match_id, {player, it->second.creator},
      [this, weak = owner_, player, code = it->first, match_id,
       then = std::move(then)](inarow::expected<std::optional<std::size_t>, std::string> held) {
        auto owner = weak.lock();
        if (!owner) return;
        asio::post(strand_, [this, owner, player, code, match_id, held = std::move(held),
                             then = std::move(then)] {
          auto game = privates_.find(code);
          if (game == privates_.end() || !game->second.joining) {
            // Withdrawn meanwhile (its creator left or opened another): a
            // hold taken runs out by itself.
            return then(fail_with(ProtocolError::unknown_code, "no open game with code '" + code +
                                                                   "': its creator withdrew it"));
          }
          game->second.joining = false;
          if (shutting_down_ || !identity_.find(player)) {
            return then(fail_with(ProtocolError::bad_request, "you left before the game began"));
          }
          if (!held) {
            spdlog::warn("cluster: a private game could not be joined: {}", held.error());
            return then(
                fail_with(ProtocolError::internal, "the lobby is not available; try again"));
          }
          if (*held) {
            return then(inarow::unexpected(
                limit_failure(v1::MATCH_KIND_PRIVATE, **held == 0 ? "you" : "the game's creator")));
          }
          then(start_private(game, player, match_id));
        });
      });
}

std::string Lobby::start_private(PrivateGames::iterator it, const std::string& player,
                                 std::string match_id) {
  PrivateGame game = it->second;
  const std::string code = it->first;
  privates_.erase(it);
  if (elsewhere_) elsewhere_->code_closed(code);
  std::array<std::string, 2> seats;
  seats[index(game.side)] = game.creator;
  seats[index(opponent(game.side))] = player;
  auto match = create_match(game.variant, v1::MATCH_KIND_PRIVATE, game.rated, game.clock, seats, {},
                            std::move(match_id));
  identity_.unpin(game.creator);  // the match holds them now
  private_codes_[match->id()] = code;
  return match->id();
}

void Lobby::rematch(const std::string& player, const v1::Rematch& req,
                    std::function<void(Expected<std::string>)> then) {
  const std::string& old_id = req.match_id();
  auto old = matches_.find(old_id);
  if (!old) return then(fail_with(ProtocolError::unknown_match, "no match " + old_id));
  const auto side = old->seat_of(player);
  if (!side) return then(fail_with(ProtocolError::not_seated, "you do not play in this match"));
  if (!old->over.load(std::memory_order_acquire)) {
    return then(fail_with(ProtocolError::match_not_over, "the match is still being played"));
  }
  if (auto made = rematches_.find(old_id); made != rematches_.end()) {
    return then(fail_with(ProtocolError::rematch_made,
                          "the rematch of this match was already made: " + made->second));
  }
  if (rematch_holds_.contains(old_id)) {
    return then(fail_with(ProtocolError::bad_request, "the rematch is being made"));
  }
  // Read once the match is over: nothing changes its setup any more.
  const MatchSetup& setup = old->setup();
  const Side other = opponent(*side);
  const Seat& opponent_seat = setup.seats[index(other)];
  auto offer = rematch_offers_.find(old_id);
  const bool offered_to_me = offer != rematch_offers_.end() && offer->second == other;

  if (req.decline()) {
    if (!offered_to_me) {
      return then(fail_with(ProtocolError::no_offer, "no rematch offer to decline"));
    }
    rematch_offers_.erase(offer);
    v1::MatchEvent e;
    auto* d = e.mutable_rematch_declined();
    d->set_by(to_proto(*side));
    old->notify(std::move(e));
    return then(std::string{});
  }
  if (auto ok = check_limit(player, setup.kind, "you"); !ok) {
    return then(inarow::unexpected(ok.error()));
  }

  if (!opponent_seat.bot && !offered_to_me) {
    if (offer != rematch_offers_.end()) {
      return then(fail_with(ProtocolError::bad_request, "you already offered a rematch"));
    }
    Player* p = identity_.find(opponent_seat.player_id);
    if (!p || identity_.live_connections(*p).empty()) {
      return then(fail_with(ProtocolError::opponent_gone,
                            "your opponent is not here: a rematch needs both players"));
    }
    rematch_offers_[old_id] = *side;
    v1::MatchEvent e;
    e.mutable_rematch_offered()->set_by(to_proto(*side));
    old->notify(std::move(e));
    return then(std::string{});
  }
  if (opponent_seat.bot) return then(start_rematch(*old, new_match_id()));
  if (auto ok = check_limit(opponent_seat.player_id, setup.kind, "your opponent"); !ok) {
    return then(inarow::unexpected(ok.error()));
  }
  if (!elsewhere_) return then(start_rematch(*old, new_match_id()));
  // Two people on a cluster's node: held where every node counts it before
  // it is made, as a private game's join is.
  rematch_holds_.insert(old_id);
  std::string match_id = new_match_id();
  elsewhere_->hold_match(
      match_id, {player, opponent_seat.player_id},
      [this, weak = owner_, player, old_id, other, match_id,
       then = std::move(then)](inarow::expected<std::optional<std::size_t>, std::string> held) {
        auto owner = weak.lock();
        if (!owner) return;
        asio::post(strand_, [this, owner, player, old_id, other, match_id, held = std::move(held),
                             then = std::move(then)] {
          rematch_held(player, old_id, other, match_id, held, then);
        });
      });
}

void Lobby::rematch_held(const std::string& player, const std::string& old_id, Side other,
                         const std::string& match_id,
                         const inarow::expected<std::optional<std::size_t>, std::string>& held,
                         const std::function<void(Expected<std::string>)>& then) {
  rematch_holds_.erase(old_id);
  auto old = matches_.find(old_id);
  if (!old || shutting_down_)
    return then(fail_with(ProtocolError::unknown_match, "no match " + old_id));
  // Meanwhile the offer may have lapsed (its player left, or began another
  // game), or either player gone: a hold taken runs out by itself.
  if (auto offer = rematch_offers_.find(old_id);
      offer == rematch_offers_.end() || offer->second != other) {
    return then(fail_with(ProtocolError::no_offer, "the rematch offer lapsed"));
  }
  const Seat& opponent_seat = old->setup().seats[index(other)];
  if (!identity_.find(player) || !identity_.find(opponent_seat.player_id)) {
    return then(fail_with(ProtocolError::opponent_gone,
                          "your opponent is not here: a rematch needs both players"));
  }
  if (!held) {
    spdlog::warn("cluster: a rematch could not be made: {}", held.error());
    return then(fail_with(ProtocolError::internal, "the lobby is not available; try again"));
  }
  if (*held) {
    return then(inarow::unexpected(
        limit_failure(old->setup().kind, **held == 0 ? "you" : "your opponent")));
  }
  then(start_rematch(*old, match_id));
}

std::string Lobby::start_rematch(MatchActor& old, std::string match_id) {
  const MatchSetup& setup = old.setup();
  // The bot level travels with its seat; the sides swap.
  std::array<std::string, 2> seats;
  std::array<std::string, 2> levels;
  for (int s = 0; s < 2; ++s) {
    seats[1 - s] = setup.seats[s].player_id;
    levels[1 - s] = setup.seats[s].level;
  }
  rematch_offers_.erase(old.id());
  auto match = create_match(setup.variant, setup.kind, setup.rated,
                            ClockSetting{setup.initial, setup.increment}, seats, levels,
                            std::move(match_id));
  rematches_[old.id()] = match->id();
  if (auto code = private_codes_.find(old.id()); code != private_codes_.end()) {
    // Whoever could watch the old game can watch its rematch.
    private_codes_[match->id()] = code->second;
  }
  v1::MatchEvent e;
  e.mutable_rematch_started()->set_match_id(match->id());
  old.notify(std::move(e));
  return match->id();
}

void Lobby::lapse_offers(const std::string& player) {
  for (auto it = rematch_offers_.begin(); it != rematch_offers_.end();) {
    auto match = matches_.find(it->first);
    const auto side = match ? match->seat_of(player) : std::nullopt;
    if (match && !side) {
      ++it;
      continue;
    }
    if (match) {
      v1::MatchEvent e;
      auto* d = e.mutable_rematch_declined();
      d->set_by(to_proto(*side));
      d->set_lapsed(true);
      match->notify(std::move(e));
    }
    it = rematch_offers_.erase(it);
  }
}

void Lobby::player_left(const std::string& player) {
  lapse_offers(player);
  // Their open private game waits for them through the reconnect grace from
  // their last departure, then lapses if they are not back.
  Player* gone = identity_.find(player);
  if (!gone || std::none_of(privates_.begin(), privates_.end(),
                            [&](const auto& kv) { return kv.second.creator == player; })) {
    return;
  }
  const std::uint64_t departure = ++gone->departures;
  auto timer = std::make_shared<asio::steady_timer>(strand_, services_->config.reconnect_grace);
  timer->async_wait([this, owner = owner_.lock(), timer, player, departure](ErrorCode ec) {
    if (ec || shutting_down_) return;
    Player* p = identity_.find(player);
    if (!p || p->departures != departure || !identity_.live_connections(*p).empty()) return;
    if (drop_privates_of(player) > 0) identity_.unpin(player);
  });
}

std::size_t Lobby::drop_privates_of(const std::string& player) {
  return std::erase_if(privates_, [&](const auto& kv) {
    if (kv.second.creator != player) return false;
    if (elsewhere_) elsewhere_->code_closed(kv.first);
    return true;
  });
}

std::string Lobby::seek_terms(const Variant& variant, ClockSetting clock, bool rated) {
  // A seek with every field set, so that equal terms are equal bytes.
  v1::Seek seek;
  seek.set_variant(variant.name);
  seek.mutable_time_control()->set_initial_ms(clock.initial.count());
  seek.mutable_time_control()->set_increment_ms(clock.increment.count());
  seek.set_rated(rated);
  return seek.SerializeAsString();
}

void Lobby::paired(SharedSeek first, SharedSeek second, std::string match_id) {
  v1::Seek seek;
  if (!seek.ParseFromString(first.terms)) return;
  auto terms = check_game(seek.variant(), seek.time_control());
  if (!terms) return;
  const bool rated = seek.rated();
  // Both players held before the match is made (one may be another node's,
  // read from the store now).
  auto owner = owner_.lock();
  identity_.look_up(Identity::Key::id, first.player_id, owner,
                    [this, owner, first, second, terms = std::move(*terms), rated,
                     match_id = std::move(match_id)](Player* a) mutable {
                      if (!a) return;
                      identity_.pin(*a);
                      identity_.look_up(
                          Identity::Key::id, second.player_id, owner,
                          [this, first, second, terms = std::move(terms), rated,
                           match_id = std::move(match_id)](Player* b) {
                            if (b && !shutting_down_) {
                              create_match(terms.variant, v1::MATCH_KIND_SEEK, rated, terms.clock,
                                           {first.player_id, second.player_id}, {}, match_id);
                            }
                            identity_.unpin(first.player_id);
                          });
                    });
}

Seat Lobby::seat_for(const Player& p, const Variant& v, std::string level) const {
  return Seat{p.id, p.name, p.bot, std::move(level), services_->ratings.get(p.id, v.name)};
}

std::shared_ptr<MatchActor> Lobby::create_match(Variant variant, v1::MatchKind kind, bool rated,
                                                ClockSetting clock,
                                                std::array<std::string, 2> seat_ids,
                                                std::array<std::string, 2> levels,
                                                std::string match_id) {
  MatchSetup setup;
  setup.id = match_id.empty() ? new_match_id() : std::move(match_id);
  setup.kind = kind;
  setup.rated = rated;
  setup.initial = clock.initial;
  setup.increment = clock.increment;
  for (int s = 0; s < 2; ++s) {
    setup.seats[s] = seat_for(identity_.at(seat_ids[s]), variant, levels[s]);
  }
  setup.variant = std::move(variant);
  // A new match's first lease is the first of its id: generation 1.
  if (!services_->config.redis.empty()) setup.generation = 1;
  // Whoever starts another match leaves their rematch offers behind.
  for (const std::string& id : seat_ids)
    lapse_offers(id);
  auto actor = std::make_shared<MatchActor>(services_, std::move(setup));
  matches_.add(actor);
  feed_changed();  // one more game in play
  services_->metrics.matches_started[kind].fetch_add(1, std::memory_order_relaxed);
  services_->metrics.matches_live[kind].fetch_add(1, std::memory_order_relaxed);

  std::vector<std::pair<std::weak_ptr<Connection>, Side>> seated;
  std::vector<ConnectionPtr> relayed;                    // other nodes' clients, through links
  std::array<std::vector<ConnectionPtr>, 2> relayed_of;  // the same, by seat
  for (int s = 0; s < 2; ++s) {
    Player& p = identity_.at(seat_ids[s]);
    p.matches.insert(actor->id());
    for (auto& connection : identity_.live_connections(p)) {
      if (auto c = connection.lock(); c && c->relayed()) {
        relayed.push_back(c);
        relayed_of[static_cast<std::size_t>(s)].push_back(std::move(c));
      }
      seated.emplace_back(connection, static_cast<Side>(s));
    }
  }
  spdlog::debug("match_started match={} variant={} first={} second={}", actor->id(),
                actor->setup().variant.name, seat_ids[0], seat_ids[1]);
  actor->start(std::move(seated));
  if (elsewhere_) {
    // Their nodes learn where the match lives before they hear of it.
    elsewhere_->match_made(actor->id(), relayed);
    for (std::size_t s = 0; s < 2; ++s) {
      if (Player* p = identity_.find(seat_ids[s]); p && !p->bot && !Identity::online_here(*p))
        elsewhere_->seated_away(actor->id(), seat_ids[s], relayed_of[s]);
    }
    // A match against people counts toward its players' cap on every node.
    if (kind == v1::MATCH_KIND_SEEK || kind == v1::MATCH_KIND_PRIVATE)
      elsewhere_->count_match(actor->id(), {seat_ids[0], seat_ids[1]});
  }
  return actor;
}

v1::MatchList Lobby::list(const v1::ListMatches& req) const {
  const auto listed = [](const MatchActor& m) {
    return !m.over.load(std::memory_order_relaxed) && m.setup().kind != v1::MATCH_KIND_PRIVATE;
  };
  const std::size_t cap = static_cast<std::size_t>(std::max(1, services_->config.list_page_size));
  const std::size_t limit = req.limit() == 0 ? cap : std::min<std::size_t>(req.limit(), cap);
  v1::MatchList list;
  std::uint32_t total = 0;
  for (const auto& [id, match] : matches_.all()) {
    if (listed(*match)) ++total;
  }
  list.set_total(total);
  const auto& all = matches_.all();
  for (auto it = req.after().empty() ? all.begin() : all.upper_bound(req.after()); it != all.end();
       ++it) {
    const auto& [id, match] = *it;
    if (!listed(*match)) continue;
    if (static_cast<std::size_t>(list.matches_size()) == limit) {
      // More follow: the cursor is the last id on this page.
      list.set_next(list.matches(list.matches_size() - 1).match_id());
      break;
    }
    auto* s = list.add_matches();
    const MatchSetup& setup = match->setup();
    s->set_match_id(id);
    s->set_variant(setup.variant.name);
    s->set_kind(setup.kind);
    const bool swapped = match->swapped.load(std::memory_order_relaxed);
    for (int i = 0; i < 2; ++i) {
      auto* info = i == 0 ? s->mutable_first() : s->mutable_second();
      const Seat& seat = setup.seats[swapped ? 1 - i : i];  // by the side held now
      info->set_id(seat.player_id);
      info->set_name(seat.name);
      info->set_bot(seat.bot);
      *info->mutable_rating() = to_proto(seat.rating);
    }
    s->set_ply(match->ply);
    s->set_spectators(match->spectators);
  }
  return list;
}

bool Lobby::may_watch(const std::string& player, const MatchActor& match,
                      const std::string& code) const {
  if (match.setup().kind != v1::MATCH_KIND_PRIVATE || match.seat_of(player)) return true;
  auto it = private_codes_.find(match.id());
  return it != private_codes_.end() && !code.empty() && it->second == code;
}

void Lobby::match_ended(const std::string& match_id) {
  feed_changed();  // one game fewer in play
  auto timer = std::make_shared<asio::steady_timer>(strand_, services_->config.reconnect_grace);
  timer->async_wait(
      [this, owner = owner_.lock(), timer, match_id](ErrorCode) { forget(match_id); });
  if (shutting_down_) timer->cancel();
}

void Lobby::match_moved(const std::string& match_id) {
  auto match = matches_.find(match_id);
  if (!match || !match->moved.load(std::memory_order_acquire)) return;  // back here since
  if (!match->over.load(std::memory_order_relaxed)) {
    services_->metrics.matches_live[match->setup().kind % kMatchKinds].fetch_sub(
        1, std::memory_order_relaxed);
  }
  forget(match_id);
  feed_changed();
}

void Lobby::forget(const std::string& match_id) {
  auto match = matches_.find(match_id);
  if (!match) return;
  for (int s = 0; s < 2; ++s) {
    const std::string& id = match->setup().seats[s].player_id;
    if (Player* p = identity_.find(id)) {
      p->matches.erase(match_id);
      identity_.let_go(id);  // gone, unless a connection or another match holds them
    }
  }
  private_codes_.erase(match_id);
  bot_vs_bot_.erase(match_id);
  rematch_offers_.erase(match_id);
  rematches_.erase(match_id);
  matches_.retire(match_id);
}

void Lobby::shutdown() {
  shutting_down_ = true;
  tick_.cancel();
  feed_timer_.cancel();
  poll_timer_.cancel();
}

}  // namespace inarow::server
