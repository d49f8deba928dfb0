// The node bus's two threads. An inbox entry holds four fields: f (the
// sender's node id), i (its incarnation), s (the sequence number) and b
// (the bytes); numbers in decimal.
//
// The reader trims with XTRIM MINID (the id after the last one it read),
// not XDEL: one short command whatever the batch, and it frees the
// stream's nodes whole, where XDEL only marks entries deleted until every
// entry of a node is. It removes nothing unread: Redis gives entries
// increasing ids as it appends them, so whatever is below that id was in
// the stream when it was read, and was read. The trim goes in the same
// round trip as the next XREAD.
#include "inarow/server/node_bus.h"

#include <charconv>
#include <limits>
#include <random>
#include <utility>

#include "inarow/common/splitmix.h"

namespace inarow::server {
namespace {

// A batch stays one modest round trip: Redis reads a pipeline whole before
// it answers, and a big one holds up every other client of it.
constexpr std::size_t kBatchMessages = 1024;
constexpr std::size_t kBatchBytes = 8 << 20;  // at least one message, however big
// After a failed send or read: Redis is gone or going; do not spin on it.
constexpr std::chrono::milliseconds kRetryPause{200};
constexpr std::string_view kReadCount = "512";

std::uint64_t random_incarnation() {
  std::random_device device;
  const std::uint64_t drawn = (std::uint64_t{device()} << 32) ^ std::uint64_t{device()};
  // The clock too, in case random_device is a fixed sequence somewhere.
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  return drawn ^ splitmix64(static_cast<std::uint64_t>(now));
}

bool parse_u64(std::string_view s, std::uint64_t& out) {
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return !s.empty() && r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// The stream id right after `id` ("MS-SEQ"): XTRIM MINID drops what is
// below it, `id` included. "" if `id` is not one.
std::string next_id(std::string_view id) {
  const auto dash = id.find('-');
  std::uint64_t ms = 0, seq = 0;
  if (dash == std::string_view::npos || !parse_u64(id.substr(0, dash), ms) ||
      !parse_u64(id.substr(dash + 1), seq)) {
    return {};
  }
  if (seq == std::numeric_limits<std::uint64_t>::max()) {
    return std::to_string(ms + 1) + "-0";
  }
  return std::to_string(ms) + "-" + std::to_string(seq + 1);
}

std::string error(std::string why) {
  return "node bus: " + why;
}

}  // namespace

template <class F>
void NodeBus::guarded(F&& f) {
  try {
    f();
  } catch (...) {
    handler_errors_.fetch_add(1, std::memory_order_relaxed);
  }
}

inarow::expected<std::unique_ptr<NodeBus>, std::string> NodeBus::open(const std::string& url,
                                                                      const RedisOptions& redis,
                                                                      std::string node_id,
                                                                      Handlers handlers,
                                                                      NodeBusOptions options) {
  if (node_id.empty()) return inarow::unexpected(error("a node id must not be empty"));
  if (options.block.count() <= 0) {
    return inarow::unexpected(error("the read's block time must be positive"));
  }
  if (options.inbox_ttl.count() <= 0) {
    return inarow::unexpected(error("the inbox TTL must be positive"));
  }
  if (options.max_queued == 0 || options.max_len == 0) {
    return inarow::unexpected(error("max_queued and max_len must be positive"));
  }
  auto sender = open_redis(url, redis);
  if (!sender) return inarow::unexpected(std::move(sender).error());
  // The reader's XREAD waits `block` before Redis answers at all.
  RedisOptions reader_options = redis;
  reader_options.command_timeout += options.block;
  auto reader = open_redis(url, reader_options);
  if (!reader) return inarow::unexpected(std::move(reader).error());
  // Whatever is in the inbox was sent to an earlier incarnation of this
  // node id: this one reads from an empty inbox, from its start.
  auto emptied = (*reader)->command({"DEL", redis.prefix + "inbox:" + node_id});
  if (!emptied) return inarow::unexpected(std::move(emptied).error());
  return std::unique_ptr<NodeBus>(new NodeBus(std::move(*sender), std::move(*reader),
                                              std::move(node_id), std::move(handlers), options));
}

NodeBus::NodeBus(std::unique_ptr<Redis> sender, std::unique_ptr<Redis> reader, std::string node_id,
                 Handlers handlers, NodeBusOptions options)
    : sender_redis_(std::move(sender)),
      reader_redis_(std::move(reader)),
      node_id_(std::move(node_id)),
      handlers_(std::move(handlers)),
      options_(options),
      prefix_(sender_redis_->options().prefix),
      incarnation_(random_incarnation()),
      incarnation_text_(std::to_string(incarnation_)) {
  if (handlers_.latency) {
    sender_redis_->on_latency(
        [this](double seconds, bool) { guarded([&] { handlers_.latency(seconds); }); });
  }
  sender_ = std::thread([this] { send_loop(); });
  reader_ = std::thread([this] { read_loop(); });
}

NodeBus::~NodeBus() {
  stop();
}

std::string NodeBus::inbox(std::string_view node) const {
  std::string key = prefix_;
  key += "inbox:";
  key += node;
  return key;
}

void NodeBus::post(const std::string& to_node, std::string bytes) {
  {
    std::lock_guard lock(mutex_);
    if (!stopping_) {
      // The number is taken even when the message is dropped: the receiver
      // sees the hole and is told of the gap.
      const std::uint64_t seq = ++last_seq_[to_node];
      if (pending_ < options_.max_queued) {
        queue_.push_back({to_node, seq, std::move(bytes)});
        ++pending_;
        send_wake_.notify_one();
        return;
      }
    }
  }
  dropped_.fetch_add(1, std::memory_order_relaxed);
}

void NodeBus::stop() {
  std::lock_guard once(stop_mutex_);
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  send_wake_.notify_all();
  // The sender first: a message to this node itself may still be read.
  if (sender_.joinable()) sender_.join();
  {
    std::lock_guard lock(mutex_);
    reader_stopping_ = true;
  }
  read_wake_.notify_all();
  if (reader_.joinable()) reader_.join();
}

NodeBusStats NodeBus::stats() const {
  NodeBusStats s;
  s.sent = sent_.load(std::memory_order_relaxed);
  s.received = received_.load(std::memory_order_relaxed);
  s.dropped = dropped_.load(std::memory_order_relaxed);
  s.gaps = gaps_.load(std::memory_order_relaxed);
  s.send_failures = send_failures_.load(std::memory_order_relaxed);
  s.discarded = discarded_.load(std::memory_order_relaxed);
  s.handler_errors = handler_errors_.load(std::memory_order_relaxed);
  return s;
}

void NodeBus::pause(std::chrono::milliseconds d, bool reader) {
  std::unique_lock lock(mutex_);
  (reader ? read_wake_ : send_wake_).wait_for(lock, d, [&] {
    return reader ? reader_stopping_ : stopping_;
  });
}

// ---- The sender ----

void NodeBus::send_loop() {
  // After a failed send, no batch is taken until Redis answers a PING:
  // what is posted meanwhile waits in the queue (up to max_queued) rather
  // than going into sends bound to fail. So an outage costs one batch.
  bool broken = false;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      send_wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and everything sent
    }
    if (broken) {
      broken = !sender_redis_->command({"PING"});
      if (broken) {
        {
          std::lock_guard lock(mutex_);
          if (stopping_) {
            // Stopping does not wait for Redis: what is left is not sent.
            dropped_.fetch_add(queue_.size(), std::memory_order_relaxed);
            pending_ -= queue_.size();
            queue_.clear();
            return;
          }
        }
        pause(kRetryPause, false);
        continue;
      }
    }
    std::deque<Outgoing> batch;
    {
      std::lock_guard lock(mutex_);
      std::size_t bytes = 0;
      while (!queue_.empty() && batch.size() < kBatchMessages &&
             (batch.empty() || bytes + queue_.front().bytes.size() <= kBatchBytes)) {
        bytes += queue_.front().bytes.size();
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
    }
    broken = !send(batch);
    std::lock_guard lock(mutex_);
    pending_ -= batch.size();
  }
}

bool NodeBus::send(std::deque<Outgoing>& batch) {
  // The strings the commands view: sized first, never moved after.
  const std::string max_len = std::to_string(options_.max_len);
  const std::string ttl = std::to_string(options_.inbox_ttl.count());
  std::vector<std::string> keys(batch.size());
  std::vector<std::string> seqs(batch.size());
  std::vector<std::vector<std::string_view>> commands;
  commands.reserve(batch.size() * 2);
  std::vector<std::string_view> inboxes;  // each once, in the order first written
  for (std::size_t i = 0; i < batch.size(); ++i) {
    keys[i] = inbox(batch[i].to);
    seqs[i] = std::to_string(batch[i].seq);
    commands.push_back({"XADD", keys[i], "MAXLEN", "~", max_len, "*", "f", node_id_, "i",
                        incarnation_text_, "s", seqs[i], "b", batch[i].bytes});
    bool known = false;
    for (std::string_view k : inboxes)
      known = known || k == keys[i];
    if (!known) inboxes.push_back(keys[i]);
  }
  for (std::string_view k : inboxes)
    commands.push_back({"PEXPIRE", k, ttl});
  auto replies = sender_redis_->pipeline(commands);
  if (!replies) {
    // Not retried: some of the XADDs may have run. Their numbers are
    // spent, so the receivers see the gap either way.
    send_failures_.fetch_add(batch.size(), std::memory_order_relaxed);
    return false;
  }
  for (std::size_t i = 0; i < batch.size(); ++i) {
    ((*replies)[i] ? sent_ : send_failures_).fetch_add(1, std::memory_order_relaxed);
  }
  return true;
}

// ---- The reader ----

void NodeBus::read_loop() {
  const std::string key = inbox(node_id_);
  const std::string block = std::to_string(options_.block.count());
  std::string last_id = "0-0";
  std::string trim_below;  // the id after the last one read, until a trim succeeds
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (reader_stopping_) return;
    }
    std::vector<std::vector<std::string_view>> commands;
    if (!trim_below.empty()) commands.push_back({"XTRIM", key, "MINID", trim_below});
    commands.push_back(
        {"XREAD", "COUNT", kReadCount, "BLOCK", block, "STREAMS", key, std::string_view(last_id)});
    auto replies = reader_redis_->pipeline(commands);
    if (!replies) {
      // Redis gone: on from the last id once it is back. Had it lost the
      // stream meanwhile, the next message's number tells.
      pause(kRetryPause, true);
      continue;
    }
    if (replies->size() == 2 && replies->front()) trim_below.clear();
    const auto& read = replies->back();
    if (!read) {  // an error reply (the key is not a stream?): do not spin
      pause(kRetryPause, true);
      continue;
    }
    if (read->is_nil()) continue;  // nothing within `block`
    // [[key, [[id, [field, value, ...]], ...]]]
    if (!read->is_array() || read->array.size() != 1 || !read->array[0].is_array() ||
        read->array[0].array.size() != 2 || !read->array[0].array[1].is_array()) {
      pause(kRetryPause, true);
      continue;
    }
    for (const RedisReply& entry : read->array[0].array[1].array) {
      if (!entry.is_array() || entry.array.size() != 2 || !entry.array[0].is_string()) {
        discarded_.fetch_add(1, std::memory_order_relaxed);
        continue;
      }
      last_id = entry.array[0].string;
      if (entry.array[1].is_array()) {
        deliver(entry.array[1].array);
      } else {
        discarded_.fetch_add(1, std::memory_order_relaxed);
      }
    }
    trim_below = next_id(last_id);
  }
}

