// The match actor: one live match on a strand of its own. It owns the
// match's rules (MatchCore), applies its players' commands, makes every
// change durable before anyone hears of it (commit → store → publish),
// runs the flag and reconnect-grace timers and asks the bot workers for the
// bots' moves. Everything it touches besides its own state comes in through
// MatchServices, so a test can drive it with an io_context, an in-memory
// store and fake connections.
#pragma once

#include <array>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "inarow/server/bot_moves.h"
#include "inarow/server/config.h"
#include "inarow/server/connection.h"
#include "inarow/server/match_core.h"
#include "inarow/server/metrics.h"
#include "inarow/server/rating_book.h"
#include "inarow/server/store.h"
#include "inarow/server/store_writer.h"

namespace inarow::server {

// What every match actor uses and none owns. Shared by the actors and the
// lobby; it lives as long as the last actor does.
struct MatchServices {
  MatchServices(boost::asio::io_context& io, boost::asio::thread_pool& bot_workers,
                const ServerConfig& server_config, StoreWriter& store_writer, Metrics& counters)
      : ioc(io),
        config(server_config),
        writer(store_writer),
        metrics(counters),
        bots(bot_workers, counters, server_config.bot_seed) {}

  boost::asio::io_context& ioc;
  const ServerConfig& config;
  StoreWriter& writer;
  Metrics& metrics;
  RatingBook ratings;
  BotMoves bots;
  // Told (on the match's strand) once a match's end is published.
  std::function<void(const std::string& match_id)> match_ended;
  // Told (on the match's strand) when a match let go of itself: another
  // node of the cluster owns it now (MatchActor::abandon, or a write fenced).
  std::function<void(const std::string& match_id)> match_moved;
};

class MatchActor : public std::enable_shared_from_this<MatchActor> {
 public:
  MatchActor(std::shared_ptr<MatchServices> services, MatchSetup setup);

  const MatchSetup& setup() const { return core_.setup(); }
  const std::string& id() const { return core_.setup().id; }
  // The seat the player started in. Callers name players by it (command,
  // attach, presence): it never changes, while the side a player holds may
  // (an opening's swap), and the actor looks that up on its strand.
  std::optional<Side> seat_of(const std::string& player_id) const;

  // Set when the lobby forgets the match: routes to it are no longer taken.
  std::atomic<bool> retired{false};
  // Set once the match let go of itself (abandon): another node owns it.
  std::atomic<bool> moved{false};
  // Readable from any thread, for the match list.
  std::atomic<int> ply{0};
  std::atomic<unsigned> spectators{0};
  std::atomic<bool> over{false};
  // The players changed sides in the opening: setup() has them the other
  // way round (MatchCore::seated()).
  std::atomic<bool> swapped{false};

  // A new match: store it, then tell the seated connections.
  void start(std::vector<std::pair<std::weak_ptr<Connection>, Side>> seated);
  // A match read back from the store: replay its events (before serving).
  bool restore(const MatchRecord& record);
  // After restore: clocks run again, absent players get their grace, bots think.
  // The player to move is charged `used`: the part of the turn they had
  // used before the server stopped (see recovery.h).
  void resume(Millis used = Millis{0});

  // A seated player's command (a MatchCommand); answered with an ack once
  // what it changed is durable, or with an error.
  void command(ConnectionPtr from, Side seat, inarow::v1::ClientMessage message);
  // Subscribe a connection (a seated player back, or a spectator); replays
  // the events after `after_seq` when given, then sends the full state.
  // `back`: the seat's player came back with it (presence), unless it
  // followed the match already, when nothing is sent again.
  void attach(std::weak_ptr<Connection> connection, std::optional<Side> seat,
              std::optional<std::uint64_t> after_seq, std::uint64_t request_id, bool back = false);
  void detach(const ConnectionPtr& connection, std::uint64_t request_id);
  // A seated player's last connection went or a first one came back.
  void presence(Side seat, bool connected);
  void forget(Connection* connection);
  // News about the match that is not part of it (the rematch events): to
  // every subscriber, unnumbered (seq 0) and not kept in the log.
  void notify(inarow::v1::MatchEvent event);
  // Stop timers and searches; later commands are refused.
  void shutdown();
  // This node owns the match no more (its lease lapsed or was taken, or a
  // write was fenced): it stops, says nothing more, and closes the
  // connections that follow it here, so that they come back and resume it
  // where it is now. Later commands are refused.
  void abandon();

