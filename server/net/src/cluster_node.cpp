#include "cluster_node.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <set>

#include "ids.h"
#include "inarow/common/json.h"
#include "inarow/server/match_commands.h"
#include "inarow/server/wire.h"

namespace inarow::server {

namespace v1 = ::inarow::v1;
namespace nv1 = ::inarow::node::v1;

// A client of another node, here through a link: what this node sends it
// goes back over the bus to the client's node, in order.
class RelayedConnection : public Connection {
 public:
  RelayedConnection(std::weak_ptr<ClusterNode> node, std::string client_node, std::uint64_t link,
                    std::string address)
      : node_(std::move(node)),
        client_node_(std::move(client_node)),
        link_(link),
        address_(std::move(address)) {}

  void deliver(OutgoingPtr message) override {
    std::vector<OutgoingPtr> one;
    one.push_back(std::move(message));
    deliver_all(std::move(one));
  }
  void deliver_all(std::vector<OutgoingPtr> messages) override {
    if (closed_.load(std::memory_order_acquire)) return;
    if (auto node = node_.lock()) node->relay(client_node_, link_, std::move(messages));
  }
  void close(CloseKind kind) override {
    if (closed_.exchange(true)) return;
    if (auto node = node_.lock()) node->relay_close(client_node_, link_, kind);
  }
  std::string address() const override { return address_; }
  bool relayed() const override { return true; }
  const std::string& client_node() const { return client_node_; }

 private:
  std::weak_ptr<ClusterNode> node_;
  std::string client_node_;
  std::uint64_t link_;
  std::string address_;
  std::atomic<bool> closed_{false};
};

namespace {

// The match a client's message is about, if any.
std::string match_of(const v1::ClientMessage& message) {
  if (const MatchCommand* command = find_match_command(message)) return command->match_id(message);
  if (message.has_watch()) return message.watch().match_id();
  if (message.has_unwatch()) return message.unwatch().match_id();
  return {};
}

// How often this node's seeks try the pool again (their windows widen as
// they wait), and how long a private code is held in the directory.
constexpr Millis kPairEvery{1000};
constexpr Millis kCodeTtl{std::chrono::hours(6)};
// How often a message for a match whose owner died is tried again (its
// lease runs out within one TTL, and somebody takes it over).
constexpr Millis kRetryEvery{200};
// The most orphans one look takes in.
constexpr std::size_t kOrphansPerLook = 256;

}  // namespace

ClusterNode::ClusterNode(Router& router, ClusterPresence& presence, const ServerConfig& config,
                         Metrics& metrics)
    : router_(router),
      presence_(presence),
      config_(config),
      metrics_(metrics),
      node_id_(presence.node_id()),
      lease_ttl_(config.node_ttl),
      random_(std::hash<std::string>{}(node_id_)) {}

ClusterNode::~ClusterNode() {
  stop();
}

inarow::expected<void, std::string> ClusterNode::start() {
  std::weak_ptr<ClusterNode> weak = weak_from_this();
  NodeBus::Handlers handlers;
  handlers.message = [weak](const std::string& from, std::string_view bytes) {
    if (auto self = weak.lock()) self->on_message(from, bytes);
  };
  handlers.gap = [weak](const std::string& from) {
    if (auto self = weak.lock()) self->on_gap(from);
  };
  handlers.latency = [&m = metrics_](double seconds) { m.redis_command.observe(seconds); };
  auto bus = NodeBus::open(config_.redis, presence_.redis_options(), node_id_, std::move(handlers));
  if (!bus) return inarow::unexpected(bus.error());
  // Seeks left by an earlier process under this id (it died and this one
  // took its id within its TTL): their players were connected to it.
  if (auto dropped = presence_.directory().drop_seeks_of(node_id_); dropped && *dropped > 0)
    spdlog::info("cluster: dropped {} seeks an earlier node {} left", *dropped, node_id_);
  {
    std::lock_guard lock(bus_mutex_);
    bus_ = std::move(*bus);
    bus_ready_.store(true, std::memory_order_release);
  }
  bus_set_.notify_all();
  presence_.every(lease_ttl_ / 3, [this](Directory& d) { renew_leases(d); });
  presence_.every(kPairEvery, [this](Directory& d) { pair_seeks(d); });
  presence_.every(lease_ttl_ / 3, [this](Directory& d) {
    watch_nodes(d);
    scan_orphans(d);
  });
  presence_.every(std::min(kRetryEvery, lease_ttl_ / 4), [this](Directory& d) { retry_routes(d); });
  return {};
}

void ClusterNode::take_stored(std::vector<std::string> match_ids) {
  presence_.enqueue([this, match_ids = std::move(match_ids)](Directory& directory) {
    watch_nodes(directory);
    for (const std::string& id : match_ids)
      take_over(directory, id);
  });
}

void ClusterNode::hand_over() {
  std::unordered_map<std::string, std::int64_t> owned;
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
    owned.swap(owned_);
  }
  // What is still here is handed over: another node claims it now rather
  // than when its lease would have run out.
  Directory& directory = presence_.directory();
  nv1::NodeMessage handover;
  for (const auto& [match, generation] : owned) {
    if (auto released = directory.release(match, node_id_, generation); released && *released)
      handover.mutable_handover()->add_match_ids(match);
  }
  metrics_.matches_owned.store(0, std::memory_order_relaxed);
  if (!bus_ || !handover.has_handover()) return;
  if (auto nodes = directory.nodes()) {
    for (const NodeInfo& node : *nodes) {
      if (node.node_id != node_id_) post(node.node_id, handover);
    }
  }
  spdlog::info("cluster: handed over {} matches", handover.handover().match_ids_size());
}

