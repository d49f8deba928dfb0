// What the nodes of a multi-node deployment agree on, held in Redis: the
// live nodes, who owns each live match (a lease with a fencing
// generation) and which live matches nobody owns (to take over), where
// each player is connected, the private codes waiting for their second
// player, and the shared seek pool. Every operation that reads and then
// writes is one Lua script, so it is atomic across nodes; every other is
// one command. Times are milliseconds, TTLs set with PX/PEXPIRE; every key
// starts with the Redis's options().prefix.
//
// For one Redis (with or without replicas), not Redis Cluster: the seek
// pool's scripts touch keys they find as they go (the seeks in a rating
// range), which a cluster's slots forbid.
//
// Keys (P = the prefix): P"nodes" (a set of node ids), P"node:"ID (its
// address, with the node's TTL), P"lease:"MATCH (a hash: node, gen, with
// the lease's TTL), P"generation:"MATCH (the match's fencing counter,
// persistent), P"live" (a sorted set of the live matches' ids, each scored
// by when its lease runs out, in ms by Redis's clock; 0 once released),
// P"location:"PLAYER (a node id), P"private:"CODE (bytes),
// P"seek:"ID (a hash per seek), P"pool:"TERMS (a sorted set of seek ids
// by rating), P"pool" (every seek id, by when it was added), P"seeker:"
// PLAYER (their seek's id), P"seek-seq" (the counter that orders seeks),
// P"node-seeks:"NODE (the ids of the seeks a node added), P"playing:"PLAYER
// (a sorted set of the player's live matches against people, each scored
// by when its hold runs out while its lease is not claimed yet, 0 after).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "inarow/common/expected.h"
#include "inarow/server/matchmaker.h"
#include "inarow/server/redis.h"

namespace inarow::server {

struct NodeInfo {
  std::string node_id;
  std::string address;  // where other nodes reach it, as it registered

  friend bool operator==(const NodeInfo&, const NodeInfo&) = default;
};

// A match's lease: who owns it and the generation it was taken at. A node
// writes for the match only under its generation (fencing): one that lost
// the lease, and a later owner took it, holds an older generation.
struct Lease {
  std::string node_id;
  std::int64_t generation = 0;
  bool ours = false;  // the lease is the asking node's

  friend bool operator==(const Lease&, const Lease&) = default;
};

// A seek in the shared pool. `terms` is opaque here: the caller builds it
// from what must match for two seeks to pair (variant, clock, rated), so
// only seeks with equal terms pair.
struct SharedSeek {
  std::string seek_id;
  std::string player_id;
  std::string node_id;  // where the player is connected
  std::string terms;
  double rating = 1500.0;
  std::int64_t since_ms = 0;  // when the player began seeking (the caller's clock)
  // What the open seeks' list shows of it, opaque here (the caller's
  // serialized list entry, made by the seeker's node).
  std::string listing = {};

  friend bool operator==(const SharedSeek&, const SharedSeek&) = default;
};

// A page of the open seeks, oldest first, and how many there are in all.
struct SeekPage {
  std::size_t total = 0;
  std::vector<SharedSeek> seeks;
};

// The match a pair or an accepted seek is to make, and the per-player cap
// on live matches against people it must respect: neither player may be
// in `cap` such matches already. The match counts for both at once, held
// for `ttl` until its lease is claimed (count_match()); a hold whose match
// was never made runs out by itself.
struct MatchSlot {
  std::string match_id;
  int cap = 0;
  std::chrono::milliseconds ttl{};
};

// What became of a seek accepted from the list (accept_seek()).
struct Accepted {
  enum class Outcome { taken, unknown, own, asker_busy, seeker_busy };
  Outcome outcome = Outcome::unknown;
  SharedSeek seek;  // when taken

  friend bool operator==(const Accepted&, const Accepted&) = default;
};

// A seek's window at now_ms: the matchmaker's (MatchmakerPolicy::window)
// after the seconds it waited. The very arithmetic the pairing script does
// (in doubles, as Lua's numbers are).
double pairing_window(const SharedSeek& seek, const MatchmakerPolicy& policy, std::int64_t now_ms);

class Directory {
 public:
  // Over `redis`, which it does not own: it must outlive the Directory.
  // Any thread may call (the Redis serialises); each call is one round trip.
  explicit Directory(Redis& redis);

  const std::string& prefix() const { return prefix_; }

