// The lobby: where matches begin. Seeks and the matchmaker (paired on every
// seek and on a tick while anyone waits), the open seeks' list and its
// followers (sent a new list when seeks or the counts change), a seek
// accepted from that list, private games by code, games
// against a bot and bot-vs-bot matches, the list of live matches, and the
// creation of each match's actor. Used on the router's strand only.
#pragma once

#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <unordered_map>

#include "inarow/server/config.h"
#include "inarow/server/identity.h"
#include "inarow/server/match_actor.h"
#include "inarow/server/match_registry.h"
#include "inarow/server/matchmaker.h"
#include "inarow/server/request_checks.h"
#include "inarow/server/router.h"

namespace inarow::server {

class Lobby {
 public:
  using Strand = boost::asio::strand<boost::asio::io_context::executor_type>;

  Lobby(Strand strand, std::shared_ptr<MatchServices> services, Identity& identity,
        MatchRegistry& matches);
  // What owns this lobby: its timers keep it alive until they fire.
  void owned_by(std::weak_ptr<const void> owner) { owner_ = std::move(owner); }

  // Seek a game (rated unless the seek says otherwise) against someone of
  // about the same rating: `then` says whether the seek is open (at once
  // on one node; on a cluster's, once the shared pool took it or not).
  void seek(const std::string& player, const inarow::v1::Seek& seek,
            std::function<void(Expected<void>)> then);
  bool cancel_seek(const std::string& player);
  // Play the player of an open seek at once: `then` gets the new match's
  // id (at once on one node; on a cluster's, once the shared pool said).
  void accept_seek(const std::string& player, const inarow::v1::AcceptSeek& request,
                   std::function<void(Expected<std::string>)> then);
  // The open seeks (at most a page) and the counts, to `then` (at once on
  // one node; on a cluster's, the shared pool's once read). The counts are
  // this node's.
  void seek_list(std::function<void(Expected<inarow::v1::SeekList>)> then);
  // Whether `connection` gets a new seek list whenever it changes (on a
  // cluster's node, the pool is read again every second while anyone
  // follows, since other nodes change it too).
  void follow(const ConnectionPtr& connection, bool follow);
  void unfollow(Connection* connection) { followers_.erase(connection); }
  // The seeks or the counts changed: the followers get a new list soon
  // (changes close together make one list).
  void feed_changed();
  // A game against a bot: the new match's id.
  Expected<std::string> play_bot(const std::string& player, const inarow::v1::PlayBot& request);
  // Bot-vs-bot: `player` asked for it (and is counted against its limit).
  Expected<std::string> start_bot_match(const std::string& player,
                                        const inarow::v1::StartBotMatch& request);
  // A private game waiting for whoever has its code: the code.
  Expected<std::string> create_private(const std::string& player,
                                       const inarow::v1::CreatePrivate& request);
  // Join one: the new match's id, to `then` (at once on one node; on a
  // cluster's, once every node's count of the two players' matches said
  // neither is at the cap).
  void join_private(const std::string& player, const inarow::v1::JoinPrivate& request,
                    std::function<void(Expected<std::string>)> then);
  // A rematch of an ended match, or (decline) an offer of one turned down.
  // Against a bot, or accepting the other player's offer: the new match's
  // id. Offering one to a person, or declining: an empty string.
  // To `then`: at once on one node, or against a bot; between two people
  // on a cluster's node, once every node's count said neither is at the cap.
  void rematch(const std::string& player, const inarow::v1::Rematch& request,
               std::function<void(Expected<std::string>)> then);
  // The rematch made of an ended match; empty if none.
  std::string rematch_of(const std::string& match_id) const {
    auto it = rematches_.find(match_id);
    return it == rematches_.end() ? std::string{} : it->second;
  }
  // The player's last connection went: their rematch offers lapse.
  void player_left(const std::string& player);
  // One page of the live public matches (private games are not listed).
  inarow::v1::MatchList list(const inarow::v1::ListMatches& request) const;
  // Whether `player` may watch `match`: a private game only with its code,
  // or by its own players.
  bool may_watch(const std::string& player, const MatchActor& match, const std::string& code) const;

  // Pair whoever can be paired now.
  void run_matchmaker();

  // ---- A node of a cluster ----
  // From now on seeks go to the shared pool, and other nodes hear of the
  // matches made here and the private codes held here (before serving).
  void send_elsewhere(Elsewhere* elsewhere) { elsewhere_ = elsewhere; }
  bool holds_code(const std::string& code) const { return privates_.contains(code); }
  // Two seeks paired in the shared pool, at least one of them this node's:
  // their match, `match_id` (held for both players in the directory), is
  // made here once both players are read.
  void paired(SharedSeek first, SharedSeek second, std::string match_id);
  // What two seeks must share to pair (SharedSeek::terms): the game as a
  // serialized v1::Seek, every field set.
  static std::string seek_terms(const Variant& variant, ClockSetting clock, bool rated);
  // A match's end was published: it lingers for the reconnect grace, so a
  // returning player still gets its end, then it is forgotten.
  void match_ended(const std::string& match_id);
  // A match let go of itself: another node of the cluster owns it now.
  // Forgotten at once (not after the grace an ended match gets).
  void match_moved(const std::string& match_id);
  void stop_seeking(const std::string& player) { (void)cancel_seek(player); }
  void shutdown();

