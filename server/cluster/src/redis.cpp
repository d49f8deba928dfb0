// The Redis connection over hiredis's blocking API: one redisContext,
// guarded by a mutex, dropped on a transport failure and made again by
// the next call. See redis.h for the promises.
#include "inarow/server/redis.h"

#include <hiredis/hiredis.h>
#include <signal.h>
#include <sys/time.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <optional>

namespace inarow::server {
namespace {

constexpr std::string_view kScheme = "redis://";

std::string bad_url(const std::string& why) {
  return "bad Redis URL: " + why;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// %XX escapes decoded; nullopt for a bad one (the text itself is never
// repeated: it may be a password).
std::optional<std::string> percent_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out.push_back(s[i]);
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    const int hi = hex_digit(s[i + 1]);
    const int lo = hex_digit(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// A host name's or IPv4 address's characters; in brackets, an IPv6
// address's (hex digits, ':', and '.' for an IPv4 tail).
bool host_char(char c, bool bracketed) {
  if (bracketed) return hex_digit(c) >= 0 || c == ':' || c == '.';
  const bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  return alnum || c == '.' || c == '-' || c == '_';
}

timeval to_timeval(std::chrono::milliseconds ms) {
  const auto count = std::max<std::int64_t>(ms.count(), 1);
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(count / 1000);
  tv.tv_usec = static_cast<suseconds_t>((count % 1000) * 1000);
  return tv;
}

// hiredis writes with write(2): to a peer that has gone away that raises
// SIGPIPE, which kills a process that has not ignored it. Like libpq, block
// it in this thread for the call and swallow one the call raised.
class SigpipeGuard {
 public:
  SigpipeGuard() {
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, &old_);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
  }
  ~SigpipeGuard() {
    const int saved = errno;
    if (!was_pending_) {
      sigset_t pending;
      sigpending(&pending);
      if (sigismember(&pending, SIGPIPE) == 1) {
        sigset_t pipe;
        sigemptyset(&pipe);
        sigaddset(&pipe, SIGPIPE);
        const timespec zero{};
        sigtimedwait(&pipe, nullptr, &zero);
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
    errno = saved;
  }
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;

 private:
  sigset_t old_;
  bool was_pending_ = false;
};

RedisReply convert(const redisReply* r) {
  switch (r->type) {
    case REDIS_REPLY_INTEGER:
      return RedisReply::of(static_cast<std::int64_t>(r->integer));
    case REDIS_REPLY_STRING:
    case REDIS_REPLY_STATUS:
      return RedisReply::of(std::string(r->str, r->len));
    case REDIS_REPLY_ARRAY: {
      RedisReply out;
      out.kind = RedisReply::Kind::array;
      out.array.reserve(r->elements);
      for (std::size_t i = 0; i < r->elements; ++i)
        out.array.push_back(convert(r->element[i]));
      return out;
    }
    default:
      return RedisReply::nil();
  }
}

// A reply as a value, or its error reply as the error; freed.
inarow::expected<RedisReply, std::string> take(redisReply* reply) {
  if (reply->type == REDIS_REPLY_ERROR) {
    std::string why(reply->str, reply->len);
    freeReplyObject(reply);
    return inarow::unexpected(std::move(why));
  }
  RedisReply out = convert(reply);
  freeReplyObject(reply);
  return out;
}

// ---- SHA-1 (FIPS 180-4), for script names ----

std::uint32_t rotl(std::uint32_t x, int n) {
  return (x << n) | (x >> (32 - n));
}

}  // namespace

std::string sha1_hex(std::string_view bytes) {
  std::array<std::uint32_t, 5> h{0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u};
  std::string m(bytes);
  const std::uint64_t bits = static_cast<std::uint64_t>(bytes.size()) * 8;
  m.push_back(static_cast<char>(0x80));
  while (m.size() % 64 != 56)
    m.push_back('\0');
  for (int i = 7; i >= 0; --i)
    m.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
  for (std::size_t block = 0; block < m.size(); block += 64) {
    std::array<std::uint32_t, 80> w{};
    for (std::size_t i = 0; i < 16; ++i) {
      const auto* p = reinterpret_cast<const unsigned char*>(m.data() + block + 4 * i);
      w[i] = (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) |
             (std::uint32_t{p[2]} << 8) | std::uint32_t{p[3]};
    }
    for (std::size_t i = 16; i < 80; ++i)
      w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (std::size_t i = 0; i < 80; ++i) {
      std::uint32_t f = 0, k = 0;
      if (i < 20) {
        f = (b & c) | (~b & d);
        k = 0x5A827999u;
      } else if (i < 40) {
        f = b ^ c ^ d;
        k = 0x6ED9EBA1u;
      } else if (i < 60) {
        f = (b & c) | (b & d) | (c & d);
        k = 0x8F1BBCDCu;
      } else {
        f = b ^ c ^ d;
        k = 0xCA62C1D6u;
      }
      const std::uint32_t t = rotl(a, 5) + f + e + k + w[i];
      e = d;
      d = c;
      c = rotl(b, 30);
      b = a;
      a = t;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::uint32_t v : h) {
    for (int i = 7; i >= 0; --i)
      out.push_back(kHex[(v >> (4 * i)) & 0xf]);
  }
  return out;
}

Script::Script(std::string source) : source_(std::move(source)), sha1_(sha1_hex(source_)) {}

inarow::expected<RedisUrl, std::string> parse_redis_url(const std::string& url) {
  const std::string_view text(url);
  if (text.starts_with("rediss://")) {
    return inarow::unexpected(bad_url("TLS (rediss://) is not supported"));
  }
  if (!text.starts_with(kScheme)) return inarow::unexpected(bad_url("it must start with redis://"));
  std::string_view rest = text.substr(kScheme.size());
  RedisUrl out;
  // The user and password end at the LAST '@': a host, port or database
  // has none, so an '@', '/' or ':' in a password needs no escaping and
  // never spills into what follows (nor into an error message).
  if (const auto at = rest.rfind('@'); at != std::string_view::npos) {
    const std::string_view userinfo = rest.substr(0, at);
    rest = rest.substr(at + 1);
    const auto colon = userinfo.find(':');
    if (colon == std::string_view::npos) {
      return inarow::unexpected(bad_url("what comes before '@' must be [user]:password"));
    }
    auto user = percent_decode(userinfo.substr(0, colon));
    auto password = percent_decode(userinfo.substr(colon + 1));
    if (!user || !password) {
      return inarow::unexpected(bad_url("a bad %-escape in the user or password"));
    }
    if (password->empty()) return inarow::unexpected(bad_url("an empty password"));
    out.user = std::move(*user);
    out.password = std::move(*password);
  }
  const auto end = rest.find_first_of("/?#");
  std::string_view hostport = rest.substr(0, end);
  const std::string_view tail = end == std::string_view::npos ? "" : rest.substr(end);
  std::string_view port_text;
  bool has_port = false;
  if (hostport.starts_with('[')) {  // an IPv6 address
    const auto close = hostport.find(']');
    if (close == std::string_view::npos) return inarow::unexpected(bad_url("no ']' after '['"));
    out.host = std::string(hostport.substr(1, close - 1));
    const std::string_view after = hostport.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') {
        return inarow::unexpected(
            bad_url("unexpected '" + std::string(after) + "' after the host"));
      }
      port_text = after.substr(1);
      has_port = true;
    }
    for (char c : out.host) {
      if (!host_char(c, true)) return inarow::unexpected(bad_url("a bad IPv6 address"));
    }
  } else {
    const auto colon = hostport.find(':');
    out.host = std::string(hostport.substr(0, colon));
    if (colon != std::string_view::npos) {
      port_text = hostport.substr(colon + 1);
      has_port = true;
    }
    for (char c : out.host) {
      if (!host_char(c, false)) {
        return inarow::unexpected(bad_url("a bad character in the host '" + out.host + "'"));
      }
    }
  }
  if (out.host.empty()) return inarow::unexpected(bad_url("no host"));
  if (has_port) {
    const std::string shown(port_text);
    if (!all_digits(port_text) || port_text.size() > 5 || std::stoi(shown) < 1 ||
        std::stoi(shown) > 65535) {
      return inarow::unexpected(
          bad_url("the port must be a number from 1 to 65535, not '" + shown + "'"));
    }
    out.port = static_cast<std::uint16_t>(std::stoi(shown));
  }
  if (!tail.empty()) {
    if (tail[0] != '/') {
      return inarow::unexpected(
          bad_url("unexpected '" + std::string(tail) + "' (no query or fragment is read)"));
    }
    const std::string_view db = tail.substr(1);
    const auto slash = db.find_first_of("/?#");
    if (slash != std::string_view::npos) {
      return inarow::unexpected(
          bad_url("unexpected '" + std::string(db.substr(slash)) + "' after the database"));
    }
    if (!db.empty()) {
      if (!all_digits(db) || db.size() > 9) {
        return inarow::unexpected(
            bad_url("the database must be a number from 0, not '" + std::string(db) + "'"));
      }
      out.db = std::stoi(std::string(db));
    }
  }
  return out;
}

std::string redis_label(const std::string& url) {
  auto parsed = parse_redis_url(url);
  if (!parsed) return parsed.error();
  std::string label = "Redis at " + parsed->host + " port " + std::to_string(parsed->port) +
                      ", database " + std::to_string(parsed->db);
  if (!parsed->user.empty()) label += ", user " + parsed->user;
  return label;
}

Redis::Redis(RedisUrl url, RedisOptions options)
    : url_(std::move(url)), options_(std::move(options)) {
  label_ = "Redis at " + url_.host + " port " + std::to_string(url_.port) + ", database " +
           std::to_string(url_.db);
  if (!url_.user.empty()) label_ += ", user " + url_.user;
}

Redis::~Redis() {
  disconnect();
}

std::string Redis::where() const {
  return "Redis at " + url_.host + " port " + std::to_string(url_.port) + ": ";
}

void Redis::disconnect() {
  if (context_) redisFree(context_);
  context_ = nullptr;
}

inarow::expected<void, std::string> Redis::connect() {
  // Whatever Redis answers to AUTH, it is not repeated with the password
  // in it (Redis does not echo it; this is in case one ever does).
  const auto scrub = [this](std::string s) {
    if (!url_.password.empty()) {
      for (auto at = s.find(url_.password); at != std::string::npos; at = s.find(url_.password))
        s.replace(at, url_.password.size(), "***");
    }
    return s;
  };
  SigpipeGuard guard;
  redisContext* c =
      redisConnectWithTimeout(url_.host.c_str(), url_.port, to_timeval(options_.connect_timeout));
  if (!c) return inarow::unexpected(where() + "cannot allocate a connection");
  if (c->err) {
    std::string why = c->errstr;
    redisFree(c);
    return inarow::unexpected(where() + scrub(why));
  }
  // The set-up waits no longer than connecting may take.
  redisSetTimeout(c, to_timeval(options_.connect_timeout));
  redisEnableKeepAlive(c);
  context_ = c;
  if (!url_.password.empty()) {
    std::vector<std::string_view> auth{"AUTH"};
    if (!url_.user.empty()) auth.push_back(url_.user);
    auth.push_back(url_.password);
    auto r = run(auth);
    if (!r) {
      disconnect();
      if (r.error().starts_with(where())) return inarow::unexpected(scrub(r.error()));
      return inarow::unexpected(where() + "AUTH refused: " + scrub(r.error()));
    }
  }
  if (url_.db != 0) {
    const std::string db = std::to_string(url_.db);
    auto r = run({"SELECT", db});
    if (!r) {
      disconnect();
      if (r.error().starts_with(where())) return inarow::unexpected(r.error());
      return inarow::unexpected(where() + "SELECT " + db + " refused: " + r.error());
    }
  }
  if (context_) redisSetTimeout(context_, to_timeval(options_.command_timeout));
  return {};
}

inarow::expected<RedisReply, std::string> Redis::run(const std::vector<std::string_view>& argv) {
  if (!context_) {
    if (auto made = connect(); !made) {
      healthy_.store(false, std::memory_order_relaxed);
      return inarow::unexpected(made.error());
    }
  }
  std::vector<const char*> data;
  std::vector<std::size_t> sizes;
  data.reserve(argv.size());
  sizes.reserve(argv.size());
  for (const auto& a : argv) {
    data.push_back(a.data());
    sizes.push_back(a.size());
  }
  redisReply* reply = nullptr;
  {
    SigpipeGuard guard;
    reply = static_cast<redisReply*>(
        redisCommandArgv(context_, static_cast<int>(argv.size()), data.data(), sizes.data()));
  }
  if (!reply) return inarow::unexpected(fail());
  // A reply came back: the connection works, whatever the reply says.
  healthy_.store(true, std::memory_order_relaxed);
  return take(reply);
}

inarow::expected<std::vector<inarow::expected<RedisReply, std::string>>, std::string>
Redis::run_all(const std::vector<std::vector<std::string_view>>& commands) {
  using Replies = std::vector<inarow::expected<RedisReply, std::string>>;
  if (commands.empty()) return Replies{};
  if (!context_) {
    if (auto made = connect(); !made) {
      healthy_.store(false, std::memory_order_relaxed);
      return inarow::unexpected(made.error());
    }
  }
  Replies out;
  out.reserve(commands.size());
  SigpipeGuard guard;
  std::vector<const char*> data;
  std::vector<std::size_t> sizes;
  for (const auto& argv : commands) {
    data.clear();
    sizes.clear();
    for (const auto& a : argv) {
      data.push_back(a.data());
      sizes.push_back(a.size());
    }
    // Only appended to the output buffer here (it fails only when out of
    // memory); the first redisGetReply writes it all.
    if (redisAppendCommandArgv(context_, static_cast<int>(argv.size()), data.data(),
                               sizes.data()) != REDIS_OK) {
      return inarow::unexpected(fail());
    }
  }
  for (std::size_t i = 0; i < commands.size(); ++i) {
    void* reply = nullptr;
    if (redisGetReply(context_, &reply) != REDIS_OK || !reply) return inarow::unexpected(fail());
    healthy_.store(true, std::memory_order_relaxed);
    out.push_back(take(static_cast<redisReply*>(reply)));
  }
  return out;
}

std::string Redis::fail() {
  std::string why = context_->errstr[0] ? context_->errstr : "the connection failed";
  // A read past SO_RCVTIMEO fails with EAGAIN: say so plainly.
  if (context_->err == REDIS_ERR_IO && why == std::strerror(EAGAIN)) {
    why = "no reply within " + std::to_string(options_.command_timeout.count()) + " ms";
  }
  disconnect();
  healthy_.store(false, std::memory_order_relaxed);
  return where() + why + " (connection dropped)";
}

void Redis::report(std::chrono::steady_clock::time_point start, bool ok) {
  std::shared_ptr<const std::function<void(double, bool)>> callback;
  {
    std::lock_guard lock(mutex_);
    callback = on_latency_;
  }
  if (callback && *callback) {
    (*callback)(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                ok);
  }
}

inarow::expected<RedisReply, std::string> Redis::command(
    std::initializer_list<std::string_view> args) {
  const auto start = std::chrono::steady_clock::now();
  auto out = [&] {
    std::lock_guard lock(mutex_);
    return run(std::vector<std::string_view>(args));
  }();
  report(start, out.has_value());
  return out;
}

inarow::expected<RedisReply, std::string> Redis::command(const std::vector<std::string>& args) {
  const auto start = std::chrono::steady_clock::now();
  auto out = [&] {
    std::lock_guard lock(mutex_);
    return run(std::vector<std::string_view>(args.begin(), args.end()));
  }();
  report(start, out.has_value());
  return out;
}

inarow::expected<std::vector<inarow::expected<RedisReply, std::string>>, std::string>
Redis::pipeline(const std::vector<std::vector<std::string_view>>& commands) {
  const auto start = std::chrono::steady_clock::now();
  auto out = [&] {
    std::lock_guard lock(mutex_);
    return run_all(commands);
  }();
  const bool ok = out && std::all_of(out->begin(), out->end(),
                                     [](const auto& reply) { return reply.has_value(); });
  report(start, ok);
  return out;
}

inarow::expected<RedisReply, std::string> Redis::script(const Script& s,
                                                        const std::vector<std::string>& keys,
                                                        const std::vector<std::string>& args) {
  const auto start = std::chrono::steady_clock::now();
  const std::string count = std::to_string(keys.size());
  std::vector<std::string_view> argv{"EVALSHA", s.sha1(), count};
  argv.insert(argv.end(), keys.begin(), keys.end());
  argv.insert(argv.end(), args.begin(), args.end());
  auto out = [&] {
    std::lock_guard lock(mutex_);
    auto r = run(argv);
    if (!r && r.error().starts_with("NOSCRIPT")) {
      argv[0] = "EVAL";
      argv[1] = s.source();
      r = run(argv);
    }
    return r;
  }();
  report(start, out.has_value());
  return out;
}

void Redis::on_latency(std::function<void(double seconds, bool ok)> callback) {
  auto shared = std::make_shared<const std::function<void(double, bool)>>(std::move(callback));
  std::lock_guard lock(mutex_);
  on_latency_ = std::move(shared);
}

inarow::expected<std::unique_ptr<Redis>, std::string> open_redis(const std::string& url,
                                                                 RedisOptions options) {
  auto parsed = parse_redis_url(url);
  if (!parsed) return inarow::unexpected(parsed.error());
  std::unique_ptr<Redis> redis(new Redis(std::move(*parsed), std::move(options)));
  {
    std::lock_guard lock(redis->mutex_);
    if (auto made = redis->connect(); !made) return inarow::unexpected(made.error());
    auto pong = redis->run({"PING"});
    if (!pong) {
      const std::string& why = pong.error();
      if (why.starts_with(redis->where())) return inarow::unexpected(why);
      return inarow::unexpected(redis->where() + why);
    }
  }
  return redis;
}

}  // namespace inarow::server