void ClusterNode::stop() {
  hand_over();
  if (bus_) bus_->stop();
}

void ClusterNode::renew_leases(Directory& directory) {
  std::vector<std::pair<std::string, std::int64_t>> owned;
  {
    std::lock_guard lock(mutex_);
    owned.assign(owned_.begin(), owned_.end());
  }
  if (owned.empty()) return;
  auto renewed = directory.renew_many(node_id_, owned, lease_ttl_);
  if (!renewed) return;  // Redis is away: tried again next time
  for (std::size_t i = 0; i < owned.size() && i < renewed->size(); ++i) {
    if ((*renewed)[i]) {
      metrics_.lease_renewals.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    const std::string& match = owned[i].first;
    // Lapsed with nobody else on it (a Redis restarted without its data,
    // a renewal late): this node claims it again, at a new generation.
    bool still_here = false;
    {
      std::lock_guard lock(mutex_);
      still_here = owned_.contains(match);  // not ended meanwhile
    }
    if (!still_here) continue;
    if (auto again = directory.claim(match, node_id_, lease_ttl_); again && again->ours) {
      std::lock_guard lock(mutex_);
      if (auto it = owned_.find(match); it != owned_.end()) it->second = again->generation;
      continue;
    }
    metrics_.leases_lost.fetch_add(1, std::memory_order_relaxed);
    spdlog::warn("cluster: the lease of match {} was taken: it goes", match);
    {
      std::lock_guard lock(mutex_);
      owned_.erase(match);
      metrics_.matches_owned.store(static_cast<std::int64_t>(owned_.size()),
                                   std::memory_order_relaxed);
    }
    router_.abandon(match);
  }
}

// ---------------------------------------------------------------- take-overs

void ClusterNode::take_over(Directory& directory, const std::string& match_id) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || owned_.contains(match_id) || taking_.contains(match_id)) return;
    // Marked before the claim: once the lease names this node, the other
    // nodes send their clients' messages for the match here, and those
    // wait (held_) until it runs.
    taking_[match_id] = 0;
  }
  auto lease = directory.claim(match_id, node_id_, lease_ttl_);
  const bool ours = lease && lease->ours;
  bool stopping = false;
  std::vector<Outbound> held;
  {
    std::lock_guard lock(mutex_);
    stopping = stopping_;
    if (ours && !stopping) {
      taking_[match_id] = lease->generation;
    } else {
      taking_.erase(match_id);
      if (auto it = held_.find(match_id); it != held_.end()) {
        held = std::move(it->second);
        held_.erase(it);
      }
    }
  }
  if (!ours || stopping) {
    // Redis away, another node was first, or this node stops.
    if (ours) (void)directory.release(match_id, node_id_, lease->generation);
    for (const Outbound& out : held)
      nowhere(out, {ProtocolError::unknown_match, "no match " + match_id});
    return;
  }
  spdlog::info("cluster: taking over match {} at generation {}", match_id, lease->generation);
  router_.take_over(match_id, lease->generation,
                    [weak = weak_from_this(), match_id,
                     generation = lease->generation](Router::TakenOver result) {
                      auto self = weak.lock();
                      if (!self) return;
                      self->presence_.enqueue([self, match_id, generation, result](Directory& d) {
                        self->took_over(d, match_id, generation, result);
                      });
                    });
}