 private:
  // What the lobby and the identity hold for a match, dropped.
  void forget(const std::string& match_id);
  struct PrivateGame {
    std::string creator;
    Variant variant;
    ClockSetting clock;
    Side side;
    bool rated;
    bool joining = false;  // a join waits for the cluster's count: nobody else's
  };
  using PrivateGames = std::unordered_map<std::string, PrivateGame>;  // by code

  // A new match (`match_id`, or a new id if empty) started.
  std::shared_ptr<MatchActor> create_match(Variant variant, inarow::v1::MatchKind kind, bool rated,
                                           ClockSetting clock, std::array<std::string, 2> players,
                                           std::array<std::string, 2> levels,
                                           std::string match_id = {});
  // The list from this node's matchmaker, and its entry for one seek.
  inarow::v1::SeekList local_seek_list() const;
  inarow::v1::OpenSeek open_seek(const std::string& player, const Variant& variant,
                                 ClockSetting clock, bool rated, const std::string& seek_id) const;
  // The counts and a page of the shared pool, as one node's list has them.
  inarow::v1::SeekList shared_seek_list(const SeekPage& page) const;
  // A seek of the shared pool accepted (on the strand).
  void accepted_shared(const std::string& player, const std::string& seek_id,
                       const std::string& match_id, inarow::expected<Accepted, std::string> result,
                       std::function<void(Expected<std::string>)> then);
  // The private game at `it` joined by `player`: out of the open ones and
  // started as `match_id`; its id.
  std::string start_private(PrivateGames::iterator it, const std::string& player,
                            std::string match_id);
  // A cluster's hold for a rematch answered (on the strand): made, unless
  // the offer or a player went meanwhile, or one is at the cap.
  void rematch_held(const std::string& player, const std::string& old_id, Side other,
                    const std::string& match_id,
                    const inarow::expected<std::optional<std::size_t>, std::string>& held,
                    const std::function<void(Expected<std::string>)>& then);
  // The rematch of `old` started as `match_id`, its players told: its id.
  std::string start_rematch(MatchActor& old, std::string match_id);
  // The followers get `list`; on a cluster's node only if it changed.
  void publish(inarow::v1::SeekList list);
  // On a cluster's node, while anyone follows: the pool read again.
  void arm_poll();
  Seat seat_for(const Player& p, const Variant& v, std::string level) const;
  void arm_tick();
  // Live matches of these kinds that `player` is seated in.
  int live_matches(const std::string& player, std::initializer_list<inarow::v1::MatchKind> kinds);
  // The per-player cap on live matches of this kind (against bots, or
  // against people: seeks and private games count together); whether
  // `player` is below it; and the typed error, naming `who`, when not.
  int limit_of(inarow::v1::MatchKind kind) const;
  bool below_limit(const std::string& player, inarow::v1::MatchKind kind);
  Expected<void> check_limit(const std::string& player, inarow::v1::MatchKind kind,
                             const char* who);
  Failure limit_failure(inarow::v1::MatchKind kind, const char* who) const;
  // Rematch offers that involve `player` lapse (they left or began another match).
  void lapse_offers(const std::string& player);
  // The player's open private game goes (its code too, across the cluster).
  std::size_t drop_privates_of(const std::string& player);

  Strand strand_;
  std::weak_ptr<const void> owner_;
  std::shared_ptr<MatchServices> services_;
  Identity& identity_;
  MatchRegistry& matches_;
  Matchmaker matchmaker_;
  PrivateGames privates_;
  std::unordered_map<std::string, std::string> private_codes_;  // started private match -> code
  std::map<std::string, std::string> bot_vs_bot_;  // live bot-vs-bot match -> who started it
  std::map<std::string, Side> rematch_offers_;     // ended match -> the side offering a rematch
  std::map<std::string, std::string> rematches_;   // ended match -> its rematch
  std::set<std::string> rematch_holds_;            // ended matches whose rematch waits on a hold
  boost::asio::steady_timer tick_;
  bool ticking_ = false;
  std::unordered_map<Connection*, std::weak_ptr<Connection>> followers_;
  boost::asio::steady_timer feed_timer_;
  bool feed_armed_ = false;
  boost::asio::steady_timer poll_timer_;
  bool polling_ = false;
  std::string last_feed_;         // the last list the followers got, serialized (a cluster's node)
  std::uint64_t seek_count_ = 0;  // seeks made: the next seek's id
  Elsewhere* elsewhere_ = nullptr;
  bool shutting_down_ = false;
  std::mt19937_64 rng_;  // private codes
};

}  // namespace inarow::server
