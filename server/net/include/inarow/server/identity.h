// Identity: who is behind each connection. Players (people and bots), their
// tokens (kept as hashes), the connections each player has open, and the
// hello that ties a connection to a player: a new player is stored before
// it hears of itself; a token resumes a known one, back in its matches.
//
// Players are held in memory only while something needs them: a connection,
// a match they are seated in (live, or lingering after its end), a password
// being hashed, a pin (a sign-in under way, an open private game). Bots are
// always held. Anyone else is read from the store when they come back
// (look_up) and let go of when the last thing that held them goes (let_go),
// with their entries in the rating book. Used on the router's strand only.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "inarow/server/connection.h"
#include "inarow/server/match_registry.h"
#include "inarow/server/metrics.h"
#include "inarow/server/rating_book.h"
#include "inarow/server/store.h"
#include "inarow/server/store_writer.h"
#include "inarow/v1/inarow.pb.h"

namespace inarow::server {

struct Player {
  std::string id;
  std::string name;
  std::string token_hash;  // the first device's; empty once revoked
  bool bot = false;
  // Every token hash that names the player (the first device's and the
  // others'): what letting go of them takes out of the token index.
  std::vector<std::string> tokens;
  // An account's (empty for a guest): the password's hash and the name's key.
  std::string password_hash;
  std::string name_key;
  std::int64_t account_since_ms = 0;
  bool password_busy = false;  // a password change is being hashed or stored
  int pins = 0;                // work under way that needs the player held (Identity::pin)
  // Times their last connection went (Lobby::player_left): a timer set at
  // one departure knows whether they came back and left again since.
  std::uint64_t departures = 0;
  std::vector<std::weak_ptr<Connection>> connections;
  std::set<std::string> matches;  // seated in, live or lingering after the end
};

class Identity {
 public:
  using Strand = boost::asio::strand<boost::asio::io_context::executor_type>;
  // Hands a held message back to the router once its connection is greeted.
  using Replay = std::function<void(const ConnectionPtr&, inarow::v1::ClientMessage&)>;
  // A hello with a password (accounts.h signs it in).
  using SignIn = std::function<void(const ConnectionPtr&, const inarow::v1::ClientMessage&,
                                    std::shared_ptr<const void> owner, Replay replay)>;

  Identity(Strand strand, StoreWriter& writer, Store& store, Metrics& metrics,
           MatchRegistry& matches, RatingBook& ratings);
  // Where the store is read (without: on the strand, as tests have it).
  void read_on(boost::asio::thread_pool& readers) { readers_ = &readers; }

  // A player read from the store, held from now on (with their ratings in
  // the book) until let go of; the one already held if any.
  Player& admit(const PlayerRecord& record);
  // Players held in memory now.
  std::size_t players() const { return players_.size(); }

  // How a player is looked up in the store.
  enum class Key { id, token_hash, account };
  // `then` gets the player (null: no such one) on the strand: the one held,
  // or else the one read from the store. The player is let go of after
  // `then` unless something holds them by then. `owner` keeps this
  // Identity alive meanwhile.
  void look_up(Key key, std::string value, std::shared_ptr<const void> owner,
               std::function<void(Player*)> then);
  // Runs read(store) where the store is read, then then(result) on the strand.
  template <class Read, class Then>
  void read_store(std::shared_ptr<const void> owner, Read read, Then then);
  // Hold a player while work is under way (a sign-in's hash); unpin lets go
  // of them if nothing else holds them.
  void pin(Player& player) { ++player.pins; }
  void unpin(const std::string& player_id);
  // Let go of the player if nothing holds them any more.
  void let_go(const std::string& player_id);
  // People with at least one greeted connection here (a client relayed
  // from another node is online there).
  std::size_t online() const { return online_; }
  // Told when online() changes: who came (online) or went.
  std::function<void(const std::string& player_id, bool online)> online_changed;
  // The people online now (for a node that must tell its cluster again).
  std::vector<std::string> online_players();

