// One connection to Redis (hiredis, blocking), for what the nodes of a
// multi-node deployment share (directory.h). Calls are serialised by a
// mutex, so any thread may call; a call blocks its thread for at most
// command_timeout (plus connect_timeout when it has to connect again), so
// an Asio strand should not wait on it.
//
// Failures come in two kinds, both the expected's error: a transport
// failure (the connection lost or refused, a timeout), after which the
// connection is dropped and the NEXT call connects again (AUTH, SELECT
// again) -- no call is retried behind the caller's back, since a command
// that timed out may have run; and Redis's own error reply ("ERR ...",
// "WRONGTYPE ...", a script's error), after which the connection is fine.
// No message ever holds the password.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "inarow/common/expected.h"

struct redisContext;  // hiredis's, kept out of this header

namespace inarow::server {

struct RedisOptions {
  // How long connecting (TCP, AUTH, SELECT, PING) may take.
  std::chrono::milliseconds connect_timeout{2000};
  // How long one command may wait for its reply; past it the connection is
  // dropped, as lost.
  std::chrono::milliseconds command_timeout{2000};
  // Every key the directory writes starts with it: deployments (or tests)
  // sharing one Redis keep apart by it.
  std::string prefix = "inarow:";
};

// What a URL names. Bad URLs are told apart before anything connects.
struct RedisUrl {
  std::string host;  // a name, an IPv4 address, or an IPv6 one (from [..])
  std::uint16_t port = 6379;
  int db = 0;
  std::string user;      // "" for the default user
  std::string password;  // "" for none: no AUTH
};

// redis://[[user]:password@]host[:port][/db]: user and password may be
// percent-encoded (for an '@', ':' or '/' in them). TLS (rediss://),
// query strings and anything after the database are refused. The error
// says what is wrong and never repeats the password.
inarow::expected<RedisUrl, std::string> parse_redis_url(const std::string& url);

// For logs: "Redis at HOST port PORT, database N" (", user U" after it when
// the URL names a user); never the password. For a bad URL, why it is bad.
std::string redis_label(const std::string& url);

// A reply. Redis's error replies are not values: they are the expected's
// error. Status replies ("OK", "PONG") are strings, as bulk strings are.
struct RedisReply {
  enum class Kind { nil, integer, string, array };
  Kind kind = Kind::nil;
  std::int64_t integer = 0;
  std::string string;  // the bytes of a bulk string, or a status's text
  std::vector<RedisReply> array;

  bool is_nil() const { return kind == Kind::nil; }
  bool is_integer() const { return kind == Kind::integer; }
  bool is_string() const { return kind == Kind::string; }
  bool is_array() const { return kind == Kind::array; }

  static RedisReply nil() { return {}; }
  static RedisReply of(std::int64_t v) {
    RedisReply r;
    r.kind = Kind::integer;
    r.integer = v;
    return r;
  }
  static RedisReply of(std::string s) {
    RedisReply r;
    r.kind = Kind::string;
    r.string = std::move(s);
    return r;
  }
};

// A Lua script, known to Redis by the SHA-1 of its source (computed here,
// once): EVALSHA sends the hash, not the source.
class Script {
 public:
  explicit Script(std::string source);
  const std::string& source() const { return source_; }
  const std::string& sha1() const { return sha1_; }  // 40 lowercase hex digits

 private:
  std::string source_;
  std::string sha1_;
};

// The SHA-1 of `bytes`, in lowercase hex (what Redis names scripts by).
std::string sha1_hex(std::string_view bytes);

class Redis {
 public:
  ~Redis();
  Redis(const Redis&) = delete;
  Redis& operator=(const Redis&) = delete;

  // Runs one command: each argument is sent as it is (binary-safe).
  inarow::expected<RedisReply, std::string> command(std::initializer_list<std::string_view> args);
  inarow::expected<RedisReply, std::string> command(const std::vector<std::string>& args);

  // Sends every command, then reads every reply: one round trip for all
  // (the node bus sends a batch of messages so). The replies in order, each
  // a value or that command's error reply (the others run regardless: this
  // is not MULTI). A transport failure fails the whole call and drops the
  // connection, as for command(): some of the commands may have run, and
  // none is retried. No commands: no replies, and nothing is sent.
  inarow::expected<std::vector<inarow::expected<RedisReply, std::string>>, std::string> pipeline(
      const std::vector<std::vector<std::string_view>>& commands);

  // EVALSHA, falling back to EVAL (which also loads it again) on NOSCRIPT:
  // a Redis restarted, or SCRIPT FLUSHed, has forgotten every script.
  inarow::expected<RedisReply, std::string> script(const Script& s,
                                                   const std::vector<std::string>& keys,
                                                   const std::vector<std::string>& args);

  // Called after every command(), pipeline() and script() call, outside the lock, with
  // its duration in seconds (connecting again included) and whether it
  // succeeded (no transport failure, no error reply): for /metrics.
  // Replaces any callback set before. The callback must not throw.
  void on_latency(std::function<void(double seconds, bool ok)> callback);

  // False after a transport failure until a call succeeds again.
  bool healthy() const { return healthy_.load(std::memory_order_relaxed); }
  const RedisOptions& options() const { return options_; }
  // "Redis at HOST port PORT, database N" (redis_label's).
  const std::string& label() const { return label_; }

 private:
  friend inarow::expected<std::unique_ptr<Redis>, std::string> open_redis(const std::string&,
                                                                          RedisOptions);
  Redis(RedisUrl url, RedisOptions options);

  // Connects (if not connected), sends argv and reads the reply; the
  // caller holds mutex_. A transport failure drops the connection.
  inarow::expected<RedisReply, std::string> run(const std::vector<std::string_view>& argv);
  // The same for many commands, sent before any reply is read.
  inarow::expected<std::vector<inarow::expected<RedisReply, std::string>>, std::string> run_all(
      const std::vector<std::vector<std::string_view>>& commands);
  // The transport failure the connection shows, which is dropped: the
  // error every failed call returns.
  std::string fail();
  inarow::expected<void, std::string> connect();
  void disconnect();
  // "Redis at HOST port PORT: " (what every transport error starts with).
  std::string where() const;
  void report(std::chrono::steady_clock::time_point start, bool ok);

  RedisUrl url_;
  RedisOptions options_;
  std::string label_;
  std::mutex mutex_;
  redisContext* context_ = nullptr;  // null: connect on the next call
  std::atomic<bool> healthy_{true};
  std::shared_ptr<const std::function<void(double, bool)>> on_latency_;
};

// Connects to `url`, AUTHs and SELECTs as it says, and PINGs. Errors: a bad
// URL (what is wrong), cannot connect ("Redis at HOST port PORT: <why>"),
// AUTH refused, SELECT refused; never the password.
inarow::expected<std::unique_ptr<Redis>, std::string> open_redis(const std::string& url,
                                                                 RedisOptions options = {});

}  // namespace inarow::server
