// Counters the server keeps for GET /metrics (Prometheus text format).
// Lock-free: every field is an atomic bumped where the thing happens.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>

#include "inarow/server/protocol_error.h"

namespace inarow::server {

// A fixed-bucket latency histogram in seconds.
class Histogram {
 public:
  static constexpr std::array<double, 12> kBounds = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                                     0.01,   0.025,   0.05,   0.1,   0.5,    1.0};
  void observe(double seconds);
  void render(std::string& out, const std::string& name, const std::string& help) const;

 private:
  std::array<std::atomic<std::uint64_t>, kBounds.size() + 1> buckets_{};
  std::atomic<std::uint64_t> count_{0};
  std::atomic<std::uint64_t> sum_us_{0};
};

inline constexpr int kMatchKinds = 5;  // v1::MatchKind values

struct Metrics {
  std::atomic<std::int64_t> connections_open{0};
  std::atomic<std::uint64_t> connections_total{0};
  std::atomic<std::uint64_t> connections_rejected{0};
  std::atomic<std::uint64_t> messages_in{0};
  std::atomic<std::uint64_t> messages_out{0};
  std::array<std::atomic<std::uint64_t>, kMatchKinds> matches_started{};
  std::array<std::atomic<std::int64_t>, kMatchKinds> matches_live{};
  std::atomic<std::uint64_t> moves{0};
  std::array<std::atomic<std::uint64_t>, kProtocolErrorCount> errors{};
  Histogram bot_search;
  Histogram store_commit;
  std::atomic<std::uint64_t> store_ops{0};
  std::atomic<std::uint64_t> store_failures{0};
  // Players held in memory, and how many were read back from the store.
  std::atomic<std::int64_t> players_held{0};
  std::atomic<std::uint64_t> player_reads{0};
  // What GET /healthz answers: ready while the store's last commit went
  // through and (on a node of a cluster) Redis answered its last heartbeat.
  std::atomic<bool> store_ready{true};
  std::atomic<bool> redis_ready{true};
  // A node of a cluster (--redis): its Redis commands' times and failures,
  // the nodes alive as its last heartbeat saw them, its heartbeats that
  // renewed its entry, and the times it found the entry lapsed (silent past
  // its TTL, or Redis lost it) and registered again.
  Histogram redis_command;
  std::atomic<std::uint64_t> redis_failures{0};
  std::atomic<std::int64_t> cluster_nodes{0};
  std::atomic<std::uint64_t> heartbeats{0};
  std::atomic<std::uint64_t> node_lapses{0};
  // Matches this node owns (a lease each), its lease renewals and the
  // leases it found taken; client messages it forwarded to other nodes and
  // the ones it serves for their clients; messages between nodes lost (a
  // gap: the clients that used those links resume).
  std::atomic<std::int64_t> matches_owned{0};
  std::atomic<std::uint64_t> lease_renewals{0};
  std::atomic<std::uint64_t> leases_lost{0};
  std::atomic<std::uint64_t> take_overs{0};
  std::atomic<std::uint64_t> forwarded{0};
  std::atomic<std::uint64_t> relayed_in{0};
  std::atomic<std::uint64_t> bus_gaps{0};

  std::string render() const;
};

}  // namespace inarow::server