void NodeBus::deliver(const std::vector<RedisReply>& fields) {
  const std::string* from = nullptr;
  const std::string* incarnation_text = nullptr;
  const std::string* seq_text = nullptr;
  const std::string* bytes = nullptr;
  for (std::size_t i = 0; i + 1 < fields.size(); i += 2) {
    if (!fields[i].is_string() || !fields[i + 1].is_string()) continue;
    const std::string& name = fields[i].string;
    const std::string* value = &fields[i + 1].string;
    if (name == "f") from = value;
    if (name == "i") incarnation_text = value;
    if (name == "s") seq_text = value;
    if (name == "b") bytes = value;
  }
  std::uint64_t incarnation = 0, seq = 0;
  if (!from || !incarnation_text || !seq_text || !bytes ||
      !parse_u64(*incarnation_text, incarnation) || !parse_u64(*seq_text, seq) || seq == 0) {
    discarded_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  auto [it, first] = peers_.try_emplace(*from);
  Peer& peer = it->second;
  if (!first) {
    bool gap = false;
    if (incarnation != peer.incarnation) {
      gap = true;  // the sender came back
    } else if (seq <= peer.seq) {
      // Already delivered, or behind one that was (a send that failed
      // late, landing after the next): out of order is never delivered.
      discarded_.fetch_add(1, std::memory_order_relaxed);
      return;
    } else {
      gap = seq != peer.seq + 1;
    }
    if (gap) {
      gaps_.fetch_add(1, std::memory_order_relaxed);
      if (handlers_.gap) guarded([&] { handlers_.gap(*from); });
    }
  }
  peer = {incarnation, seq};
  // Counted before the handler runs, as a gap is: whoever sees a message's
  // effect sees it counted too.
  received_.fetch_add(1, std::memory_order_relaxed);
  if (handlers_.message) guarded([&] { handlers_.message(*from, *bytes); });
}

}  // namespace inarow::server