void ClusterNode::took_over(Directory& directory, const std::string& match_id,
                            std::int64_t generation, Router::TakenOver result) {
  std::vector<Outbound> held;
  {
    std::lock_guard lock(mutex_);
    taking_.erase(match_id);
    if (auto it = held_.find(match_id); it != held_.end()) {
      held = std::move(it->second);
      held_.erase(it);
    }
    if (result == Router::TakenOver::running && !stopping_) {
      owned_[match_id] = generation;
      metrics_.matches_owned.store(static_cast<std::int64_t>(owned_.size()),
                                   std::memory_order_relaxed);
    }
  }
  switch (result) {
    case Router::TakenOver::running:
      metrics_.take_overs.fetch_add(1, std::memory_order_relaxed);
      spdlog::info("cluster: took over match {}", match_id);
      for (const Outbound& out : held)
        deliver_here(out);
      return;
    case Router::TakenOver::gone:
      // Finished before its owner could say so: live no more.
      (void)directory.forget_match(match_id);
      break;
    case Router::TakenOver::refused:
      (void)directory.release(match_id, node_id_, generation);
      break;
  }
  for (const Outbound& out : held)
    nowhere(out, {ProtocolError::unknown_match, "no match " + match_id});
}

void ClusterNode::scan_orphans(Directory& directory) {
  auto orphans = directory.orphans(kOrphansPerLook);
  if (!orphans || orphans->empty()) return;
  // This node's share: the live nodes all look, each at its own time, so
  // one that looks first does not take everything (what is left is taken
  // at the next look).
  const std::size_t nodes = std::max<std::size_t>(1, known_nodes_.size());
  const std::size_t share = (orphans->size() + nodes - 1) / nodes;
  std::ranges::shuffle(*orphans, random_);
  orphans->resize(std::min(orphans->size(), share));
  for (const std::string& id : *orphans)
    take_over(directory, id);
}

void ClusterNode::watch_nodes(Directory& directory) {
  auto nodes = directory.nodes();
  if (!nodes) return;
  std::set<std::string> now;
  for (const NodeInfo& node : *nodes)
    now.insert(node.node_id);
  for (const std::string& node : known_nodes_) {
    if (node != node_id_ && !now.contains(node)) {
      spdlog::warn("cluster: node {} is gone; its links close", node);
      drop_node(node);
    }
  }
  known_nodes_ = std::move(now);
}

void ClusterNode::pair_seeks(Directory& directory) {
  std::vector<SharedSeek> mine;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [player, seek] : seeks_)
      mine.push_back(seek);
  }
  for (const SharedSeek& seek : mine)
    pair_seek(directory, seek);
}

void ClusterNode::pair_seek(Directory& directory, const SharedSeek& seek) {
  // The pool holds the new match for both players, so that no other
  // pair or accept takes either of them past the cap meanwhile.
  const MatchSlot slot{new_match_id(), config_.max_human_matches_per_player, lease_ttl_};
  auto pair = directory.pair(seek.seek_id, config_.matchmaker, unix_ms(), slot);
  if (!pair || !*pair) return;
  auto& [first, second] = **pair;
  seek_gone(first);
  seek_gone(second);
  router_.paired(std::move(first), std::move(second), slot.match_id);
}

void ClusterNode::seek_gone(const SharedSeek& seek) {
  if (seek.node_id != node_id_) {
    nv1::NodeMessage taken;
    taken.mutable_seek_taken()->set_seek_id(seek.seek_id);
    taken.mutable_seek_taken()->set_player_id(seek.player_id);
    post(seek.node_id, taken);
    return;
  }
  std::lock_guard lock(mutex_);
  if (auto it = seeks_.find(seek.player_id);
      it != seeks_.end() && it->second.seek_id == seek.seek_id)
    seeks_.erase(it);
}

// ---------------------------------------------------------------- client side

void ClusterNode::post(const std::string& node, const nv1::NodeMessage& message) {
  bus_->post(node, message.SerializeAsString());
}

