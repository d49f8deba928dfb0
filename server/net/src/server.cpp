// The Server facade: opens the store, restores, listens, serves, stops.
#include "inarow/server/server.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <mutex>
#include <thread>

#include "cluster_node.h"
#include "cluster_presence.h"
#include "inarow/server/bot_moves.h"
#include "inarow/server/postgres_store.h"
#include "inarow/server/router.h"
#include "inarow/server/sqlite_store.h"
#include "inarow/server/store_writer.h"
#include "listener.h"
#include "session_context.h"

namespace inarow::server {

namespace asio = boost::asio;

struct Server::Impl {
  explicit Impl(ServerConfig c)
      : config(std::move(c)),
        ioc(std::max(1, config.threads)),
        bot_workers(static_cast<std::size_t>(std::max(1, config.bot_threads))),
        listener(ioc) {}

  // Destroyed bottom up. The bot workers go first (their searches hold
  // matches); then the router, whose strands and timers belong to the
  // io_context and so must go while it is alive (its state lives on in the
  // handlers that still hold it, destroyed with the io_context); then the
  // io_context and its handlers; last what those handlers refer to
  // (sessions: the shared context and metrics; matches: the store writer).
  ServerConfig config;
  Metrics metrics;
  std::unique_ptr<Store> store;
  std::unique_ptr<StoreWriter> writer;
  std::unique_ptr<SessionContext> sessions;
  asio::io_context ioc;
  std::unique_ptr<Router> router;
  asio::thread_pool bot_workers;
  // Reads game records for GET /matches/<id> and /game/<id>, the game
  // history, profiles, leaderboards and returning players (their handlers
  // hold sessions, so they go before the io_context).
  asio::thread_pool record_readers{1};
  Listener listener;
  std::vector<std::thread> threads;
  // A node of a cluster (config.redis): its entry in the shared directory.
  std::unique_ptr<ClusterPresence> presence;
  // ... and its work with the other nodes: links, leases, the shared pool.
  std::shared_ptr<ClusterNode> cluster;
  std::mutex stop_mutex;
  bool running = false;
};

// How often the store learns the server is alive: a restore charges the
// player to move up to the last heartbeat (recovery.h), so at most this much
// of their turn before a crash goes uncharged.
constexpr std::chrono::milliseconds kStoreHeartbeat{1000};

Server::Server(ServerConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {}

Server::~Server() {
  stop();
}

std::uint16_t Server::port() const {
  return impl_->listener.port();
}

const Metrics& Server::metrics() const {
  return impl_->metrics;
}

inarow::expected<void, std::string> Server::start() {
  Impl& s = *impl_;
  // A node of a cluster reaches Redis first: a node that cannot is
  // misconfigured, and says so before it touches the store.
  std::unique_ptr<Redis> redis;
  if (!s.config.redis.empty()) {
    auto opened = open_redis(s.config.redis);
    if (!opened) return inarow::unexpected(opened.error());
    redis = std::move(*opened);
  }
  // A PostgreSQL URI opens the PostgreSQL store; anything else is a SQLite
  // file (or ":memory:"). The log names a PostgreSQL store by host, port,
  // database and user: its URI may hold a password.
  const bool postgres =
      s.config.store.starts_with("postgresql://") || s.config.store.starts_with("postgres://");
  auto store = postgres
                   ? open_postgres_store(s.config.store)
                   : open_sqlite_store(s.config.store,
                                       SqliteOptions{.full_sync = s.config.store_full_sync,
                                                     .busy_timeout = s.config.store_busy_timeout});
  if (!store) return inarow::unexpected(store.error());
  const std::string store_label = postgres ? postgres_store_label(s.config.store) : s.config.store;
  s.store = std::move(*store);
  s.writer =
      std::make_unique<StoreWriter>(*s.store, [&m = s.metrics](double sec, std::size_t n, bool ok) {
        m.store_commit.observe(sec);
        m.store_ops.fetch_add(n, std::memory_order_relaxed);
        if (!ok) m.store_failures.fetch_add(1, std::memory_order_relaxed);
        // The heartbeat commits every second, so readiness comes back
        // within one once the store does.
        m.store_ready.store(ok, std::memory_order_relaxed);
      });
  BotMoves::tune_workers(s.bot_workers, std::max(1, s.config.bot_threads), s.config.bot_nice);
  s.router =
      std::make_unique<Router>(s.ioc, s.bot_workers, s.config, *s.store, *s.writer, s.metrics);
  s.router->read_store_on(s.record_readers);
  s.sessions =
      std::make_unique<SessionContext>(s.config, s.metrics, *s.router, *s.store, s.record_readers);
  // Bound before the restore (a node's id may name its port); nobody is
  // accepted until it is done.
  if (auto listening = s.listener.listen(s.config.address, s.config.port); !listening) {
    return listening;
  }
  if (redis) {
    const std::string node_id =
        s.config.node_id.empty() ? default_node_id(s.listener.port()) : s.config.node_id;
    s.presence = std::make_unique<ClusterPresence>(
        std::move(redis), node_id, fmt::format("{}:{}", s.config.address, s.listener.port()),
        s.config.node_ttl, s.metrics);
    ClusterPresence* presence = s.presence.get();
    s.router->on_presence(
        [presence](const std::string& player, bool online) { presence->located(player, online); });
    auto everyone = [router = s.router.get()](auto then) {
      router->online_players(std::move(then));
    };
    s.cluster = std::make_shared<ClusterNode>(*s.router, *s.presence, s.config, s.metrics);
    if (auto started = s.cluster->start(); !started) {
      s.listener.close();
      return started;
    }
    if (auto joined = s.presence->start(everyone); !joined) {
      s.cluster->stop();
      s.listener.close();
      return joined;
    }
    s.router->send_elsewhere(s.cluster);
    spdlog::info("cluster: node {} on {}", node_id, redis_label(s.config.redis));
  }
  // A single node restores every unfinished match; a node of a cluster
  // takes over, each under a lease, those that no live node owns.
  s.router->restore(!s.cluster);
  if (s.cluster) {
    std::vector<std::string> unfinished;
    for (const MatchRecord& m : s.store->load_unfinished())
      unfinished.push_back(m.id);
    s.cluster->take_stored(std::move(unfinished));
  }
  s.writer->heartbeat(kStoreHeartbeat);  // after the restore read the last one

  spdlog::info("listening on {}:{} threads={} bot_threads={} bot_nice={} store={}",
               s.config.address, s.listener.port(), s.config.threads, s.config.bot_threads,
               s.config.bot_nice, store_label);
  s.listener.accept(*s.sessions);
  s.running = true;
  for (int i = 0; i < std::max(1, s.config.threads); ++i) {
    s.threads.emplace_back([&s] { s.ioc.run(); });
  }
  return {};
}

void Server::stop() {
  Impl& s = *impl_;
  std::lock_guard lock(s.stop_mutex);
  if (!s.running) {
    if (s.writer) s.writer->stop();
    return;
  }
  s.running = false;
  spdlog::info("stopping: closing the listener, saying goodbye");
  s.listener.close();
  if (s.presence) s.presence->stop();
  s.router->shutdown();
  // Connections that never said hello get no goodbye, only the close.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  // The matches have stopped; once what they wrote is stored, the other
  // nodes take them over (while the goodbyes still go out).
  if (s.cluster) {
    s.writer->flush();
    s.cluster->hand_over();
  }
  s.sessions->close_all();
  // Let the goodbyes go out and the clients close, for a few seconds at most.
  const auto deadline = SteadyClock::now() + std::chrono::seconds(3);
  while (s.sessions->sessions.load() > 0 && SteadyClock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  s.ioc.stop();
  for (auto& t : s.threads)
    t.join();
  s.threads.clear();
  s.bot_workers.join();
  s.record_readers.join();
  s.writer->flush();
  // The links' last messages (the goodbyes) go out.
  if (s.cluster) s.cluster->stop();
  s.writer->stop();
  spdlog::info("stopped: store flushed");
}

}  // namespace inarow::server
