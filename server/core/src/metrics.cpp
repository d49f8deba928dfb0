#include "inarow/server/metrics.h"

#include <fmt/format.h>

namespace inarow::server {
namespace {

constexpr std::array<const char*, kMatchKinds> kKindNames = {"unspecified", "seek", "bot",
                                                             "private", "bot_vs_bot"};

template <class T>
void counter(std::string& out, const char* name, const char* help, const char* type, T value) {
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n{} {}\n", name, help, name, type, name, value);
}

}  // namespace

void Histogram::observe(double seconds) {
  std::size_t i = 0;
  while (i < kBounds.size() && seconds > kBounds[i])
    ++i;
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
  sum_us_.fetch_add(static_cast<std::uint64_t>(seconds * 1e6), std::memory_order_relaxed);
}

void Histogram::render(std::string& out, const std::string& name, const std::string& help) const {
  out += fmt::format("# HELP {} {}\n# TYPE {} histogram\n", name, help, name);
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < kBounds.size(); ++i) {
    cumulative += buckets_[i].load(std::memory_order_relaxed);
    out += fmt::format("{}_bucket{{le=\"{}\"}} {}\n", name, kBounds[i], cumulative);
  }
  cumulative += buckets_[kBounds.size()].load(std::memory_order_relaxed);
  out += fmt::format("{}_bucket{{le=\"+Inf\"}} {}\n", name, cumulative);
  out += fmt::format("{}_sum {}\n", name, static_cast<double>(sum_us_.load()) / 1e6);
  out += fmt::format("{}_count {}\n", name, count_.load());
}

std::string Metrics::render() const {
  std::string out;
  counter(out, "inarow_connections", "Open WebSocket connections.", "gauge",
          connections_open.load());
  counter(out, "inarow_connections_total", "WebSocket connections accepted.", "counter",
          connections_total.load());
  counter(out, "inarow_connections_rejected_total", "Connections refused by the per-address limit.",
          "counter", connections_rejected.load());
  counter(out, "inarow_messages_in_total", "Client messages received.", "counter",
          messages_in.load());
  counter(out, "inarow_messages_out_total", "Server messages sent.", "counter",
          messages_out.load());
  out += "# HELP inarow_matches_started_total Matches started, by kind.\n";
  out += "# TYPE inarow_matches_started_total counter\n";
  for (int k = 1; k < kMatchKinds; ++k) {
    out += fmt::format("inarow_matches_started_total{{kind=\"{}\"}} {}\n", kKindNames[k],
                       matches_started[k].load());
  }
  out += "# HELP inarow_matches_live Matches being played, by kind.\n";
  out += "# TYPE inarow_matches_live gauge\n";
  for (int k = 1; k < kMatchKinds; ++k) {
    out += fmt::format("inarow_matches_live{{kind=\"{}\"}} {}\n", kKindNames[k],
                       matches_live[k].load());
  }
  counter(out, "inarow_moves_total", "Moves made (people and bots).", "counter", moves.load());
  out += "# HELP inarow_errors_total Errors sent to clients, by code.\n";
  out += "# TYPE inarow_errors_total counter\n";
  for (int e = 1; e < kProtocolErrorCount; ++e) {
    if (to_string(static_cast<ProtocolError>(e)) == "unknown") continue;  // a code not in use
    out += fmt::format("inarow_errors_total{{code=\"{}\"}} {}\n",
                       to_string(static_cast<ProtocolError>(e)), errors[e].load());
  }
  bot_search.render(out, "inarow_bot_search_seconds", "Time bots spent choosing a move.");
  store_commit.render(out, "inarow_store_commit_seconds", "Time per store transaction.");
  counter(out, "inarow_store_ops_total", "Operations written to the store.", "counter",
          store_ops.load());
  counter(out, "inarow_store_failures_total", "Store transactions that failed.", "counter",
          store_failures.load());
  counter(out, "inarow_players_held", "Players held in memory (the rest are in the store).",
          "gauge", players_held.load());
  counter(out, "inarow_player_reads_total", "Players read back from the store.", "counter",
          player_reads.load());
  out += "# HELP inarow_ready Whether a part the server needs answers (0: /healthz is 503).\n";
  out += "# TYPE inarow_ready gauge\n";
  out += fmt::format("inarow_ready{{part=\"store\"}} {}\n", store_ready.load() ? 1 : 0);
  out += fmt::format("inarow_ready{{part=\"redis\"}} {}\n", redis_ready.load() ? 1 : 0);
  redis_command.render(out, "inarow_redis_command_seconds",
                       "Time per Redis command (a cluster node).");
  counter(out, "inarow_redis_failures_total", "Redis commands that failed.", "counter",
          redis_failures.load());
  counter(out, "inarow_cluster_nodes",
          "Nodes alive in the cluster, as the last heartbeat saw them.", "gauge",
          cluster_nodes.load());
  counter(out, "inarow_heartbeats_total",
          "Heartbeats that renewed this node's entry in the cluster's directory.", "counter",
          heartbeats.load());
  counter(out, "inarow_node_lapses_total",
          "Times this node found its entry lapsed (silent past its TTL, or Redis lost it) and "
          "registered again.",
          "counter", node_lapses.load());
  counter(out, "inarow_matches_owned", "Live matches this node owns (holds the lease of).", "gauge",
          matches_owned.load());
  counter(out, "inarow_lease_renewals_total", "Match leases this node renewed.", "counter",
          lease_renewals.load());
  counter(out, "inarow_leases_lost_total", "Match leases this node found lapsed or taken.",
          "counter", leases_lost.load());
  counter(out, "inarow_take_overs_total",
          "Live matches this node took over from a node that died or stopped.", "counter",
          take_overs.load());
  counter(out, "inarow_forwarded_total",
          "Client messages this node forwarded to the node owning their match.", "counter",
          forwarded.load());
  counter(out, "inarow_relayed_in_total",
          "Client messages of other nodes' clients this node served for them.", "counter",
          relayed_in.load());
  counter(out, "inarow_bus_gaps_total",
          "Times messages from another node were lost (its links' clients resume).", "counter",
          bus_gaps.load());
  return out;
}

}  // namespace inarow::server