void ClusterNode::send_locked(const std::string& node, Outbound out) {
  auto connection = out.connection.lock();
  if (!connection) return;
  ClientLinks& links = client_links_[connection.get()];
  if (links.connection.lock() != connection) links = ClientLinks{connection, {}};
  auto [it, fresh] = links.by_node.try_emplace(node, 0);
  if (fresh) {
    it->second = ++next_link_;
    links_[it->second] = {connection, node};
    nv1::NodeMessage open;
    open.mutable_open()->set_link(it->second);
    open.mutable_open()->set_player_id(out.player_id);
    open.mutable_open()->set_address(connection->address());
    post(node, open);
  }
  if (out.message.has_command()) out.message.mutable_command()->set_link(it->second);
  if (out.message.has_attach()) out.message.mutable_attach()->set_link(it->second);
  post(node, out.message);
}

void ClusterNode::nowhere(const Outbound& out, const Failure& failure) {
  if (auto connection = out.connection.lock())
    send(metrics_, connection, make_error(metrics_, out.request_id, failure, out.match_id));
}

void ClusterNode::to_owner(const std::string& match_id, Outbound out) {
  std::lock_guard lock(mutex_);
  if (stopping_) return;
  if (auto owner = owners_.find(match_id)) {
    send_locked(*owner, std::move(out));
    return;
  }
  if (auto it = held_.find(match_id); it != held_.end()) {  // being taken over here
    it->second.push_back(std::move(out));
    return;
  }
  auto& waiting = waiting_[match_id];
  waiting.push_back(std::move(out));
  // One lookup per match: what comes meanwhile waits behind it, in order.
  if (waiting.size() > 1) return;
  presence_.enqueue([this, match_id](Directory& directory) { route(directory, match_id); });
}

void ClusterNode::route(Directory& directory, const std::string& match_id) {
  auto lease = directory.owner(match_id, node_id_);
  if (lease && !*lease) {
    // Nobody owns it: a live match whose owner died or stopped is taken
    // over here, now, for the client who wants it.
    if (auto live = directory.live(match_id); live && *live) {
      take_over(directory, match_id);
      lease = directory.owner(match_id, node_id_);
    }
  }
  // Nobody owns it, and it is not live: it may have ended lately on a node
  // that keeps it a while (its end for a player who was away, a rematch).
  std::optional<std::string> ended_at;
  if (lease && !*lease) {
    if (auto at = directory.ended_at(match_id); at && *at && **at != node_id_) ended_at = **at;
  }
  const std::string* elsewhere = nullptr;  // the node to send to, if not here
  if (lease && *lease && !(*lease)->ours)
    elsewhere = &(*lease)->node_id;
  else if (ended_at)
    elsewhere = &*ended_at;
  bool owner_alive = true;
  if (elsewhere) {
    auto nodes = directory.nodes();
    owner_alive = !nodes || std::ranges::any_of(
                                *nodes, [&](const NodeInfo& n) { return n.node_id == *elsewhere; });
  }
  enum class Then { wait, here, nowhere } then = Then::nowhere;
  std::vector<Outbound> outs;
  {
    std::lock_guard lock(mutex_);
    auto waiting = waiting_.find(match_id);
    if (waiting == waiting_.end()) {
      retry_.erase(match_id);
      return;
    }
    if (!lease || (*lease && !owner_alive)) {
      // Redis is away, or the lease is a dead node's that has not run out.
      then = Then::wait;
    } else if (!*lease && !(ended_at && owner_alive)) {
      then = Then::nowhere;
    } else if (*lease && (*lease)->ours) {
      if (taking_.contains(match_id)) {
        auto& held = held_[match_id];
        for (Outbound& o : waiting->second)
          held.push_back(std::move(o));
        waiting_.erase(waiting);
        retry_.erase(match_id);
        return;
      }
      then = owned_.contains(match_id) ? Then::here : Then::nowhere;
    } else {
      const std::string& node = *elsewhere;
      owners_.set(match_id, node);
      for (Outbound& o : waiting->second)
        send_locked(node, std::move(o));
      waiting_.erase(waiting);
      retry_.erase(match_id);
      return;
    }
    if (then == Then::wait) {
      const auto now = SteadyClock::now();
      auto [it, first] = retry_.try_emplace(match_id, now + 3 * lease_ttl_);
      if (now < it->second) return;  // tried again soon
      then = Then::nowhere;          // waited three leases' time: in vain
    }
    outs = std::move(waiting->second);
    waiting_.erase(waiting);
    retry_.erase(match_id);
  }
  for (const Outbound& o : outs) {
    if (then == Then::here) {
      deliver_here(o);
    } else {
      nowhere(o, {ProtocolError::unknown_match, "no match " + match_id});
    }
  }
}

