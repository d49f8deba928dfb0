// Messages between the nodes of a cluster, in order, through Redis: each
// node has an inbox, the stream P"inbox:"NODE (P = RedisOptions::prefix),
// that any node appends to and only its node reads. A message is opaque
// bytes (binary-safe): the caller frames its own.
//
// Delivery is at most once and, per sender, in the order it posted: never
// a duplicate, never one out of order. What can be lost is said, not
// hidden: each message carries its sender's node id, a random incarnation
// (one per open()) and a sequence number per (incarnation, destination)
// from 1, and the receiver calls gap(from) before the next message from a
// sender when numbers were skipped (a send that failed, a queue that was
// full, a Redis that restarted or trimmed the inbox) or when the sender
// came back as a new incarnation. The caller resynchronises on a gap (asks
// again for what it holds from that node); it never waits for a resend,
// since nothing is resent: a failed send may have half happened.
//
// Two threads, each on a Redis connection of its own: a sender that takes
// everything queued and sends it in one pipelined round trip (XADD ...
// MAXLEN ~ max_len per message, one PEXPIRE per inbox written), and a
// reader that blocks in XREAD on this node's inbox and trims what it
// consumed. Neither ever runs on the caller's thread: post() only queues.
// After a failed send the sender waits for Redis to answer again before
// it takes the next batch, so what is posted during an outage waits (up
// to max_queued) and goes when Redis is back.
//
// For one Redis (with or without replicas), as the directory.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "inarow/common/expected.h"
#include "inarow/server/redis.h"

namespace inarow::server {

struct NodeBusOptions {
  // How long one XREAD blocks; also how long stop() may wait for the
  // reader to notice. Must be positive (BLOCK 0 would wait for ever).
  std::chrono::milliseconds block{500};
  // Messages posted and not yet sent (the batch in flight included): past
  // it post() drops the message (counted, and the receiver sees a gap).
  std::size_t max_queued = 100000;
  // An inbox nobody writes to for this long goes (PEXPIRE, renewed by every
  // send to it): a dead node's inbox does not stay for ever.
  std::chrono::milliseconds inbox_ttl{600000};
  // XADD ... MAXLEN ~ max_len: an inbox whose node does not read it (dead,
  // or far behind) stays bounded; what is trimmed unread is a gap.
  std::size_t max_len = 1000000;
};

// Counts since open(), each read on its own (not one snapshot).
struct NodeBusStats {
  std::uint64_t sent = 0;            // messages Redis appended to an inbox
  std::uint64_t received = 0;        // messages handed to the message handler
  std::uint64_t dropped = 0;         // never sent: refused by post() (the queue full, or
                                     // the bus stopped), or left when a send failed in stop()
  std::uint64_t gaps = 0;            // gap() calls
  std::uint64_t send_failures = 0;   // messages in failed sends (some may have arrived)
  std::uint64_t discarded = 0;       // entries read and not delivered: malformed, or stale
  std::uint64_t handler_errors = 0;  // exceptions thrown by a handler (caught)
};

class NodeBus {
 public:
  // Called on the reader thread (latency: on the sender thread), one at a
  // time each. A handler that throws is caught and counted
  // (handler_errors), and the bus goes on: a message whose handler threw
  // counts as delivered. Handlers must not call stop() (it joins the
  // thread they run on); post() is fine.
  struct Handlers {
    // A message, in the order its sender posted (per sender). `bytes` lives
    // until the handler returns.
    std::function<void(const std::string& from_node, std::string_view bytes)> message;
    // Messages from `from_node` were lost, or it came back as a new
    // incarnation: called before the next message from it. Never for the
    // first message seen from a node: a receiver that has seen nothing
    // from it has nothing to resynchronise (and what was posted to this
    // node before it opened was meant for its previous incarnation).
    std::function<void(const std::string& from_node)> gap;
    // Optional: the seconds of each round trip of the sender (a batch of
    // messages, or a PING while Redis is away; connecting again
    // included), for a latency histogram. The reader's reads block by
    // design and are not reported.
    std::function<void(double seconds)> latency;
  };

