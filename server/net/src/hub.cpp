// The lobby and the match actors. Asio only (no Beast): strands, timers and
// the bot worker pool.
#include "inarow/server/hub.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/util/json_util.h>
#include <spdlog/spdlog.h>

#include <array>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/uuid/detail/sha1.hpp>
#include <chrono>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <shared_mutex>
#include <unordered_map>

#include "inarow/bots/bot.h"
#include "inarow/engine/notation.h"
#include "inarow/server/match_core.h"
#include "inarow/server/matchmaker.h"

namespace inarow::server {

namespace asio = boost::asio;
using Strand = asio::strand<asio::io_context::executor_type>;
using ErrorCode = boost::system::error_code;

// ------------------------------------------------------------ messages

std::shared_ptr<const Outgoing> Outgoing::event(std::string_view encoded_event) {
  using google::protobuf::io::CodedOutputStream;
  // Field `event`, wire type 2 (length-delimited), then the length: exactly
  // what ServerMessage::SerializeAsString writes before the event's bytes.
  constexpr auto kTag = static_cast<std::uint32_t>(v1::ServerMessage::kEventFieldNumber) << 3 | 2;
  const auto size = static_cast<std::uint32_t>(encoded_event.size());
  std::string frame(static_cast<std::size_t>(CodedOutputStream::VarintSize32(kTag) +
                                             CodedOutputStream::VarintSize32(size)) +
                        encoded_event.size(),
                    '\0');
  auto* at = reinterpret_cast<std::uint8_t*>(frame.data());
  at = CodedOutputStream::WriteVarint32ToArray(kTag, at);
  at = CodedOutputStream::WriteVarint32ToArray(size, at);
  std::memcpy(at, encoded_event.data(), encoded_event.size());
  return std::make_shared<const Outgoing>(Encoded{}, std::move(frame));
}

const std::string& Outgoing::payload(bool text) const {
  if (text) {
    std::call_once(text_once_, [this] {
      v1::ServerMessage decoded;
      if (encoded_) (void)decoded.ParseFromString(binary_);
      (void)google::protobuf::util::MessageToJsonString(encoded_ ? decoded : message_, &text_);
    });
    return text_;
  }
  if (!encoded_) std::call_once(binary_once_, [this] { binary_ = message_.SerializeAsString(); });
  return binary_;
}

std::shared_ptr<const Outgoing> make_outgoing(v1::ServerMessage message) {
  return std::make_shared<const Outgoing>(std::move(message));
}

std::shared_ptr<const Outgoing> make_error(Metrics& metrics, std::uint64_t request_id,
                                           const Failure& failure, const std::string& match_id) {
  metrics.errors[static_cast<int>(failure.code)].fetch_add(1, std::memory_order_relaxed);
  v1::ServerMessage m;
  m.set_request_id(request_id);
  auto* e = m.mutable_error();
  e->set_code(static_cast<v1::ErrorCode>(failure.code));
  e->set_message(failure.message);
  e->set_match_id(match_id);
  return make_outgoing(std::move(m));
}

namespace {

std::shared_ptr<const Outgoing> make_ack(std::uint64_t request_id, const std::string& match_id,
                                         const std::string& code = {}) {
  v1::ServerMessage m;
  m.set_request_id(request_id);
  m.mutable_ack()->set_match_id(match_id);
  m.mutable_ack()->set_code(code);
  return make_outgoing(std::move(m));
}

std::shared_ptr<const Outgoing> make_event(const v1::MatchEvent& e) {
  return Outgoing::event(e.SerializeAsString());
}

// A game's moves as its event log tells them: a takeback drops what it undid.
std::vector<MoveRecord> moves_of(const std::vector<v1::MatchEvent>& events) {
  std::vector<MoveRecord> moves;
  for (const v1::MatchEvent& e : events) {
    if (e.has_move_made()) {
      moves.push_back(MoveRecord{e.move_made().ply(), e.move_made().move(), e.clocks().first_ms(),
                                 e.clocks().second_ms()});
    } else if (e.has_takeback_done()) {
      const int keep = e.takeback_done().moves_size();
      std::erase_if(moves, [keep](const MoveRecord& m) { return m.ply > keep; });
    }
  }
  return moves;
}

std::int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string random_hex(std::size_t bytes) {
  static thread_local std::random_device device;
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < bytes; ++i) {
    const auto b = device() & 0xff;
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

std::string hash_token(const std::string& token) {
  boost::uuids::detail::sha1 sha;
  sha.process_bytes(token.data(), token.size());
  boost::uuids::detail::sha1::digest_type digest;
  sha.get_digest(digest);
  std::string out;
  for (unsigned int word : digest)
    out += fmt::format("{:08x}", word);
  return out;
}

std::string bot_id(std::string_view level) {
  return "bot-" + std::string(level);
}

// A time control from the wire, checked.
Outcome<std::pair<Millis, Millis>> time_control(const v1::TimeControl& tc) {
  constexpr std::int64_t kDay = 24LL * 3600 * 1000;
  if (tc.initial_ms() < 0 || tc.increment_ms() < 0 || tc.initial_ms() > kDay ||
      tc.increment_ms() > kDay) {
    return fail_with(ProtocolError::bad_request, "time control out of range");
  }
  if (tc.initial_ms() == 0) return std::pair{Millis{0}, Millis{0}};
  return std::pair{Millis{tc.initial_ms()}, Millis{tc.increment_ms()}};
}

Outcome<Variant> variant_named(const std::string& name) {
  auto v = Variant::parse(name.empty() ? "tictactoe" : name);
  if (!v) return fail_with(ProtocolError::unknown_variant, v.error().message);
  return *v;
}

Outcome<std::string> level_named(const std::string& name) {
  const std::string level = name.empty() ? "medium" : name;
  if (!bots::find_level(level)) {
    return fail_with(ProtocolError::unknown_level, "no bot level named '" + level + "'");
  }
  return level;
}

// A rating book shared by the hub and the match actors: ratings per player
// and variant, read at match start, updated when a rated match ends.
class RatingBook {
 public:
  Rating get(const std::string& player, const std::string& variant) const {
    std::lock_guard lock(mutex_);
    auto it = book_.find({player, variant});
    return it == book_.end() ? Rating{} : it->second;
  }
  void set(const std::string& player, const std::string& variant, Rating r) {
    std::lock_guard lock(mutex_);
    book_[{player, variant}] = r;
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, Rating> book_;
};

// Bots to lend to searches, per variant and level. A searching bot owns a
// transposition table of several megabytes, so the server keeps as many as
// run at once (about one per bot thread and level), not one per match.
class BotPool {
 public:
  explicit BotPool(std::uint64_t seed) : seed_(seed ? seed : std::random_device{}()) {}

  std::unique_ptr<bots::Bot> acquire(const Variant& v, const std::string& level) {
    std::uint64_t seed;
    {
      std::lock_guard lock(mutex_);
      auto& free = free_[{v.name, level}];
      if (!free.empty()) {
        auto bot = std::move(free.back());
        free.pop_back();
        return bot;
      }
      seed = seed_ + ++created_;
    }
    auto bot = bots::make_level_bot(v, level, seed);
    if (!bot) return nullptr;
    return std::move(*bot);
  }

  void release(const Variant& v, const std::string& level, std::unique_ptr<bots::Bot> bot) {
    std::lock_guard lock(mutex_);
    free_[{v.name, level}].push_back(std::move(bot));
  }

 private:
  std::mutex mutex_;
  std::uint64_t seed_;
  std::uint64_t created_ = 0;
  std::map<std::pair<std::string, std::string>, std::vector<std::unique_ptr<bots::Bot>>> free_;
};

}  // namespace

// ------------------------------------------------------------ match actor

class MatchActor;

struct Hub::Impl : std::enable_shared_from_this<Hub::Impl> {
  Impl(asio::io_context& ioc_, asio::thread_pool& bot_pool_, const ServerConfig& config_,
       Store& store_, StoreWriter& writer_, Metrics& metrics_)
      : ioc(ioc_),
        bot_pool(bot_pool_),
        config(config_),
        store(store_),
        writer(writer_),
        metrics(metrics_),
        strand(asio::make_strand(ioc_)),
        bots(config_.bot_seed),
        matchmaker(config_.matchmaker),
        tick(strand),
        rng(config_.bot_seed ? config_.bot_seed : std::random_device{}()) {}

  struct PeerEntry {
    std::weak_ptr<Peer> peer;
    std::string player_id;
    std::set<std::string> watching;  // matches this connection spectates
  };
  struct PlayerEntry {
    std::string id;
    std::string name;
    std::string token_hash;
    bool bot = false;
    std::vector<std::weak_ptr<Peer>> peers;
    std::set<std::string> matches;  // seated in, live or lingering after the end
  };
  struct PrivateGame {
    std::string creator;
    Variant variant;
    Millis initial, increment;
    Side side;
    bool rated;
  };

  asio::io_context& ioc;
  asio::thread_pool& bot_pool;
  const ServerConfig& config;
  Store& store;
  StoreWriter& writer;
  Metrics& metrics;
  Strand strand;
  RatingBook ratings;
  BotPool bots;

  // Hub strand state.
  std::unordered_map<Peer*, PeerEntry> peers;
  // Peers whose new identity is being stored: what they send meanwhile waits.
  std::unordered_map<Peer*, std::vector<v1::ClientMessage>> greeting;
  std::unordered_map<std::string, PlayerEntry> players;
  std::unordered_map<std::string, std::string> tokens;  // hash -> player id
  std::unordered_map<std::string, std::shared_ptr<MatchActor>> matches;
  std::unordered_map<std::string, PrivateGame> privates;  // by code
  Matchmaker matchmaker;
  std::map<std::string, std::pair<Millis, Millis>> seek_clocks;  // pool -> time control
  asio::steady_timer tick;
  bool ticking = false;
  // Set once by shutdown(); read on the hub strand and, for the routes
  // below, from the reading threads.
  std::atomic<bool> shutting_down{false};

  // The fast path for a player's commands in a match it is seated in: once
  // the hub has routed one (it knows the connection's player and the seat),
  // the connection's later commands for that match go straight to the
  // match's strand from the reading thread, skipping the hub's. Written on
  // the hub strand, read from any thread.
  struct Route {
    std::string match_id;
    std::weak_ptr<MatchActor> match;
    Side side;
  };
  std::shared_mutex routes_mutex;
  std::unordered_map<Peer*, std::vector<Route>> routes;

  // The match and seat for this connection's command, if routed before.
  std::optional<std::pair<std::shared_ptr<MatchActor>, Side>> route(Peer* peer,
                                                                    const std::string& match_id);
  void remember_route(Peer* peer, const std::string& match_id,
                      const std::shared_ptr<MatchActor>& match, Side side);
  std::mt19937_64 rng;

  void on_receive(const std::shared_ptr<Peer>& peer, v1::ClientMessage& msg);
  void on_hello(const std::shared_ptr<Peer>& peer, const v1::ClientMessage& msg);
  void welcome(const std::shared_ptr<Peer>& peer, PlayerEntry& player, std::uint64_t request_id,
               bool resumed, const v1::Hello& hello, const std::string& token);
  Outcome<void> on_seek(const std::string& player, const v1::Seek& seek);
  Outcome<std::string> on_play_bot(const std::string& player, const v1::PlayBot& req);
  Outcome<std::string> on_start_bot_match(const v1::StartBotMatch& req);
  void on_list(const std::shared_ptr<Peer>& peer, std::uint64_t request_id);
  void run_matchmaker();
  void arm_tick();

  PlayerEntry& ensure_bot(std::string_view level);
  Seat seat_for(const PlayerEntry& p, const Variant& v, std::string level = {}) const;
  std::shared_ptr<MatchActor> create_match(Variant variant, v1::MatchKind kind, bool rated,
                                           Millis initial, Millis increment,
                                           std::array<std::string, 2> players,
                                           std::array<std::string, 2> levels);
  std::vector<std::weak_ptr<Peer>> live_peers(PlayerEntry& p);
  void match_over(const std::string& match_id);
  void send(const std::shared_ptr<Peer>& peer, std::shared_ptr<const Outgoing> m) {
    metrics.messages_out.fetch_add(1, std::memory_order_relaxed);
    peer->deliver(std::move(m));
  }
  void send_all(const std::shared_ptr<Peer>& peer,
                std::vector<std::shared_ptr<const Outgoing>> messages) {
    metrics.messages_out.fetch_add(messages.size(), std::memory_order_relaxed);
    if (messages.size() == 1) {
      peer->deliver(std::move(messages.front()));
    } else {
      peer->deliver_all(std::move(messages));
    }
  }
  void send_error(const std::shared_ptr<Peer>& peer, std::uint64_t request_id, const Failure& f,
                  const std::string& match_id = {}) {
    send(peer, make_error(metrics, request_id, f, match_id));
  }
};

class MatchActor : public std::enable_shared_from_this<MatchActor> {
 public:
  MatchActor(std::shared_ptr<Hub::Impl> hub, MatchSetup setup)
      : hub_(std::move(hub)),
        strand_(asio::make_strand(hub_->ioc)),
        core_(std::move(setup)),
        flag_timer_(strand_),
        grace_timers_{asio::steady_timer(strand_), asio::steady_timer(strand_)} {}

  const MatchSetup& setup() const { return core_.setup(); }
  const std::string& id() const { return core_.setup().id; }
  // Set when the hub forgets the match: routes to it are no longer taken.
  std::atomic<bool> retired{false};
  std::optional<Side> seat_of(const std::string& player_id) const {
    for (int s = 0; s < 2; ++s) {
      if (setup().seats[s].player_id == player_id) return static_cast<Side>(s);
    }
    return std::nullopt;
  }

  // Readable from any thread, for the match list.
  std::atomic<int> ply{0};
  std::atomic<unsigned> spectators{0};
  std::atomic<bool> over{false};

  // A new match: store it, then tell the seated peers.
  void start(std::vector<std::pair<std::weak_ptr<Peer>, Side>> seated) {
    asio::post(strand_, [self = shared_from_this(), seated = std::move(seated)] {
      for (auto& [peer, side] : seated)
        self->subscribe(peer, side);
      auto events = self->core_.start(SteadyClock::now());
      const MatchSetup& s = self->setup();
      MatchRecord rec;
      rec.id = s.id;
      rec.variant = s.variant.name;
      rec.kind = s.kind;
      rec.rated = s.rated;
      rec.initial_ms = s.initial.count();
      rec.increment_ms = s.increment.count();
      rec.first_id = s.seats[0].player_id;
      rec.second_id = s.seats[1].player_id;
      rec.first_level = s.seats[0].level;
      rec.second_level = s.seats[1].level;
      rec.created_ms = unix_ms();
      self->commit(std::move(events), {store_op::CreateMatch{std::move(rec)}}, {});
    });
  }

  // A match read back from the store: replay its events (before serving).
  bool restore(const MatchRecord& rec) {
    for (const std::string& blob : rec.events) {
      v1::MatchEvent e;
      if (!e.ParseFromString(blob) || !core_.replay(e)) return false;
    }
    published_seq_ = core_.last_seq();
    ply = core_.game().ply();
    return !core_.log().empty();
  }

  // After restore: clocks run again, absent players get their grace, bots think.
  void resume() {
    asio::post(strand_, [self = shared_from_this()] {
      const auto now = SteadyClock::now();
      self->core_.resume_clock(now);
      for (int s = 0; s < 2; ++s) {
        if (!self->setup().seats[s].bot) self->start_grace(static_cast<Side>(s));
      }
      self->after_change();
    });
  }

  void command(std::shared_ptr<Peer> peer, Side side, v1::ClientMessage msg) {
    asio::post(strand_, [self = shared_from_this(), peer = std::move(peer), side,
                         msg = std::move(msg)]() mutable { self->on_command(peer, side, msg); });
  }

  // Subscribe a peer (a seated player back, or a spectator); replays the
  // events after `after_seq` when given, then sends the full state.
  void attach(std::weak_ptr<Peer> peer, std::optional<Side> side,
              std::optional<std::uint64_t> after_seq, std::uint64_t request_id) {
    asio::post(strand_, [=, self = shared_from_this()] {
      self->pending_attaches_.push_back({peer, side, after_seq, request_id});
      self->flush_attaches();
    });
  }

  void detach(const std::shared_ptr<Peer>& peer, std::uint64_t request_id) {
    asio::post(strand_, [self = shared_from_this(), peer, request_id] {
      self->unsubscribe(peer.get());
      self->hub_->send(peer, make_ack(request_id, self->id()));
    });
  }

  // A seated player's last connection went or a first one came back.
  void presence(Side side, bool connected) {
    asio::post(strand_, [self = shared_from_this(), side, connected] {
      if (self->core_.over() || self->stopped_) return;
      if (connected) {
        self->grace_timers_[index(side)].cancel();
      } else {
        self->start_grace(side);
      }
      self->commit(self->core_.presence(side, connected, SteadyClock::now()), {}, {});
    });
  }

  void forget_peer(Peer* peer) {
    asio::post(strand_, [self = shared_from_this(), peer] { self->unsubscribe(peer); });
  }

  void shutdown() {
    asio::post(strand_, [self = shared_from_this()] {
      self->stopped_ = true;
      self->flag_timer_.cancel();
      for (auto& t : self->grace_timers_)
        t.cancel();
      if (self->search_stop_) self->search_stop_->store(true);
    });
  }

 private:
  struct Subscriber {
    std::weak_ptr<Peer> peer;
    Peer* key;
    std::optional<Side> side;
  };
  struct PendingAttach {
    std::weak_ptr<Peer> peer;
    std::optional<Side> side;
    std::optional<std::uint64_t> after_seq;
    std::uint64_t request_id;
  };

  void subscribe(const std::weak_ptr<Peer>& peer, std::optional<Side> side) {
    auto p = peer.lock();
    if (!p) return;
    // Drop the dead first: a new peer may live at a dead one's address.
    std::erase_if(subs_, [&](const Subscriber& s) {
      if (!s.peer.expired()) return false;
      if (!s.side) --spectators;
      return true;
    });
    for (auto& s : subs_) {
      if (s.key == p.get()) return;
    }
    subs_.push_back({peer, p.get(), side});
    if (!side) ++spectators;
  }

  void unsubscribe(Peer* key) {
    std::erase_if(subs_, [&](const Subscriber& s) {
      if (s.key != key) return false;
      if (!s.side) --spectators;
      return true;
    });
  }

  // Attach only when everything in the log has been published, so that a
  // new subscriber's state and the events it gets next never overlap.
  void flush_attaches() {
    if (published_seq_ != core_.last_seq()) return;
    const auto now = SteadyClock::now();
    for (PendingAttach& a : pending_attaches_) {
      auto peer = a.peer.lock();
      if (!peer) continue;
      if (a.after_seq) {
        for (const auto& e : core_.events_after(*a.after_seq, published_seq_)) {
          hub_->send(peer, make_event(e));
        }
      }
      v1::ServerMessage m;
      m.set_request_id(a.request_id);
      *m.mutable_match_state() = core_.state(a.side, now);
      hub_->send(peer, make_outgoing(std::move(m)));
      subscribe(a.peer, a.side);
    }
    pending_attaches_.clear();
  }

  void on_command(const std::shared_ptr<Peer>& peer, Side side, const v1::ClientMessage& msg) {
    const auto now = SteadyClock::now();
    if (stopped_) {
      hub_->send_error(peer, msg.request_id(),
                       {ProtocolError::shutting_down, "the server is shutting down"}, id());
      return;
    }
    if (paused_) {
      hub_->send_error(peer, msg.request_id(), kPausedFailure, id());
      return;
    }
    // A flag that fell just now ends the match before the command is looked at.
    if (auto flagged = core_.check_flag(now); !flagged.empty()) {
      commit(std::move(flagged), {}, {});
    }
    Outcome<MatchCore::Events> result = MatchCore::Events{};
    bool bot_answers_takeback = false;
    switch (msg.body_case()) {
      case v1::ClientMessage::kMove:
        result = core_.move(side, msg.move().move(), now);
        break;
      case v1::ClientMessage::kResign:
        result = core_.resign(side, now);
        break;
      case v1::ClientMessage::kOfferDraw:
        result = core_.offer_draw(side, now);
        break;
      case v1::ClientMessage::kAnswerDraw:
        result = core_.answer_draw(side, msg.answer_draw().accept(), now);
        break;
      case v1::ClientMessage::kRequestTakeback:
        result = core_.request_takeback(side, now);
        bot_answers_takeback = setup().seats[index(opponent(side))].bot;
        break;
      case v1::ClientMessage::kAnswerTakeback:
        result = core_.answer_takeback(side, msg.answer_takeback().accept(), now);
        break;
      default:
        result = fail_with(ProtocolError::unknown_message, "not a match command");
    }
    if (!result) {
      hub_->send_error(peer, msg.request_id(), result.error(), id());
      return;
    }
    MatchCore::Events events = std::move(*result);
    if (bot_answers_takeback) {
      // A bot grants every takeback; a search under way is for a stale position.
      cancel_search();
      auto granted = core_.answer_takeback(opponent(side), true, now);
      if (granted) events.insert(events.end(), granted->begin(), granted->end());
    }
    commit(std::move(events), {}, Reply{peer, msg.request_id()});
  }

  // Who asked for a change, to be acknowledged once it is durable.
  struct Reply {
    std::shared_ptr<Peer> peer;
    std::uint64_t request_id = 0;
  };

  // Make the events durable, then publish them with the ack, if one is due.
  void commit(MatchCore::Events events, std::vector<StoreOp> ops,
              std::optional<Reply> reply = std::nullopt) {
    if (paused_) return pause(reply);  // nothing more is stored after a failed commit
    if (events.empty() && ops.empty()) {
      if (reply) hub_->send(reply->peer, make_ack(reply->request_id, id()));
      return;
    }
    if (!events.empty() && events.back().has_ended()) {
      rate_result(events.back(), ops);
    }
    // One log row per event; the end files the game's record as well. Each
    // event is encoded once, for its log row and for its frame.
    std::vector<std::shared_ptr<const Outgoing>> outs;
    outs.reserve(events.size());
    ops.reserve(ops.size() + events.size() + 1);
    for (const auto& e : events) {
      if (e.has_move_made()) hub_->metrics.moves.fetch_add(1, std::memory_order_relaxed);
      std::string encoded = e.SerializeAsString();
      outs.push_back(Outgoing::event(encoded));
      ops.push_back(store_op::AppendEvent{id(), e.seq(), std::move(encoded)});
      if (e.has_ended()) {
        ops.push_back(store_op::FinishMatch{id(), e.ended().result(), e.ended().reason(), unix_ms(),
                                            moves_of(core_.log())});
      }
    }
    const std::uint64_t last_seq = events.empty() ? 0 : events.back().seq();
    ply = core_.game().ply();
    after_change();
    hub_->writer.submit(std::move(ops), [self = shared_from_this(), outs = std::move(outs),
                                         last_seq, reply = std::move(reply)](bool ok) mutable {
      asio::post(self->strand_,
                 [self, outs = std::move(outs), last_seq, reply = std::move(reply), ok] {
                   if (!ok) return self->pause(reply);
                   if (self->paused_) return;  // after a failed commit nothing more is told
                   self->publish(outs, last_seq, reply);
                 });
    });
  }

  // A commit failed: what it held was never durable, so nobody is told of it
  // (the asker gets an error instead of its ack) and the match stops here.
  // Its store keeps everything up to the last good commit; a restarted server
  // restores it from there.
  static inline const Failure kPausedFailure{
      ProtocolError::internal,
      "the match is paused: the server could not store it; it resumes "
      "from its last stored move when the server restarts"};
  void pause(const std::optional<Reply>& reply) {
    if (!paused_) {
      spdlog::error("store_write_failed match={} paused at seq={}", id(), published_seq_);
      paused_ = true;
      flag_timer_.cancel();
      for (auto& t : grace_timers_)
        t.cancel();
      cancel_search();
    }
    if (reply) hub_->send_error(reply->peer, reply->request_id, kPausedFailure, id());
  }

  // Rated results update both players' ratings; the changes ride in the
  // ended event (here, before it is stored).
  void rate_result(v1::MatchEvent& ended_event, std::vector<StoreOp>& ops) {
    if (!setup().rated) return;
    const v1::Result r = ended_event.ended().result();
    if (r != v1::RESULT_FIRST_WINS && r != v1::RESULT_SECOND_WINS && r != v1::RESULT_DRAW) return;
    const double first_score = r == v1::RESULT_FIRST_WINS ? 1.0 : r == v1::RESULT_DRAW ? 0.5 : 0.0;
    const std::string& variant = setup().variant.name;
    std::array<Rating, 2> before;
    for (int s = 0; s < 2; ++s)
      before[s] = hub_->ratings.get(setup().seats[s].player_id, variant);
    std::vector<v1::RatingChange> changes;
    for (int s = 0; s < 2; ++s) {
      const double score = s == 0 ? first_score : 1.0 - first_score;
      const GameResult game{before[1 - s], score};
      const Rating after = glicko2_update(before[s], std::span(&game, 1));
      const std::string& player = setup().seats[s].player_id;
      hub_->ratings.set(player, variant, after);
      ops.push_back(store_op::SaveRating{player, variant, after});
      v1::RatingChange c;
      c.set_player_id(player);
      *c.mutable_before() = to_proto(before[s]);
      *c.mutable_after() = to_proto(after);
      changes.push_back(c);
    }
    for (const auto& c : changes)
      *ended_event.mutable_ended()->add_ratings() = c;
    core_.attach_ratings(changes);
  }

  // Every subscriber gets the events; the one who asked gets its ack with
  // them, in the same hand-over to its connection.
  // `last_seq` is the seq of the last of `outs`.
  void publish(const std::vector<std::shared_ptr<const Outgoing>>& outs, std::uint64_t last_seq,
               const std::optional<Reply>& reply) {
    auto ack = reply ? make_ack(reply->request_id, id()) : nullptr;
    std::erase_if(subs_, [&](const Subscriber& s) {
      auto peer = s.peer.lock();
      if (!peer) {
        if (!s.side) --spectators;
        return true;
      }
      const bool asker = ack && peer == reply->peer;
      std::vector<std::shared_ptr<const Outgoing>> batch;
      batch.reserve(outs.size() + (asker ? 1 : 0));
      batch.assign(outs.begin(), outs.end());
      if (asker) batch.push_back(std::exchange(ack, nullptr));
      if (!batch.empty()) hub_->send_all(peer, std::move(batch));
      return false;
    });
    if (!outs.empty()) published_seq_ = last_seq;
    if (ack) hub_->send(reply->peer, std::move(ack));  // the asker does not follow the match
    flush_attaches();
    if (core_.over() && !over.exchange(true)) {
      spdlog::debug("match_ended match={} result={} reason={} plies={}", id(),
                    v1::Result_Name(core_.result()), v1::EndReason_Name(core_.end_reason()),
                    core_.game().ply());
      hub_->metrics.matches_live[setup().kind].fetch_sub(1, std::memory_order_relaxed);
      auto hub = hub_;
      asio::post(hub->strand, [hub, id = id()] { hub->match_over(id); });
    }
  }

  // After any change: the flag timer follows the running clock, and a bot to
  // move starts thinking.
  void after_change() {
    if (stopped_ || paused_) return;
    if (core_.over()) {
      flag_timer_.cancel();
      for (auto& t : grace_timers_)
        t.cancel();
      cancel_search();
      return;
    }
    if (auto left = core_.until_flag(SteadyClock::now())) {
      flag_timer_.expires_after(*left + Millis{1});
      flag_timer_.async_wait([self = shared_from_this()](ErrorCode ec) {
        if (ec || self->stopped_) return;
        self->commit(self->core_.check_flag(SteadyClock::now()), {}, {});
      });
    }
    maybe_start_search();
  }

  void start_grace(Side side) {
    // With a clock the absent player's time runs out by itself.
    if (core_.clock().enabled() || core_.over()) return;
    auto& timer = grace_timers_[index(side)];
    timer.expires_after(hub_->config.reconnect_grace);
    timer.async_wait([self = shared_from_this(), side](ErrorCode ec) {
      if (ec || self->stopped_) return;
      self->commit(self->core_.abandon(side, SteadyClock::now()), {}, {});
    });
  }

  void maybe_start_search() {
    const Side side = core_.to_move();
    const Seat& seat = setup().seats[index(side)];
    if (!seat.bot || searching_ || core_.over()) return;
    searching_ = true;
    const std::uint64_t generation = ++search_generation_;
    search_stop_ = std::make_shared<std::atomic<bool>>(false);
    // Budget from the clock: a slice of what is left plus most of the increment.
    Millis budget{0};
    if (core_.clock().enabled()) {
      const Millis left = core_.clock().remaining(side, SteadyClock::now());
      budget = std::max(Millis{5}, left / 30 + core_.clock().increment() * 3 / 4);
      if (const auto level = bots::find_level(setup().seats[index(side)].level);
          level && level->time_ms > 0) {
        budget = std::min(budget, Millis{level->time_ms});
      }
    }
    asio::post(hub_->bot_pool, [self = shared_from_this(), level = seat.level, game = core_.game(),
                                budget, stop = search_stop_, generation] {
      const auto started = SteadyClock::now();
      // Bots are borrowed per search: their tables are large, matches many.
      auto bot = self->hub_->bots.acquire(game.variant(), level);
      bots::Choice choice;
      if (bot) {
        choice = bot->choose(game, bots::MoveBudget{budget, stop.get()});
        self->hub_->bots.release(game.variant(), level, std::move(bot));
      } else {
        choice.move = game.legal_moves().front();
      }
      self->hub_->metrics.bot_search.observe(
          std::chrono::duration<double>(SteadyClock::now() - started).count());
      asio::post(self->strand_,
                 [self, choice, generation] { self->on_bot_move(choice, generation); });
    });
  }

  void cancel_search() {
    if (!searching_) return;
    ++search_generation_;
    if (search_stop_) search_stop_->store(true);
  }

  void on_bot_move(const bots::Choice& choice, std::uint64_t generation) {
    searching_ = false;
    if (stopped_ || paused_ || core_.over()) return;
    if (generation != search_generation_) {
      after_change();  // the position changed under the search: think again
      return;
    }
    if (auto flagged = core_.check_flag(SteadyClock::now()); !flagged.empty()) {
      commit(std::move(flagged), {}, {});
      return;
    }
    const Side side = core_.to_move();
    auto result = core_.move_cell(side, choice.move, SteadyClock::now());
    if (!result) {
      spdlog::error("bot_move_rejected match={} reason=\"{}\"", id(), result.error().message);
      return;
    }
    commit(std::move(*result), {}, {});
  }

  std::shared_ptr<Hub::Impl> hub_;
  Strand strand_;
  MatchCore core_;
  std::vector<Subscriber> subs_;
  std::vector<PendingAttach> pending_attaches_;
  std::uint64_t published_seq_ = 0;
  asio::steady_timer flag_timer_;
  std::array<asio::steady_timer, 2> grace_timers_;
  std::shared_ptr<std::atomic<bool>> search_stop_;
  std::uint64_t search_generation_ = 0;
  bool searching_ = false;
  bool stopped_ = false;
  bool paused_ = false;  // a commit failed
};

// ------------------------------------------------------------ hub

Hub::Hub(asio::io_context& ioc, asio::thread_pool& bot_pool, const ServerConfig& config,
         Store& store, StoreWriter& writer, Metrics& metrics)
    : impl_(std::make_shared<Impl>(ioc, bot_pool, config, store, writer, metrics)) {}

Hub::~Hub() {
  // Each match holds the hub (hub_) and the hub holds each match: let go of
  // them, or both outlive the server (LeakSanitizer said so). The server
  // destroys its hub after its I/O threads have stopped, so no strand runs.
  impl_->matches.clear();
}

namespace {
// The match a seated player's command is for; null for every other message.
const std::string* seated_match_id(const v1::ClientMessage& m) {
  switch (m.body_case()) {
    case v1::ClientMessage::kMove:
      return &m.move().match_id();
    case v1::ClientMessage::kResign:
      return &m.resign().match_id();
    case v1::ClientMessage::kOfferDraw:
      return &m.offer_draw().match_id();
    case v1::ClientMessage::kAnswerDraw:
      return &m.answer_draw().match_id();
    case v1::ClientMessage::kRequestTakeback:
      return &m.request_takeback().match_id();
    case v1::ClientMessage::kAnswerTakeback:
      return &m.answer_takeback().match_id();
    default:
      return nullptr;
  }
}
}  // namespace

std::optional<std::pair<std::shared_ptr<MatchActor>, Side>> Hub::Impl::route(
    Peer* peer, const std::string& match_id) {
  std::shared_lock lock(routes_mutex);
  auto it = routes.find(peer);
  if (it == routes.end()) return std::nullopt;
  for (const Route& r : it->second) {
    if (r.match_id != match_id) continue;
    auto match = r.match.lock();
    if (!match || match->retired.load(std::memory_order_acquire)) return std::nullopt;
    return std::pair{std::move(match), r.side};
  }
  return std::nullopt;
}

void Hub::Impl::remember_route(Peer* peer, const std::string& match_id,
                               const std::shared_ptr<MatchActor>& match, Side side) {
  std::unique_lock lock(routes_mutex);
  auto& list = routes[peer];
  std::erase_if(list, [](const Route& r) {
    auto m = r.match.lock();
    return !m || m->retired.load(std::memory_order_relaxed);
  });
  for (const Route& r : list) {
    if (r.match_id == match_id) return;
  }
  list.push_back(Route{match_id, match, side});
}

void Hub::receive(std::shared_ptr<Peer> peer, v1::ClientMessage message) {
  impl_->metrics.messages_in.fetch_add(1, std::memory_order_relaxed);
  if (const std::string* match_id = seated_match_id(message);
      match_id && !impl_->shutting_down.load(std::memory_order_acquire)) {
    if (auto routed = impl_->route(peer.get(), *match_id)) {
      routed->first->command(std::move(peer), routed->second, std::move(message));
      return;
    }
  }
  asio::post(impl_->strand,
             [impl = impl_, peer = std::move(peer), message = std::move(message)]() mutable {
               impl->on_receive(peer, message);
             });
}

void Hub::disconnected(const std::shared_ptr<Peer>& peer) {
  asio::post(impl_->strand, [impl = impl_, peer] {
    impl->greeting.erase(peer.get());
    {
      std::unique_lock lock(impl->routes_mutex);
      impl->routes.erase(peer.get());
    }
    auto it = impl->peers.find(peer.get());
    if (it == impl->peers.end()) return;
    const std::string player_id = it->second.player_id;
    const std::set<std::string> watching = std::move(it->second.watching);
    impl->peers.erase(it);
    auto p = impl->players.find(player_id);
    for (const std::string& id : watching) {
      if (auto m = impl->matches.find(id); m != impl->matches.end())
        m->second->forget_peer(peer.get());
    }
    if (p == impl->players.end()) return;
    for (const std::string& id : p->second.matches) {
      if (auto m = impl->matches.find(id); m != impl->matches.end())
        m->second->forget_peer(peer.get());
    }
    std::erase_if(p->second.peers, [&](const std::weak_ptr<Peer>& w) {
      auto s = w.lock();
      return !s || s == peer;
    });
    if (!p->second.peers.empty()) return;
    impl->matchmaker.remove(player_id);
    for (const std::string& match_id : p->second.matches) {
      auto m = impl->matches.find(match_id);
      if (m == impl->matches.end()) continue;
      if (auto side = m->second->seat_of(player_id)) m->second->presence(*side, false);
    }
  });
}

void Hub::shutdown() {
  asio::post(impl_->strand, [impl = impl_] {
    impl->shutting_down.store(true, std::memory_order_release);
    impl->tick.cancel();
    for (auto& [id, match] : impl->matches)
      match->shutdown();
    v1::ServerMessage bye;
    bye.mutable_bye()->set_reason("the server is shutting down");
    auto out = make_outgoing(std::move(bye));
    for (auto& [key, entry] : impl->peers) {
      if (auto peer = entry.peer.lock()) {
        impl->send(peer, out);
        peer->close(CloseKind::going_away);
      }
    }
  });
}

void Hub::restore() {
  Impl& h = *impl_;
  for (PlayerRecord& p : h.store.load_players()) {
    for (auto& [variant, r] : p.ratings)
      h.ratings.set(p.id, variant, r);
    if (!p.token_hash.empty()) h.tokens[p.token_hash] = p.id;
    h.players[p.id] = Impl::PlayerEntry{p.id, p.name, p.token_hash, p.bot, {}, {}};
  }
  int restored = 0;
  for (const MatchRecord& rec : h.store.load_unfinished()) {
    auto variant = Variant::parse(rec.variant);
    v1::MatchEvent first;
    if (!variant || rec.events.empty() || !first.ParseFromString(rec.events.front()) ||
        !first.has_started()) {
      spdlog::warn("restore_skipped match={} reason=\"no start event\"", rec.id);
      continue;
    }
    const v1::MatchState& st = first.started().state();
    MatchSetup setup;
    setup.id = rec.id;
    setup.variant = *variant;
    setup.kind = static_cast<v1::MatchKind>(rec.kind);
    setup.rated = rec.rated;
    setup.initial = Millis{rec.initial_ms};
    setup.increment = Millis{rec.increment_ms};
    const std::array<const v1::PlayerInfo*, 2> infos = {&st.first(), &st.second()};
    const std::array<std::string, 2> levels = {rec.first_level, rec.second_level};
    for (int s = 0; s < 2; ++s) {
      Seat& seat = setup.seats[s];
      seat.player_id = infos[s]->id();
      seat.name = infos[s]->name();
      seat.bot = infos[s]->bot();
      seat.level = levels[s];
      seat.rating = Rating{infos[s]->rating().rating(), infos[s]->rating().deviation(),
                           infos[s]->rating().volatility()};
    }
    auto actor = std::make_shared<MatchActor>(impl_, std::move(setup));
    if (!actor->restore(rec)) {
      spdlog::warn("restore_skipped match={} reason=\"inconsistent event log\"", rec.id);
      continue;
    }
    h.matches[rec.id] = actor;
    h.metrics.matches_live[rec.kind % kMatchKinds].fetch_add(1);
    for (int s = 0; s < 2; ++s) {
      auto p = h.players.find(actor->setup().seats[s].player_id);
      if (p != h.players.end()) p->second.matches.insert(rec.id);
    }
    actor->resume();
    ++restored;
  }
  spdlog::info("store_restored players={} matches={}", h.players.size(), restored);
}

std::optional<std::string> Hub::match_record_json(const std::string& id) {
  auto rec = impl_->store.load_match(id);
  if (!rec) return std::nullopt;
  if (rec->result == 0) {  // live: the moves are what its events say so far
    std::vector<v1::MatchEvent> events(rec->events.size());
    for (std::size_t i = 0; i < events.size(); ++i)
      (void)events[i].ParseFromString(rec->events[i]);
    rec->moves = moves_of(events);
  }
  auto quote = [](const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\') out += '\\';
      if (static_cast<unsigned char>(c) < 0x20) continue;
      out += c;
    }
    return out + "\"";
  };
  auto variant = Variant::parse(rec->variant);
  std::string moves;
  std::string notation;
  for (const MoveRecord& m : rec->moves) {
    if (!moves.empty()) moves += ",";
    moves += fmt::format("{{\"ply\":{},\"move\":{},\"firstMs\":{},\"secondMs\":{}}}", m.ply,
                         quote(m.move), m.first_ms, m.second_ms);
    notation += m.move;
  }
  return fmt::format(
      "{{\"matchId\":{},\"variant\":{},\"kind\":{},\"rated\":{},\"timeControl\":{{\"initialMs\":{},"
      "\"incrementMs\":{}}},\"first\":{},\"second\":{},\"result\":{},\"endReason\":{},"
      "\"createdMs\":{},\"endedMs\":{},\"notation\":{},\"moves\":[{}]}}",
      quote(rec->id), quote(rec->variant),
      quote(v1::MatchKind_Name(static_cast<v1::MatchKind>(rec->kind))),
      rec->rated ? "true" : "false", rec->initial_ms, rec->increment_ms, quote(rec->first_id),
      quote(rec->second_id), quote(v1::Result_Name(static_cast<v1::Result>(rec->result))),
      quote(v1::EndReason_Name(static_cast<v1::EndReason>(rec->reason))), rec->created_ms,
      rec->ended_ms, quote(notation), moves);
}

// ------------------------------------------------------------ hub strand

void Hub::Impl::on_receive(const std::shared_ptr<Peer>& peer, v1::ClientMessage& msg) {
  const std::uint64_t rid = msg.request_id();
  if (shutting_down) {
    send_error(peer, rid, {ProtocolError::shutting_down, "the server is shutting down"});
    return;
  }
  if (auto held = greeting.find(peer.get()); held != greeting.end()) {
    held->second.push_back(std::move(msg));
    return;
  }
  if (msg.has_hello()) {
    on_hello(peer, msg);
    return;
  }
  auto who = peers.find(peer.get());
  if (who == peers.end()) {
    send_error(peer, rid, {ProtocolError::hello_required, "say hello first"});
    return;
  }
  const std::string player_id = who->second.player_id;

  auto match_for = [&](const std::string& match_id) -> std::shared_ptr<MatchActor> {
    auto it = matches.find(match_id);
    if (it == matches.end()) {
      send_error(peer, rid, {ProtocolError::unknown_match, "no match " + match_id}, match_id);
      return nullptr;
    }
    return it->second;
  };
  auto seated_command = [&](const std::string& match_id) {
    auto match = match_for(match_id);
    if (!match) return;
    auto side = match->seat_of(player_id);
    if (!side) {
      send_error(peer, rid, {ProtocolError::not_seated, "you do not play in this match"}, match_id);
      return;
    }
    // Posted before the route is published: a later command taking the
    // route cannot overtake this one.
    const std::string id = match_id;
    match->command(peer, *side, std::move(msg));
    remember_route(peer.get(), id, match, *side);
  };

  switch (msg.body_case()) {
    case v1::ClientMessage::kSeek: {
      if (auto ok = on_seek(player_id, msg.seek()); !ok) {
        send_error(peer, rid, ok.error());
      } else {
        send(peer, make_ack(rid, {}));
        run_matchmaker();
      }
      break;
    }
    case v1::ClientMessage::kCancelSeek:
      if (matchmaker.remove(player_id)) {
        send(peer, make_ack(rid, {}));
      } else {
        send_error(peer, rid, {ProtocolError::bad_request, "not seeking"});
      }
      break;
    case v1::ClientMessage::kPlayBot: {
      auto id = on_play_bot(player_id, msg.play_bot());
      if (!id) {
        send_error(peer, rid, id.error());
      } else {
        send(peer, make_ack(rid, *id));
      }
      break;
    }
    case v1::ClientMessage::kCreatePrivate: {
      const auto& req = msg.create_private();
      auto variant = variant_named(req.variant());
      auto tc = time_control(req.time_control());
      if (!variant) {
        send_error(peer, rid, variant.error());
        break;
      }
      if (!tc) {
        send_error(peer, rid, tc.error());
        break;
      }
      // One open private game per player: a new one replaces the old.
      std::erase_if(privates, [&](const auto& kv) { return kv.second.creator == player_id; });
      static constexpr char kAlphabet[] = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
      std::string code;
      do {
        code.clear();
        for (int i = 0; i < 6; ++i)
          code += kAlphabet[rng() % (sizeof(kAlphabet) - 1)];
      } while (privates.contains(code));
      privates[code] = PrivateGame{
          player_id,  *variant, tc->first, tc->second, from_proto(req.side()).value_or(Side::first),
          req.rated()};
      send(peer, make_ack(rid, {}, code));
      break;
    }
    case v1::ClientMessage::kJoinPrivate: {
      auto it = privates.find(msg.join_private().code());
      if (it == privates.end()) {
        send_error(peer, rid,
                   {ProtocolError::unknown_code,
                    "no open game with code '" + msg.join_private().code() + "'"});
        break;
      }
      if (it->second.creator == player_id) {
        send_error(peer, rid, {ProtocolError::bad_request, "you cannot join your own game"});
        break;
      }
      PrivateGame game = it->second;
      privates.erase(it);
      std::array<std::string, 2> seats;
      seats[index(game.side)] = game.creator;
      seats[index(opponent(game.side))] = player_id;
      auto match = create_match(game.variant, v1::MATCH_KIND_PRIVATE, game.rated, game.initial,
                                game.increment, seats, {});
      send(peer, make_ack(rid, match->id()));
      break;
    }
    case v1::ClientMessage::kMove:
      seated_command(msg.move().match_id());
      break;
    case v1::ClientMessage::kResign:
      seated_command(msg.resign().match_id());
      break;
    case v1::ClientMessage::kOfferDraw:
      seated_command(msg.offer_draw().match_id());
      break;
    case v1::ClientMessage::kAnswerDraw:
      seated_command(msg.answer_draw().match_id());
      break;
    case v1::ClientMessage::kRequestTakeback:
      seated_command(msg.request_takeback().match_id());
      break;
    case v1::ClientMessage::kAnswerTakeback:
      seated_command(msg.answer_takeback().match_id());
      break;
    case v1::ClientMessage::kWatch: {
      auto match = match_for(msg.watch().match_id());
      if (!match) break;
      std::optional<std::uint64_t> after;
      if (msg.watch().after_seq() > 0) after = msg.watch().after_seq();
      who->second.watching.insert(match->id());
      match->attach(peer, std::nullopt, after, rid);
      break;
    }
    case v1::ClientMessage::kUnwatch: {
      if (auto match = match_for(msg.unwatch().match_id())) {
        who->second.watching.erase(match->id());
        match->detach(peer, rid);
      }
      break;
    }
    case v1::ClientMessage::kListMatches:
      on_list(peer, rid);
      break;
    case v1::ClientMessage::kStartBotMatch: {
      auto id = on_start_bot_match(msg.start_bot_match());
      if (!id) {
        send_error(peer, rid, id.error());
        break;
      }
      send(peer, make_ack(rid, *id));
      // The asker watches the match from its start.
      who->second.watching.insert(*id);
      matches[*id]->attach(peer, std::nullopt, std::nullopt, 0);
      break;
    }
    case v1::ClientMessage::kPing: {
      v1::ServerMessage m;
      m.set_request_id(rid);
      m.mutable_pong();
      send(peer, make_outgoing(std::move(m)));
      break;
    }
    default:
      send_error(peer, rid, {ProtocolError::unknown_message, "unknown message"});
  }
}

void Hub::Impl::on_hello(const std::shared_ptr<Peer>& peer, const v1::ClientMessage& msg) {
  const std::uint64_t rid = msg.request_id();
  const v1::Hello& hello = msg.hello();
  if (peers.contains(peer.get())) {
    send_error(peer, rid, {ProtocolError::already_greeted, "hello was already said"});
    return;
  }
  if (hello.protocol_version() != v1::PROTOCOL_VERSION_CURRENT) {
    send_error(
        peer, rid,
        {ProtocolError::bad_version,
         fmt::format("protocol version {} is not supported; this server speaks {}",
                     hello.protocol_version(), static_cast<int>(v1::PROTOCOL_VERSION_CURRENT))});
    return;
  }
  if (!hello.token().empty()) {
    auto t = tokens.find(hash_token(hello.token()));
    if (t == tokens.end()) {
      send_error(peer, rid, {ProtocolError::bad_token, "unknown token"});
      return;
    }
    welcome(peer, players.at(t->second), rid, true, hello, {});
    return;
  }
  std::string name = hello.name();
  if (name.size() > 32) {
    send_error(peer, rid, {ProtocolError::bad_request, "names are at most 32 bytes"});
    return;
  }
  if (name.empty()) name = "guest";
  // A new identity: stored before the player hears of it.
  const std::string id = "p" + random_hex(8);
  const std::string token = random_hex(16);
  PlayerEntry entry{id, name, hash_token(token), false, {}, {}};
  PlayerRecord rec{id, name, entry.token_hash, false, {}};
  greeting[peer.get()];
  writer.submit({store_op::SavePlayer{std::move(rec)}}, [self = shared_from_this(), peer, rid,
                                                         hello, token,
                                                         entry = std::move(entry)](bool) mutable {
    asio::post(self->strand, [self, peer, rid, hello, token, entry = std::move(entry)]() mutable {
      self->tokens[entry.token_hash] = entry.id;
      auto& player = self->players[entry.id] = std::move(entry);
      auto held = self->greeting.find(peer.get());
      if (held == self->greeting.end()) return;  // gone meanwhile
      auto waiting = std::move(held->second);
      self->greeting.erase(held);
      self->welcome(peer, player, rid, false, hello, token);
      for (auto& m : waiting)
        self->on_receive(peer, m);
    });
  });
}

void Hub::Impl::welcome(const std::shared_ptr<Peer>& peer, PlayerEntry& player,
                        std::uint64_t request_id, bool resumed, const v1::Hello& hello,
                        const std::string& token) {
  const bool was_away = live_peers(player).empty();
  peers[peer.get()] = PeerEntry{peer, player.id, {}};
  player.peers.push_back(peer);

  v1::ServerMessage m;
  m.set_request_id(request_id);
  auto* w = m.mutable_welcome();
  w->set_player_id(player.id);
  w->set_name(player.name);
  w->set_token(token);
  w->set_resumed(resumed);
  w->set_protocol_version(v1::PROTOCOL_VERSION_CURRENT);
  std::vector<std::shared_ptr<MatchActor>> seated;
  for (const std::string& id : player.matches) {
    auto it = matches.find(id);
    if (it == matches.end()) continue;
    w->add_matches(id);
    seated.push_back(it->second);
  }
  send(peer, make_outgoing(std::move(m)));

  // Back in every match: the missed events, the full state, then "I'm back".
  for (auto& match : seated) {
    std::optional<std::uint64_t> after;
    for (const auto& cursor : hello.resume()) {
      if (cursor.match_id() == match->id()) after = cursor.last_seq();
    }
    const auto side = match->seat_of(player.id);
    match->attach(peer, side, after, 0);
    if (was_away && side) match->presence(*side, true);
  }
}

std::vector<std::weak_ptr<Peer>> Hub::Impl::live_peers(PlayerEntry& p) {
  std::erase_if(p.peers, [](const std::weak_ptr<Peer>& w) { return w.expired(); });
  return p.peers;
}

Outcome<void> Hub::Impl::on_seek(const std::string& player, const v1::Seek& seek) {
  auto variant = variant_named(seek.variant());
  if (!variant) return inarow::unexpected(variant.error());
  auto tc = time_control(seek.time_control());
  if (!tc) return inarow::unexpected(tc.error());
  const std::string pool =
      fmt::format("{}/{}+{}", variant->name, tc->first.count(), tc->second.count());
  seek_clocks[pool] = *tc;
  Seeker s{player, pool, ratings.get(player, variant->name).rating, SteadyClock::now()};
  if (!matchmaker.add(std::move(s))) {
    return fail_with(ProtocolError::already_seeking, "already seeking a game");
  }
  arm_tick();
  return {};
}

void Hub::Impl::run_matchmaker() {
  for (auto& [a, b] : matchmaker.pair(SteadyClock::now())) {
    const std::string variant_name = a.pool.substr(0, a.pool.find('/'));
    auto variant = Variant::parse(variant_name);
    if (!variant) continue;
    const auto tc = seek_clocks[a.pool];
    create_match(*variant, v1::MATCH_KIND_SEEK, true, tc.first, tc.second,
                 {a.player_id, b.player_id}, {});
  }
}

void Hub::Impl::arm_tick() {
  // While anyone seeks, pair again as the windows widen.
  if (ticking || matchmaker.size() == 0 || shutting_down) return;
  ticking = true;
  tick.expires_after(config.matchmaker_tick);
  tick.async_wait([self = shared_from_this()](ErrorCode ec) {
    self->ticking = false;
    if (ec) return;
    self->run_matchmaker();
    self->arm_tick();
  });
}

Hub::Impl::PlayerEntry& Hub::Impl::ensure_bot(std::string_view level) {
  const std::string id = bot_id(level);
  auto it = players.find(id);
  if (it != players.end()) return it->second;
  PlayerEntry entry{id, std::string(level) + " bot", {}, true, {}, {}};
  writer.submit({store_op::SavePlayer{PlayerRecord{id, entry.name, {}, true, {}}}});
  return players[id] = std::move(entry);
}

Seat Hub::Impl::seat_for(const PlayerEntry& p, const Variant& v, std::string level) const {
  return Seat{p.id, p.name, p.bot, std::move(level), ratings.get(p.id, v.name)};
}

Outcome<std::string> Hub::Impl::on_play_bot(const std::string& player, const v1::PlayBot& req) {
  auto variant = variant_named(req.variant());
  if (!variant) return inarow::unexpected(variant.error());
  auto level = level_named(req.level());
  if (!level) return inarow::unexpected(level.error());
  auto tc = time_control(req.time_control());
  if (!tc) return inarow::unexpected(tc.error());
  const Side side = from_proto(req.side()).value_or(Side::first);
  std::array<std::string, 2> seats;
  std::array<std::string, 2> levels;
  seats[index(side)] = player;
  seats[index(opponent(side))] = ensure_bot(*level).id;
  levels[index(opponent(side))] = *level;
  auto match =
      create_match(*variant, v1::MATCH_KIND_BOT, true, tc->first, tc->second, seats, levels);
  return match->id();
}

Outcome<std::string> Hub::Impl::on_start_bot_match(const v1::StartBotMatch& req) {
  auto variant = variant_named(req.variant());
  if (!variant) return inarow::unexpected(variant.error());
  auto first = level_named(req.first_level());
  if (!first) return inarow::unexpected(first.error());
  auto second = level_named(req.second_level());
  if (!second) return inarow::unexpected(second.error());
  auto tc = time_control(req.time_control());
  if (!tc) return inarow::unexpected(tc.error());
  auto match = create_match(*variant, v1::MATCH_KIND_BOT_VS_BOT, true, tc->first, tc->second,
                            {ensure_bot(*first).id, ensure_bot(*second).id}, {*first, *second});
  return match->id();
}

std::shared_ptr<MatchActor> Hub::Impl::create_match(Variant variant, v1::MatchKind kind, bool rated,
                                                    Millis initial, Millis increment,
                                                    std::array<std::string, 2> seat_ids,
                                                    std::array<std::string, 2> levels) {
  MatchSetup setup;
  // Ids begin with the time, so the store files new matches at its tables'
  // right edge; the random rest keeps them unguessable.
  setup.id = fmt::format("m{:011x}{}", unix_ms(), random_hex(5));
  setup.kind = kind;
  setup.rated = rated;
  setup.initial = initial;
  setup.increment = increment;
  for (int s = 0; s < 2; ++s) {
    setup.seats[s] = seat_for(players.at(seat_ids[s]), variant, levels[s]);
  }
  setup.variant = std::move(variant);
  auto actor = std::make_shared<MatchActor>(shared_from_this(), std::move(setup));
  matches[actor->id()] = actor;
  metrics.matches_started[kind].fetch_add(1, std::memory_order_relaxed);
  metrics.matches_live[kind].fetch_add(1, std::memory_order_relaxed);

  std::vector<std::pair<std::weak_ptr<Peer>, Side>> seated;
  for (int s = 0; s < 2; ++s) {
    PlayerEntry& p = players.at(seat_ids[s]);
    p.matches.insert(actor->id());
    for (auto& peer : live_peers(p))
      seated.emplace_back(peer, static_cast<Side>(s));
  }
  spdlog::debug("match_started match={} variant={} first={} second={}", actor->id(),
                actor->setup().variant.name, seat_ids[0], seat_ids[1]);
  actor->start(std::move(seated));
  return actor;
}

void Hub::Impl::on_list(const std::shared_ptr<Peer>& peer, std::uint64_t request_id) {
  v1::ServerMessage m;
  m.set_request_id(request_id);
  auto* list = m.mutable_match_list();
  for (auto& [id, match] : matches) {
    if (match->over) continue;
    auto* s = list->add_matches();
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
  send(peer, make_outgoing(std::move(m)));
}

void Hub::Impl::match_over(const std::string& match_id) {
  // The match lingers for the grace period, so a returning player still
  // gets its end; then it is forgotten (its record stays in the store).
  auto timer = std::make_shared<asio::steady_timer>(strand, config.reconnect_grace);
  timer->async_wait([self = shared_from_this(), timer, match_id](ErrorCode) {
    auto it = self->matches.find(match_id);
    if (it == self->matches.end()) return;
    it->second->retired.store(true, std::memory_order_release);
    for (int s = 0; s < 2; ++s) {
      auto p = self->players.find(it->second->setup().seats[s].player_id);
      if (p != self->players.end()) p->second.matches.erase(match_id);
    }
    self->matches.erase(it);
  });
  if (shutting_down) timer->cancel();
}

}  // namespace inarow::server