void ClusterNode::retry_routes(Directory& directory) {
  std::vector<std::string> matches;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [match, until] : retry_)
      matches.push_back(match);
  }
  for (const std::string& match : matches)
    route(directory, match);
}

void ClusterNode::deliver_here(const Outbound& out) {
  auto connection = out.connection.lock();
  if (!connection) return;
  if (out.message.has_attach()) {
    std::optional<std::uint64_t> after;
    if (out.message.attach().has_after()) after = out.message.attach().after_seq();
    router_.attach_seated(connection, out.message.attach().match_id(), after);
    return;
  }
  v1::ClientMessage message;
  if (out.message.has_command() && message.ParseFromString(out.message.command().client_message()))
    router_.receive(connection, std::move(message));
}

void ClusterNode::forward(const ConnectionPtr& from, const std::string& player_id,
                          const std::string& match_id, v1::ClientMessage message) {
  metrics_.forwarded.fetch_add(1, std::memory_order_relaxed);
  Outbound out{from, player_id, message.request_id(), match_id, {}};
  out.message.mutable_command()->set_client_message(message.SerializeAsString());
  to_owner(match_id, std::move(out));
}

void ClusterNode::forward_code(const ConnectionPtr& from, const std::string& player_id,
                               const std::string& code, v1::ClientMessage message) {
  metrics_.forwarded.fetch_add(1, std::memory_order_relaxed);
  Outbound out{from, player_id, message.request_id(), {}, {}};
  out.message.mutable_command()->set_client_message(message.SerializeAsString());
  presence_.enqueue([this, code, out = std::move(out)](Directory& directory) mutable {
    auto holder = directory.peek_private(code);
    if (holder && *holder && **holder != node_id_) {
      std::lock_guard lock(mutex_);
      send_locked(**holder, std::move(out));
      return;
    }
    nowhere(out,
            {ProtocolError::unknown_code, "no open game with code '" + json::echo(code) + "'"});
  });
}

void ClusterNode::resume(const ConnectionPtr& from, const std::string& player_id,
                         const std::string& match_id, std::optional<std::uint64_t> after_seq) {
  Outbound out{from, player_id, 0, match_id, {}};
  auto* attach = out.message.mutable_attach();
  attach->set_match_id(match_id);
  attach->set_has_after(after_seq.has_value());
  attach->set_after_seq(after_seq.value_or(0));
  to_owner(match_id, std::move(out));
}

void ClusterNode::gone(Connection* connection) {
  std::lock_guard lock(mutex_);
  auto it = client_links_.find(connection);
  if (it == client_links_.end()) return;
  for (const auto& [node, link] : it->second.by_node) {
    nv1::NodeMessage close;
    close.mutable_close()->set_link(link);
    post(node, close);
    links_.erase(link);
  }
  client_links_.erase(it);
}

void ClusterNode::seated_away(const std::string& match_id, const std::string& player_id,
                              const std::vector<ConnectionPtr>& following) {
  std::set<std::string> linked;  // nodes whose client follows the match through a link
  for (const ConnectionPtr& c : following)
    linked.insert(static_cast<const RelayedConnection&>(*c).client_node());
  presence_.enqueue([this, match_id, player_id, linked = std::move(linked)](Directory& directory) {
    auto where = directory.location(player_id);
    if (!where || !*where || **where == node_id_) return;
    // That node's client is seated through its link already: attaching it
    // again would replay the match to it from the start, every event twice.
    if (linked.contains(**where)) return;
    nv1::NodeMessage seated;
    seated.mutable_seated()->set_match_id(match_id);
    seated.mutable_seated()->set_player_id(player_id);
    post(**where, seated);
  });
}

// ---------------------------------------------------------------- the directory