  // Hello from a connection: checked, then welcomed (at once for a token;
  // after the new player is stored otherwise, when `replay` gets what the
  // connection sent meanwhile). `owner` keeps this Identity alive until then.
  void hello(const ConnectionPtr& connection, const inarow::v1::ClientMessage& message,
             std::shared_ptr<const void> owner, Replay replay);
  // A connection being greeted (its new identity stored, its password
  // checked): what it sends meanwhile is held, in order, from
  // begin_greeting until end_greeting. hold: true if this message was held.
  void begin_greeting(Connection* connection) { greeting_[connection]; }
  bool greeting(Connection* connection) const { return greeting_.contains(connection); }
  bool hold(Connection* connection, inarow::v1::ClientMessage& message);
  // Runs `then` once the connection's greeting is over (at once if it is
  // not being greeted), in order with the messages held: a relayed
  // connection's attach to a match (Router::attach_seated) waits for its
  // player as its commands do.
  void when_greeted(Connection* connection, std::function<void()> then);
  // Ends a greeting: `answer` (the welcome or the refusal) is sent first,
  // then each held message goes to `replay`, answered as if it came now.
  // False, doing nothing, when the connection went meanwhile.
  bool end_greeting(const ConnectionPtr& connection, const Replay& replay,
                    const std::function<void()>& answer);
  // A client of another node, relayed (Connection::relayed), speaks for
  // `player_id`: its node greeted it, so it is bound here without a
  // welcome. What it sends meanwhile waits as a greeting's does, and is
  // replayed once the player is read (no such player, or a bot: the
  // connection is closed).
  void adopt(const ConnectionPtr& relayed, const std::string& player_id,
             std::shared_ptr<const void> owner, Replay replay);
  // A returning player's match that is not here (a cluster's node resumes
  // it where it is): told for each hello.resume cursor naming one.
  std::function<void(const ConnectionPtr&, const std::string& player_id,
                     const std::string& match_id, std::uint64_t after_seq)>
      resume_elsewhere;
  // Tells a connection it speaks for `player` (the Welcome), and counts it.
  // `token` is the new one the Welcome carries (empty when resumed: the
  // device has its own); `token_hash` names the device either way.
  void welcome(const ConnectionPtr& connection, Player& player, std::uint64_t request_id,
               bool resumed, const inarow::v1::Hello& hello, const std::string& token,
               const std::string& token_hash, bool signed_in = false);
  void on_sign_in(SignIn sign_in) { sign_in_ = std::move(sign_in); }

  // Accounts by name key (player_name.h): the player who holds the key, or
  // who is claiming it while its password is hashed and stored.
  const std::string* account_holder(const std::string& key) const;
  // Take the key for `player_id`: false if another player holds it.
  bool claim(const std::string& key, const std::string& player_id);
  void unclaim(const std::string& key, const std::string& player_id);
  // The token (hash) a greeted connection's device holds; empty before hello.
  std::string token_hash_of(Connection* connection) const;
  // Every token of the player but `keep_hash` stops naming them (its
  // password changed on that device); returns their connections greeted
  // with another token, to be signed out.
  std::vector<ConnectionPtr> revoke_other_devices(const std::string& player_id,
                                                  const std::string& keep_hash);
  // Another token (hash) for a player: a device signed in.
  void add_token(const std::string& token_hash, Player& player);

  // The player a greeted connection speaks for; null before hello.
  const std::string* player_of(Connection* connection) const;
  // The matches a connection watches (null before hello).
  std::set<std::string>* watching(Connection* connection);
  Player* find(const std::string& player_id);
  Player& at(const std::string& player_id) { return players_.at(player_id); }
  // The player for a bot level, created (and stored) on first use.
  Player& bot(std::string_view level);
  std::vector<std::weak_ptr<Connection>> live_connections(Player& player);
  // Whether the player has a connection of this node's own (not relayed).
  static bool online_here(const Player& player);

  // A connection went: forget it, and say which player (if any) it was,
  // what it watched, and whether it was that player's last.
  struct Departure {
    std::string player_id;
    std::set<std::string> watching;
    bool last = false;
  };
  std::optional<Departure> disconnected(const ConnectionPtr& connection);
  // Every greeted connection (for the goodbye at shutdown).
  std::vector<ConnectionPtr> connections() const;

 private:
  struct ConnectionEntry {
    std::weak_ptr<Connection> connection;
    std::string player_id;
    std::set<std::string> watching;  // matches this connection spectates
    std::string token_hash;          // the device it greeted as
  };

  void send_error(const ConnectionPtr& to, std::uint64_t request_id, const Failure& failure);
  // The player held under this key, if any.
  Player* held(Key key, const std::string& value);
  // A new guest's name is free (no account holds its key): stored, welcomed.
  void create_guest(const ConnectionPtr& connection, std::uint64_t request_id,
                    const inarow::v1::Hello& hello, std::string name,
                    std::shared_ptr<const void> owner, Replay replay);

  Strand strand_;
  StoreWriter& writer_;
  Store& store_;
  Metrics& metrics_;
  MatchRegistry& matches_;
  RatingBook& ratings_;
  boost::asio::thread_pool* readers_ = nullptr;
  std::unordered_map<Connection*, ConnectionEntry> connections_;
  // Connections whose new identity is being stored: what they send meanwhile waits.
  using Held = std::variant<inarow::v1::ClientMessage, std::function<void()>>;
  std::unordered_map<Connection*, std::vector<Held>> greeting_;
  std::unordered_map<std::string, Player> players_;
  // Of the players held: token hash -> player id, account name key -> player id.
  std::unordered_map<std::string, std::string> tokens_;
  std::unordered_map<std::string, std::string> accounts_;
  SignIn sign_in_;
  std::size_t online_ = 0;
};

template <class Read, class Then>
void Identity::read_store(std::shared_ptr<const void> owner, Read read, Then then) {
  auto job = [this, owner = std::move(owner), read = std::move(read),
              then = std::move(then)]() mutable {
    auto result = read(store_);
    boost::asio::post(strand_, [owner = std::move(owner), then = std::move(then),
                                result = std::move(result)]() mutable { then(std::move(result)); });
  };
  if (readers_) {
    boost::asio::post(*readers_, std::move(job));
  } else {
    job();
  }
}

}  // namespace inarow::server