  // ---- Nodes ----
  // Registers (or registers again) `node_id` at `address` for `ttl`.
  inarow::expected<void, std::string> register_node(const std::string& node_id,
                                                    const std::string& address,
                                                    std::chrono::milliseconds ttl);
  // Extends the node's registration to `ttl` from now; false if it had
  // expired (or was never made): the node must register again.
  inarow::expected<bool, std::string> heartbeat(const std::string& node_id,
                                                std::chrono::milliseconds ttl);
  // The live nodes, by id. Nodes found expired are dropped from the set,
  // and with them the seeks they added (their players were connected
  // there, and are gone).
  inarow::expected<std::vector<NodeInfo>, std::string> nodes();
  // False if it was not registered (or had expired). Its seeks go too.
  inarow::expected<bool, std::string> deregister(const std::string& node_id);

  // ---- Match leases ----
  // A match is live from its first claim to forget_match(): while it is,
  // it is in the live set with when its lease runs out (claim and renew
  // set that), so that a node finds the matches whose owner died
  // (orphans()) and takes them over (claim, then the store).
  //
  // No live lease: takes it for `ttl`, bumping the match's generation (a
  // counter that survives the lease's expiry), ours = true. The lease is
  // already this node's: extends it to `ttl`, the same generation, ours =
  // true. Another node's: that node and generation, ours = false. Two
  // nodes never both get ours = true while a lease lives.
  inarow::expected<Lease, std::string> claim(const std::string& match_id,
                                             const std::string& node_id,
                                             std::chrono::milliseconds ttl);
  // Extends the lease to `ttl` if it is still exactly (node_id,
  // generation); false otherwise (expired, or taken by another).
  inarow::expected<bool, std::string> renew(const std::string& match_id, const std::string& node_id,
                                            std::int64_t generation, std::chrono::milliseconds ttl);
  // renew() for many leases of `node_id`'s in one round trip (a node
  // renews all its matches so): for each (match, generation), in order,
  // whether its lease was still exactly that and is extended to `ttl`.
  inarow::expected<std::vector<bool>, std::string> renew_many(
      const std::string& node_id,
      const std::vector<std::pair<std::string, std::int64_t>>& match_and_generation,
      std::chrono::milliseconds ttl);
  // Drops the lease if it is exactly (node_id, generation); the generation
  // counter stays, so the next claim takes a newer one. The match stays
  // live and is an orphan at once: a node that stops hands its matches
  // over so, without making anyone wait for the TTL.
  inarow::expected<bool, std::string> release(const std::string& match_id,
                                              const std::string& node_id, std::int64_t generation);
  // The live lease, if any; ours says whether it is `me`'s (false if `me`
  // is empty).
  inarow::expected<std::optional<Lease>, std::string> owner(const std::string& match_id,
                                                            std::string_view me = {});
  // The match ended: its lease and its generation counter are dropped,
  // and it is live no more.
  inarow::expected<void, std::string> forget_match(const std::string& match_id);
  // The match ended on `node_id`, which keeps it for `linger` (a player
  // away gets its end, either one may ask for a rematch): forget_match(),
  // and ended_at() names that node until then.
  inarow::expected<void, std::string> end_match(const std::string& match_id,
                                                const std::string& node_id,
                                                std::chrono::milliseconds linger);
  // The node an ended match lingers on, while it does.
  inarow::expected<std::optional<std::string>, std::string> ended_at(const std::string& match_id);
  // Whether the match is live (claimed once and not forgotten since),
  // owned now or not.
  inarow::expected<bool, std::string> live(const std::string& match_id);
  // Up to `limit` live matches that nobody owns: released, or whose lease
  // ran out (by Redis's clock) and was not claimed since. The longest
  // orphaned first (released ones before all, by id).
  inarow::expected<std::vector<std::string>, std::string> orphans(std::size_t limit);

  // ---- Player locations ----
  inarow::expected<void, std::string> set_location(const std::string& player_id,
                                                   const std::string& node_id,
                                                   std::chrono::milliseconds ttl);
  // set_location() for many players, a few thousand a round trip (a node
  // telling its people's locations again).
  inarow::expected<void, std::string> set_locations(const std::vector<std::string>& player_ids,
                                                    const std::string& node_id,
                                                    std::chrono::milliseconds ttl);
  inarow::expected<std::optional<std::string>, std::string> location(const std::string& player_id);
  // Clears the location only if it still names `node_id` (a player who
  // moved to another node is not cleared by the old one); whether it did.
  inarow::expected<bool, std::string> clear_location(const std::string& player_id,
                                                     const std::string& node_id);
  // clear_location() for many players in one round trip (a node that
  // stops clears its people's); how many it cleared.
  inarow::expected<std::size_t, std::string> clear_locations(
      const std::vector<std::string>& player_ids, const std::string& node_id);