void ClusterNode::match_made(const std::string& match_id,
                             const std::vector<ConnectionPtr>& relayed) {
  // Their nodes hear who owns it before the acknowledgement or the start
  // that names it (the bus keeps each node's messages in order), so their
  // clients' next commands find it at once, before its lease is claimed.
  std::set<std::string> told;
  for (const ConnectionPtr& c : relayed) {
    const std::string& node = static_cast<const RelayedConnection&>(*c).client_node();
    if (!told.insert(node).second) continue;
    nv1::NodeMessage owned;
    owned.mutable_owned()->set_match_id(match_id);
    post(node, owned);
  }
  presence_.enqueue([this, match_id](Directory& directory) {
    auto lease = directory.claim(match_id, node_id_, lease_ttl_);
    if (!lease || !lease->ours) {
      // A new id is this node's alone: only a Redis that is away says no.
      spdlog::warn("cluster: no lease for the new match {}: {}", match_id,
                   lease ? "another node holds it" : lease.error());
      return;
    }
    std::lock_guard lock(mutex_);
    owned_[match_id] = lease->generation;
    metrics_.matches_owned.store(static_cast<std::int64_t>(owned_.size()),
                                 std::memory_order_relaxed);
  });
}

void ClusterNode::match_ended(const std::string& match_id) {
  presence_.enqueue([this, match_id](Directory& directory) {
    {
      std::lock_guard lock(mutex_);
      owned_.erase(match_id);
      metrics_.matches_owned.store(static_cast<std::int64_t>(owned_.size()),
                                   std::memory_order_relaxed);
    }
    (void)directory.end_match(match_id, node_id_, config_.reconnect_grace);
  });
}

void ClusterNode::match_moved(const std::string& match_id) {
  std::lock_guard lock(mutex_);
  owned_.erase(match_id);
  metrics_.matches_owned.store(static_cast<std::int64_t>(owned_.size()), std::memory_order_relaxed);
}

void ClusterNode::code_opened(const std::string& code) {
  presence_.enqueue([this, code](Directory& directory) {
    auto put = directory.put_private(code, node_id_, kCodeTtl);
    if (put && !*put) spdlog::warn("cluster: private code {} is another node's too", code);
  });
}

void ClusterNode::code_closed(const std::string& code) {
  presence_.enqueue([this, code](Directory& directory) {
    auto held = directory.peek_private(code);
    if (held && *held && **held == node_id_) (void)directory.drop_private(code);
  });
}

void ClusterNode::seek(
    SharedSeek seek,
    std::function<void(inarow::expected<Directory::SeekAdded, std::string>)> then) {
  {
    std::lock_guard lock(mutex_);
    seeks_[seek.player_id] = seek;
  }
  presence_.enqueue([this, seek = std::move(seek), then = std::move(then)](Directory& directory) {
    auto added = directory.add_seek(seek, config_.max_human_matches_per_player);
    const bool in = added && *added == Directory::SeekAdded::added;
    if (!in) {
      std::lock_guard lock(mutex_);
      if (auto it = seeks_.find(seek.player_id); it != seeks_.end() && it->second == seek)
        seeks_.erase(it);
    }
    then(std::move(added));
    // This seek alone: the others were tried when they came and are tried
    // again every tick. Trying them all here cost a round trip per open
    // seek for every new one, which with a thousand seekers arriving at
    // once held this thread (and every forwarded command) for seconds.
    if (in) pair_seek(directory, seek);
  });
}

bool ClusterNode::seeking(const std::string& player_id) {
  std::lock_guard lock(mutex_);
  return seeks_.contains(player_id);
}

bool ClusterNode::cancel_seek(const std::string& player_id) {
  {
    std::lock_guard lock(mutex_);
    if (seeks_.erase(player_id) == 0) return false;
  }
  presence_.enqueue([player_id](Directory& directory) { (void)directory.remove_seek(player_id); });
  return true;
}

void ClusterNode::list_seeks(std::size_t limit,
                             std::function<void(inarow::expected<SeekPage, std::string>)> then) {
  presence_.enqueue(
      [limit, then = std::move(then)](Directory& directory) { then(directory.seek_page(limit)); });
}

void ClusterNode::accept_seek(std::string seek_id, std::string player, bool busy,
                              std::string match_id,
                              std::function<void(inarow::expected<Accepted, std::string>)> then) {
  presence_.enqueue([this, seek_id = std::move(seek_id), player = std::move(player), busy,
                     match_id = std::move(match_id), then = std::move(then)](Directory& directory) {
    const MatchSlot slot{match_id, config_.max_human_matches_per_player, lease_ttl_};
    auto accepted = directory.accept_seek(seek_id, player, busy, slot);
    if (accepted && accepted->outcome == Accepted::Outcome::taken) {
      seek_gone(accepted->seek);
      // The asker's own seek went from the pool with it.
      std::lock_guard lock(mutex_);
      seeks_.erase(player);
    }
    then(std::move(accepted));
  });
}