 private:
  struct Subscriber {
    std::weak_ptr<Connection> connection;
    Connection* key;
    std::optional<Side> side;  // a player's seat at the start; none for a spectator
  };
  struct PendingAttach {
    std::weak_ptr<Connection> connection;
    std::optional<Side> side;
    std::optional<std::uint64_t> after_seq;
    std::uint64_t request_id;
    bool back = false;
  };
  // Who asked for a change, to be acknowledged once it is durable.
  struct Reply {
    ConnectionPtr connection;
    std::uint64_t request_id = 0;
  };

  // False if the connection follows the match already.
  bool subscribe(const std::weak_ptr<Connection>& connection, std::optional<Side> side,
                 bool announce = true);
  void unsubscribe(Connection* key);
  // The number watching changed: every subscriber but `fresh` (who just got
  // it in their state) hears the new number, unnumbered.
  void announce_spectators(const std::vector<Connection*>& fresh = {});
  void flush_attaches();
  // presence() on the strand.
  void set_presence(Side seat, bool connected);
  void on_command(const ConnectionPtr& from, Side side, const inarow::v1::ClientMessage& message);
  void commit(MatchCore::Events events, std::vector<StoreOp> ops,
              std::optional<Reply> reply = std::nullopt);
  void pause(const std::optional<Reply>& reply);
  void let_go(const std::optional<Reply>& reply);
  // An event each seated player gets in its own copy (`started`, with the
  // receiver's your_side): outs[index] becomes copies[seat] for a seat.
  struct SeatCopies {
    std::size_t index = 0;
    std::array<OutgoingPtr, 2> copies;
  };
  void publish(const std::vector<OutgoingPtr>& outs, const std::vector<SeatCopies>& seat_copies,
               std::uint64_t last_seq, const std::optional<Reply>& reply);
  void after_change();
  void start_grace(Side side);
  void check_watchers();
  void maybe_start_search();
  void cancel_search();
  bool bot_answer_stands(std::uint64_t generation);
  void on_bot_move(const bots::Choice& choice, std::uint64_t generation);
  void on_bot_opening(const bots::OpeningDecision& decision, std::uint64_t generation);
  // A person offered a bot a draw: the bot's search judges the position
  // (its move waits), then the bot accepts a proven draw or declines.
  void judge_draw();
  void on_draw_judged(bool draw, int ply, std::uint64_t generation);
  void send(const ConnectionPtr& to, OutgoingPtr message);
  void send_error(const ConnectionPtr& to, std::uint64_t request_id, const Failure& failure);

  std::shared_ptr<MatchServices> services_;
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  MatchCore core_;
  std::vector<Subscriber> subs_;
  std::vector<PendingAttach> pending_attaches_;
  std::uint64_t published_seq_ = 0;
  unsigned announced_spectators_ = 0;
  boost::asio::steady_timer flag_timer_;
  std::array<boost::asio::steady_timer, 2> grace_timers_;
  boost::asio::steady_timer unwatched_timer_;
  bool unwatched_armed_ = false;
  std::uint64_t unwatched_generation_ = 0;
  std::shared_ptr<std::atomic<bool>> search_stop_;
  std::uint64_t search_generation_ = 0;
  bool searching_ = false;
  bool judging_ = false;
  std::uint64_t judge_generation_ = 0;
  bool stopped_ = false;
  bool paused_ = false;  // a commit failed
  bool moved_ = false;   // another node owns it now (let_go)
};

}  // namespace inarow::server