  // ---- Private codes ----
  // False if the code is taken (SET NX PX).
  inarow::expected<bool, std::string> put_private(const std::string& code, const std::string& bytes,
                                                  std::chrono::milliseconds ttl);
  // The bytes, removed at once (GETDEL): of two nodes taking one code at
  // the same moment, exactly one gets them.
  inarow::expected<std::optional<std::string>, std::string> take_private(const std::string& code);
  inarow::expected<std::optional<std::string>, std::string> peek_private(const std::string& code);
  // Whether there was one to drop.
  inarow::expected<bool, std::string> drop_private(const std::string& code);

  // ---- The shared seek pool ----
  // False if the player already seeks. A seek id already in the pool (for
  // another player) is an error: ids are the caller's to make unique.
  inarow::expected<bool, std::string> add_seek(const SharedSeek& seek);
  // add_seek() for a player below `cap` live matches against people
  // (playing()); at it, nothing is added.
  enum class SeekAdded { added, already_seeking, at_cap };
  inarow::expected<SeekAdded, std::string> add_seek(const SharedSeek& seek, int cap);
  // The player's seek removed; false if they had none.
  inarow::expected<bool, std::string> remove_seek(const std::string& player_id);
  // The seek with this id, taken out of the pool (accepted from a list).
  inarow::expected<std::optional<SharedSeek>, std::string> take_seek(const std::string& seek_id);
  // The open seeks (of these terms, or all), oldest first: by since_ms,
  // then in the order they were added.
  inarow::expected<std::vector<SharedSeek>, std::string> seeks(
      const std::optional<std::string>& terms = std::nullopt);
  // The first `limit` open seeks in the order they came into the pool (the
  // order one node's lobby lists them), and the number open. Like every
  // pool operation below, it first drops the seeks of nodes whose entry
  // ran out.
  inarow::expected<SeekPage, std::string> seek_page(std::size_t limit);
  // The seeks `node_id` added, dropped (a node starting afresh under the
  // id of one that died: their players were connected there); how many.
  inarow::expected<std::size_t, std::string> drop_seeks_of(const std::string& node_id);
  // Seek `seek_id` accepted by `asker`: taken out of the pool, with the
  // asker's own seek if any, and `slot`'s match held for both players;
  // or, in this order, unknown (not in the pool), own (the asker's), the
  // asker busy (`asker_busy`, or at the cap) or the seeker at the cap,
  // and nothing changes.
  inarow::expected<Accepted, std::string> accept_seek(const std::string& seek_id,
                                                      const std::string& asker, bool asker_busy,
                                                      const MatchSlot& slot);
  // A match against people made outside the pool (a private game joined,
  // a rematch): `slot`'s match held for all of `players` at once, unless
  // one of them is at the cap. nullopt: held; else the index in `players`
  // of the first at the cap, and nothing changes.
  inarow::expected<std::optional<std::size_t>, std::string> hold_match(
      const MatchSlot& slot, const std::vector<std::string>& players);
  // The match was made and its lease claimed: it counts for these players
  // for as long as it is live (not after forget_match()).
  inarow::expected<void, std::string> count_match(const std::string& match_id,
                                                  const std::vector<std::string>& players);
  // The player's live matches against people: live ones counted, and held
  // ones not claimed yet.
  inarow::expected<int, std::string> playing(const std::string& player_id);
  // Pairs seek `seek_id` with another of the same terms whose rating is
  // within both windows at now_ms (|a - b| <= each window, as the
  // Matchmaker compares), chosen as the Matchmaker would: the
  // longest-waiting seek that waited longer than this one and fits it;
  // if none, the closest rating among younger ones (ties: the longer
  // waiting). Both are removed from the pool in the same script,
  // so no seek is ever in two pairs. First in the pair is the
  // longer-waiting one (smaller since_ms; on a tie, the one added first).
  // nullopt if no seek fits, or `seek_id` is no longer in the pool.
  // With a `slot`, a player at its cap is passed over (their seek stays),
  // a seek whose own player is at it pairs with nobody, and the pair's
  // match is held for both.
  inarow::expected<std::optional<std::pair<SharedSeek, SharedSeek>>, std::string> pair(
      const std::string& seek_id, const MatchmakerPolicy& policy, std::int64_t now_ms,
      const std::optional<MatchSlot>& slot = std::nullopt);

 private:
  std::string key(std::string_view kind, std::string_view id) const;

  Redis& redis_;
  std::string prefix_;
};

}  // namespace inarow::server