void ClusterNode::hold_match(
    std::string match_id, std::vector<std::string> players,
    std::function<void(inarow::expected<std::optional<std::size_t>, std::string>)> then) {
  presence_.enqueue([this, match_id = std::move(match_id), players = std::move(players),
                     then = std::move(then)](Directory& directory) {
    const MatchSlot slot{match_id, config_.max_human_matches_per_player, lease_ttl_};
    then(directory.hold_match(slot, players));
  });
}

void ClusterNode::count_match(const std::string& match_id, std::vector<std::string> players) {
  // After match_made()'s claim: from now on the live lease keeps it counted.
  presence_.enqueue([match_id, players = std::move(players)](Directory& directory) {
    if (auto counted = directory.count_match(match_id, players); !counted)
      spdlog::warn("cluster: match {} not counted for its players: {}", match_id, counted.error());
  });
}

// ---------------------------------------------------------------- owner side

void ClusterNode::relay(const std::string& node, std::uint64_t link,
                        std::vector<OutgoingPtr> messages) {
  nv1::NodeMessage m;
  auto* deliver = m.mutable_deliver();
  deliver->set_link(link);
  for (const OutgoingPtr& message : messages)
    deliver->add_frames(message->payload(false));
  post(node, m);
}

void ClusterNode::relay_close(const std::string& node, std::uint64_t link, CloseKind kind) {
  nv1::NodeMessage m;
  auto* close = m.mutable_close();
  close->set_link(link);
  close->set_close_client(true);
  close->set_policy_violation(kind == CloseKind::policy_violation);
  close->set_from_owner(true);
  post(node, m);
  std::lock_guard lock(mutex_);
  relayed_.erase({node, link});
}

void ClusterNode::on_message(const std::string& from, std::string_view bytes) {
  if (!bus_ready_.load(std::memory_order_acquire)) {
    std::unique_lock lock(bus_mutex_);
    bus_set_.wait(lock, [&] { return bus_ready_.load(std::memory_order_acquire); });
  }
  nv1::NodeMessage m;
  if (!m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    spdlog::warn("cluster: a message from node {} does not parse", from);
    return;
  }
  auto relayed = [&](std::uint64_t link) -> std::shared_ptr<RelayedConnection> {
    std::lock_guard lock(mutex_);
    auto it = relayed_.find({from, link});
    return it == relayed_.end() ? nullptr : it->second;
  };
  switch (m.body_case()) {
    case nv1::NodeMessage::kOpen: {
      auto connection = std::make_shared<RelayedConnection>(weak_from_this(), from, m.open().link(),
                                                            m.open().address());
      {
        std::lock_guard lock(mutex_);
        relayed_[{from, m.open().link()}] = connection;
      }
      router_.adopt(connection, m.open().player_id());
      break;
    }
    case nv1::NodeMessage::kCommand: {
      auto connection = relayed(m.command().link());
      v1::ClientMessage message;
      if (!connection || !message.ParseFromString(m.command().client_message())) break;
      metrics_.relayed_in.fetch_add(1, std::memory_order_relaxed);
      if (hold_while_taking(match_of(message), connection, message.request_id(), m)) break;
      router_.receive(connection, std::move(message));
      break;
    }
    case nv1::NodeMessage::kAttach: {
      auto connection = relayed(m.attach().link());
      if (!connection) break;
      if (hold_while_taking(m.attach().match_id(), connection, 0, m)) break;
      std::optional<std::uint64_t> after;
      if (m.attach().has_after()) after = m.attach().after_seq();
      router_.attach_seated(connection, m.attach().match_id(), after);
      break;
    }
    case nv1::NodeMessage::kDeliver: {
      ConnectionPtr connection;
      {
        std::lock_guard lock(mutex_);
        auto it = links_.find(m.deliver().link());
        if (it != links_.end() && it->second.second == from) connection = it->second.first.lock();
      }
      if (!connection) break;
      std::vector<OutgoingPtr> frames;
      frames.reserve(static_cast<std::size_t>(m.deliver().frames_size()));
      for (auto& frame : *m.mutable_deliver()->mutable_frames())
        frames.push_back(Outgoing::encoded(std::move(frame)));
      send_all(metrics_, connection, std::move(frames));
      break;
    }
    case nv1::NodeMessage::kClose: {
      const auto& close = m.close();
      if (!close.from_owner()) {
        std::shared_ptr<RelayedConnection> connection;
        {
          std::lock_guard lock(mutex_);
          if (auto it = relayed_.find({from, close.link()}); it != relayed_.end()) {
            connection = std::move(it->second);
            relayed_.erase(it);
          }
        }
        if (connection) router_.disconnected(connection);
        break;
      }
      ConnectionPtr connection;
      {
        std::lock_guard lock(mutex_);
        // The owner closes a client that is to come back (its match moved,
        // or the owner stops): where it goes next is looked up afresh.
        if (close.close_client() && !close.policy_violation())
          owners_.erase_values_if([&](const std::string& node) { return node == from; });
        auto it = links_.find(close.link());
        if (it == links_.end() || it->second.second != from) break;
        connection = it->second.first.lock();
        links_.erase(it);
        if (connection) {
          if (auto c = client_links_.find(connection.get()); c != client_links_.end())
            c->second.by_node.erase(from);
        }
      }
      if (connection && close.close_client()) {
        connection->close(close.policy_violation() ? CloseKind::policy_violation
                                                   : CloseKind::going_away);
      }
      break;
    }
    case nv1::NodeMessage::kSeated: {
      const std::string match_id = m.seated().match_id();
      {
        std::lock_guard lock(mutex_);
        owners_.set(match_id, from);
      }
      router_.seated_elsewhere(
          match_id, m.seated().player_id(),
          [self = shared_from_this(), from, match_id](const ConnectionPtr& c,
                                                      const std::string& player) {
            Outbound out{c, player, 0, match_id, {}};
            auto* attach = out.message.mutable_attach();
            attach->set_match_id(match_id);
            attach->set_has_after(true);  // from its start: the `started` event first
            attach->set_after_seq(0);
            std::lock_guard lock(self->mutex_);
            self->send_locked(from, std::move(out));
          });
      break;
    }
    case nv1::NodeMessage::kOwned: {
      std::lock_guard lock(mutex_);
      owners_.set(m.owned().match_id(), from);
      break;
    }
    case nv1::NodeMessage::kHandover: {
      {
        std::lock_guard lock(mutex_);
        owners_.erase_values_if([&](const std::string& node) { return node == from; });
      }
      presence_.enqueue([this](Directory& d) { scan_orphans(d); });
      break;
    }
    case nv1::NodeMessage::kSeekTaken: {
      std::lock_guard lock(mutex_);
      auto it = seeks_.find(m.seek_taken().player_id());
      if (it != seeks_.end() && it->second.seek_id == m.seek_taken().seek_id()) seeks_.erase(it);
      break;
    }
    case nv1::NodeMessage::BODY_NOT_SET:
      break;
  }
}