  // Connects twice to `url` (as open_redis does; the reader's command
  // timeout is options.command_timeout + bus.block, since XREAD blocks),
  // empties this node's inbox (what is in it was sent to a previous
  // incarnation of this node id) and starts both threads, reading from
  // the start of the inbox: nothing posted to this node after open()
  // returns is missed. Errors: a bad URL or options, or Redis not
  // answering ("Redis at HOST port PORT: ...", never the password).
  static inarow::expected<std::unique_ptr<NodeBus>, std::string> open(const std::string& url,
                                                                      const RedisOptions& redis,
                                                                      std::string node_id,
                                                                      Handlers handlers,
                                                                      NodeBusOptions options = {});

  ~NodeBus();  // stop()
  NodeBus(const NodeBus&) = delete;
  NodeBus& operator=(const NodeBus&) = delete;

  // Queues `bytes` for `to_node` (this node's own id included: that goes
  // through Redis the same way). Any thread; never waits on Redis. FIFO
  // per destination, across threads in the order the posts took the lock.
  // Past max_queued, or after stop(), the message is dropped and counted.
  void post(const std::string& to_node, std::string bytes);

  // Sends what is queued, then stops the sender and the reader (which may
  // take up to options.block to notice). Does not wait for a Redis that
  // is gone: once a send fails and Redis does not answer at once, what is
  // left is dropped (so bounded by the connection's timeouts). Idempotent;
  // any thread but a handler's.
  void stop();

  NodeBusStats stats() const;
  const std::string& node_id() const { return node_id_; }
  std::uint64_t incarnation() const { return incarnation_; }
  // P"inbox:"NODE: where messages to `node` go.
  std::string inbox(std::string_view node) const;

 private:
  struct Outgoing {
    std::string to;
    std::uint64_t seq = 0;
    std::string bytes;
  };
  // What the reader last delivered from a node.
  struct Peer {
    std::uint64_t incarnation = 0;
    std::uint64_t seq = 0;
  };

  NodeBus(std::unique_ptr<Redis> sender, std::unique_ptr<Redis> reader, std::string node_id,
          Handlers handlers, NodeBusOptions options);

  void send_loop();
  // Sends one batch; false on a transport failure.
  bool send(std::deque<Outgoing>& batch);
  void read_loop();
  // One entry of the inbox (its fields as XREAD gives them), delivered or
  // discarded.
  void deliver(const std::vector<RedisReply>& fields);
  // Calls a handler, catching what it throws.
  template <class F>
  void guarded(F&& f);
  // Waits `d` unless stopping (the reader's flag if `reader`, else the
  // sender's) is or becomes true first.
  void pause(std::chrono::milliseconds d, bool reader);

  std::unique_ptr<Redis> sender_redis_;
  std::unique_ptr<Redis> reader_redis_;
  const std::string node_id_;
  const Handlers handlers_;
  const NodeBusOptions options_;
  const std::string prefix_;
  const std::uint64_t incarnation_;
  const std::string incarnation_text_;

  mutable std::mutex mutex_;           // guards what follows, up to the threads
  std::condition_variable send_wake_;  // a post, or stopping_
  std::condition_variable read_wake_;  // reader_stopping_
  std::deque<Outgoing> queue_;
  std::size_t pending_ = 0;                                  // queued or in flight
  std::unordered_map<std::string, std::uint64_t> last_seq_;  // by destination
  bool stopping_ = false;                                    // the sender's: no more posts
  bool reader_stopping_ = false;

  std::unordered_map<std::string, Peer> peers_;  // the reader thread's alone

  std::atomic<std::uint64_t> sent_{0}, received_{0}, dropped_{0}, gaps_{0}, send_failures_{0},
      discarded_{0}, handler_errors_{0};

  std::mutex stop_mutex_;  // one stop() at a time
  std::thread sender_;
  std::thread reader_;
};

}  // namespace inarow::server