bool ClusterNode::hold_while_taking(const std::string& match_id, const ConnectionPtr& connection,
                                    std::uint64_t request_id, const nv1::NodeMessage& message) {
  if (match_id.empty()) return false;
  std::lock_guard lock(mutex_);
  if (!taking_.contains(match_id)) return false;
  held_[match_id].push_back(Outbound{connection, {}, request_id, match_id, message});
  return true;
}

void ClusterNode::on_gap(const std::string& from) {
  metrics_.bus_gaps.fetch_add(1, std::memory_order_relaxed);
  spdlog::warn("cluster: messages from node {} were lost; its links close", from);
  drop_node(from);
}

void ClusterNode::drop_node(const std::string& from) {
  std::vector<ConnectionPtr> clients;
  std::vector<std::shared_ptr<RelayedConnection>> relayed;
  {
    std::lock_guard lock(mutex_);
    for (auto it = links_.begin(); it != links_.end();) {
      if (it->second.second != from) {
        ++it;
        continue;
      }
      if (auto c = it->second.first.lock()) {
        if (auto cl = client_links_.find(c.get()); cl != client_links_.end())
          cl->second.by_node.erase(from);
        clients.push_back(std::move(c));
      }
      it = links_.erase(it);
    }
    for (auto it = relayed_.begin(); it != relayed_.end();) {
      if (it->first.first != from) {
        ++it;
        continue;
      }
      relayed.push_back(std::move(it->second));
      it = relayed_.erase(it);
    }
    owners_.erase_values_if([&](const std::string& node) { return node == from; });
  }
  // Its clients come back and resume from the last event they saw.
  for (auto& c : clients)
    c->close(CloseKind::going_away);
  for (auto& r : relayed)
    router_.disconnected(r);
}

}  // namespace inarow::server
