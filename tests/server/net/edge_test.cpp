// The server's edges: what it does when descriptors run out, with
// connections that never finish a request, with HTTP it cannot or will not
// serve, with a flood that carries request ids, and with a peer that stops
// answering pings. Real sockets on 127.0.0.1; the descriptor tests run a real
// inarow-server process under a low RLIMIT_NOFILE.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "inarow/testing/eventually.h"
#include "inarow/testing/messages.h"
#include "inarow/testing/process.h"
#include "inarow/testing/temp_dir.h"
#include "inarow/testing/test_server.h"
#include "inarow/testing/ws_client.h"

namespace inarow::testing {
namespace {

using Clock = std::chrono::steady_clock;

// ---------------------------------------------------------------- raw TCP

// A plain TCP connection to 127.0.0.1:port, optionally from another loopback
// address (Linux routes all of 127/8 to lo), for bytes the HTTP client of
// the harness would never send.
class RawSocket {
 public:
  explicit RawSocket(std::uint16_t port, const char* from = nullptr) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) return;
    if (from) {
      sockaddr_in local{};
      local.sin_family = AF_INET;
      ::inet_pton(AF_INET, from, &local.sin_addr);
      if (::bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) {
        reset();
        return;
      }
    }
    sockaddr_in server{};
    server.sin_family = AF_INET;
    server.sin_port = htons(port);
    ::inet_pton(AF_INET, "127.0.0.1", &server.sin_addr);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&server), sizeof server) != 0) reset();
  }
  ~RawSocket() { reset(); }
  RawSocket(RawSocket&& o) noexcept { *this = std::move(o); }
  RawSocket& operator=(RawSocket&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = std::exchange(o.fd_, -1);
      in_ = std::move(o.in_);
      closed_ = o.closed_;
      closed_at_ = o.closed_at_;
    }
    return *this;
  }
  RawSocket(const RawSocket&) = delete;

  bool connected() const { return fd_ >= 0; }
  int fd() const { return fd_; }

  bool send(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }

  // Read until `stop` holds of what came, the peer closes, or the time is up.
  // What came (closed_ tells whether the peer closed).
  std::string read_until(const std::function<bool(const std::string&)>& stop,
                         std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    while (!stop(in_) && !closed_) {
      // Poll at least once, even when the time is already up.
      const auto left = std::max<long>(
          0,
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count());
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left)) > 0) {
        char chunk[4096];
        const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
        if (n <= 0) {
          closed_ = true;
          closed_at_ = Clock::now();
          break;
        }
        in_.append(chunk, static_cast<std::size_t>(n));
      } else if (Clock::now() >= deadline) {
        break;
      }
    }
    return in_;
  }

  // The status line of the answer ("HTTP/1.1 400 Bad Request"), empty if
  // none came in time.
  std::string status_line(std::chrono::milliseconds timeout = 5s) {
    read_until([](const std::string& s) { return s.find("\r\n") != std::string::npos; }, timeout);
    const auto eol = in_.find("\r\n");
    return eol == std::string::npos ? std::string() : in_.substr(0, eol);
  }
  // The whole header of the answer, empty if it did not all come in time.
  std::string header(std::chrono::milliseconds timeout = 5s) {
    read_until([](const std::string& s) { return s.find("\r\n\r\n") != std::string::npos; },
               timeout);
    const auto end = in_.find("\r\n\r\n");
    return end == std::string::npos ? std::string() : in_.substr(0, end + 4);
  }
  // Wait for the peer to close; true if it did in time.
  bool wait_closed(std::chrono::milliseconds timeout) {
    read_until([](const std::string&) { return false; }, timeout);
    return closed_;
  }
  bool closed() const { return closed_; }
  Clock::time_point closed_at() const { return closed_at_; }
  const std::string& received() const { return in_; }

 private:
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int fd_ = -1;
  std::string in_;
  bool closed_ = false;
  Clock::time_point closed_at_{};
};

std::string healthz_status(std::uint16_t port, std::chrono::milliseconds timeout = 5s) {
  RawSocket s(port);
  if (!s.connected()) return {};
  s.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  return s.status_line(timeout);
}

// ---------------------------------------------------------------- a server process

// inarow-server as a child (ServerProcess) with a descriptor limit of its
// own and extra flags, killed at the end; its log lines, and its CPU time
// from /proc.
class LimitedServer : public ServerProcess {
 public:
  LimitedServer(rlim_t max_files, std::vector<std::string> flags)
      : ServerProcess(options(max_files, std::move(flags))) {}

  std::size_t log_lines() const {
    const std::string s = log();
    return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
  }
  std::size_t log_lines_with(const std::string& word) const {
    std::istringstream in(log());
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);)
      if (line.find(word) != std::string::npos) ++n;
    return n;
  }
  // User plus system CPU seconds the server has used so far.
  double cpu_seconds() const {
    const std::string stat = inarow::testing::read_file("/proc/" + std::to_string(pid()) + "/stat");
    std::istringstream fields(stat.substr(stat.rfind(')') + 2));
    std::string f;
    long ticks = 0;
    for (int i = 3; i <= 15 && fields >> f; ++i)
      if (i == 14 || i == 15) ticks += std::stol(f);  // utime, stime
    return static_cast<double>(ticks) / static_cast<double>(::sysconf(_SC_CLK_TCK));
  }

 private:
  static ServerOptions options(rlim_t max_files, std::vector<std::string> flags) {
    ServerOptions o;
    o.extra_args = std::move(flags);
    o.max_files = max_files;
    o.end_signal = SIGKILL;
    return o;
  }
};

constexpr std::string_view kHalfRequest = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n";

// ---------------------------------------------------------------- descriptors

constexpr std::string_view kUpgrade =
    "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";

// More half-sent requests than the server has descriptors for: accept fails
// with EMFILE. The server backs off instead of spinning, logs a line a
// second at most, and makes room by closing the oldest connections that wait
// for their request, so /healthz is answered while they are held.
// UBSan's runtime needs descriptors of its own (it checks that memory is
// readable through a pipe), so a server starved of descriptors under the
// asan preset (ASan + UBSan) reports false "invalid vptr" errors on sound
// objects. These two tests starve it on purpose: they run in the plain and
// TSan builds.
#if defined(__SANITIZE_ADDRESS__)  // GCC
constexpr bool kSanitized = true;
#elif defined(__has_feature)
constexpr bool kSanitized = __has_feature(address_sanitizer);  // clang
#else
constexpr bool kSanitized = false;
#endif

TEST(EdgeDescriptors, HalfSentRequestsMakeRoomForHealthChecks) {
  if (kSanitized) GTEST_SKIP() << "UBSan's runtime cannot run out of descriptors";
  LimitedServer server(64,
                       {"--max-http-connections-per-ip", "100000", "--http-timeout-ms", "600000"});
  const double cpu_at_start = server.cpu_seconds();
  const std::size_t lines_at_start = server.log_lines();
  std::vector<RawSocket> holders;
  for (int i = 0; i < 150; ++i) {
    RawSocket s(server.port());
    ASSERT_TRUE(s.connected()) << i;
    s.send(kHalfRequest);
    holders.push_back(std::move(s));
  }
  ASSERT_TRUE(eventually([&] { return server.log_lines_with("accept_failed") > 0; }, 10s))
      << server.log();
  EXPECT_EQ(healthz_status(server.port()), "HTTP/1.1 200 OK");
  // More come and are held for two seconds: a spinning accept loop writes a
  // line per failure and burns a core (the old server: ~100,000 lines a
  // second).
  for (int i = 0; i < 150; ++i) {
    RawSocket s(server.port());
    s.send(kHalfRequest);
    holders.push_back(std::move(s));
  }
  std::this_thread::sleep_for(2s);
  const std::size_t failure_lines = server.log_lines_with("accept_failed");
  EXPECT_LE(failure_lines, 10u) << server.log();
  EXPECT_LE(server.log_lines() - lines_at_start, 15u) << server.log();
  EXPECT_LT(server.cpu_seconds() - cpu_at_start, 0.5);
  EXPECT_EQ(healthz_status(server.port()), "HTTP/1.1 200 OK");
  holders.clear();
  EXPECT_TRUE(
      eventually([&] { return healthz_status(server.port(), 2s) == "HTTP/1.1 200 OK"; }, 10s));
  EXPECT_LT(server.cpu_seconds() - cpu_at_start, 0.5);
}

// When what holds the descriptors cannot be closed (WebSockets), the server
// still does not spin: it backs off, logs a line a second at most, and
// answers what waits in the backlog with 503 from a reserve descriptor; it
// serves /healthz again once the holders go.
TEST(EdgeDescriptors, WebSocketsHoldingEveryDescriptorGetA503AndNoSpin) {
  if (kSanitized) GTEST_SKIP() << "UBSan's runtime cannot run out of descriptors";
  LimitedServer server(64, {"--max-connections-per-ip", "100000"});
  const double cpu_at_start = server.cpu_seconds();
  const std::size_t lines_at_start = server.log_lines();
  std::vector<RawSocket> holders;
  for (int i = 0; i < 150; ++i) {
    RawSocket s(server.port());
    ASSERT_TRUE(s.connected()) << i;
    s.send(kUpgrade);
    holders.push_back(std::move(s));
  }
  ASSERT_TRUE(eventually([&] { return server.log_lines_with("accept_failed") > 0; }, 10s))
      << server.log();
  // A new connection is answered from the reserve, not left waiting. (It
  // sends nothing, so the close after the answer cannot turn into a reset
  // that would eat it.)
  {
    RawSocket waiting(server.port());
    ASSERT_TRUE(waiting.connected());
    EXPECT_EQ(waiting.status_line(5s), "HTTP/1.1 503 Service Unavailable");
  }
  std::this_thread::sleep_for(2s);
  const std::size_t failure_lines = server.log_lines_with("accept_failed");
  EXPECT_LE(failure_lines, 10u) << server.log();
  EXPECT_LE(server.log_lines() - lines_at_start, 15u) << server.log();
  EXPECT_LT(server.cpu_seconds() - cpu_at_start, 0.5);

  holders.clear();
  EXPECT_TRUE(
      eventually([&] { return healthz_status(server.port(), 2s) == "HTTP/1.1 200 OK"; }, 10s));
  // Said once, at the first accept a second or more after the last line.
  EXPECT_TRUE(eventually(
      [&] {
        healthz_status(server.port(), 2s);
        return server.log_lines_with("accept_recovered") == 1;
      },
      5s))
      << server.log();
  EXPECT_LT(server.cpu_seconds() - cpu_at_start, 0.5);
}

// Plain HTTP connections are limited per address: one address holding
// half-sent requests gets only its share of descriptors, and /healthz from
// another address is answered while they are held.
TEST(EdgeDescriptors, HttpConnectionsAreLimitedPerAddress) {
  LimitedServer server(64, {"--max-http-connections-per-ip", "8", "--http-timeout-ms", "600000"});
  std::vector<RawSocket> holders;
  for (int i = 0; i < 40; ++i) {
    RawSocket s(server.port(), "127.0.0.2");
    ASSERT_TRUE(s.connected()) << i;
    s.send(kHalfRequest);
    holders.push_back(std::move(s));
  }
  auto closed = [&] {
    std::size_t n = 0;
    for (auto& h : holders) {
      if (!h.closed()) h.wait_closed(1ms);
      if (h.closed()) ++n;
    }
    return n;
  };
  // The 32 over the limit are closed at once, unanswered.
  EXPECT_TRUE(eventually([&] { return closed() >= 32; }, 10s));
  EXPECT_EQ(closed(), 32u);
  EXPECT_EQ(healthz_status(server.port()), "HTTP/1.1 200 OK");
  // Still exactly 8 held: the eight first, each still open.
  EXPECT_EQ(closed(), 32u);
  EXPECT_EQ(server.log_lines_with("accept_failed"), 0u) << server.log();
  // One of the eight goes; there is room for one more from that address.
  auto open_one = std::find_if(holders.begin(), holders.end(), [](auto& h) { return !h.closed(); });
  ASSERT_NE(open_one, holders.end());
  holders.erase(open_one);
  EXPECT_TRUE(eventually(
      [&] {
        RawSocket s(server.port(), "127.0.0.2");
        s.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        return s.status_line(2s) == "HTTP/1.1 200 OK";
      },
      10s));
}

// A request not finished within --http-timeout-ms is dropped, not before.
TEST(EdgeDescriptors, AHalfSentRequestIsDroppedAfterTheRequestTimeout) {
  auto config = test_config();
  config.http_request_timeout = 300ms;
  TestServer server(config);
  const auto sent = Clock::now();
  RawSocket s(server.port());
  ASSERT_TRUE(s.connected());
  s.send(kHalfRequest);
  ASSERT_TRUE(s.wait_closed(10s));
  EXPECT_GE(s.closed_at() - sent, 300ms);
  EXPECT_EQ(s.received(), "");  // dropped without an answer
}

// ---------------------------------------------------------------- HTTP answers

TEST(EdgeHttp, AMalformedRequestGets400) {
  TestServer server;
  RawSocket s(server.port());
  s.send("this is not HTTP\r\n\r\n");
  EXPECT_EQ(s.status_line(), "HTTP/1.1 400 Bad Request");
  EXPECT_TRUE(s.wait_closed(5s));

  RawSocket bad_header(server.port());
  bad_header.send("GET / HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n");
  EXPECT_EQ(bad_header.status_line(), "HTTP/1.1 400 Bad Request");
}

TEST(EdgeHttp, AHugeUrlGets414) {
  TestServer server;
  // Longer than the 16 KiB header limit: Beast stops in the request line.
  RawSocket huge(server.port());
  huge.send("GET /" + std::string(100'000, 'a') + " HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(huge.status_line(), "HTTP/1.1 414 URI Too Long");
  EXPECT_TRUE(huge.wait_closed(5s));
  // Within the header limit but over the 8 KiB a target may have.
  RawSocket long_target(server.port());
  long_target.send("GET /" + std::string(9'000, 'a') + " HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(long_target.status_line(), "HTTP/1.1 414 URI Too Long");
  // Just under it is served (and not found).
  RawSocket fine(server.port());
  fine.send("GET /" + std::string(8'000, 'a') + " HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(fine.status_line(), "HTTP/1.1 404 Not Found");
}

TEST(EdgeHttp, OversizedHeadersGet431AndAnOversizedBody413) {
  TestServer server;
  RawSocket s(server.port());
  s.send("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(20'000, 'b') + "\r\n\r\n");
  EXPECT_EQ(s.status_line(), "HTTP/1.1 431 Request Header Fields Too Large");
  EXPECT_TRUE(s.wait_closed(5s));

  RawSocket body(server.port());
  body.send("POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" +
            std::string(100'000, 'c'));
  EXPECT_EQ(body.status_line(), "HTTP/1.1 413 Payload Too Large");
}

TEST(EdgeHttp, GetWsWithoutAnUpgradeGets426) {
  TestServer server;
  RawSocket s(server.port());
  s.send("GET /ws HTTP/1.1\r\nHost: x\r\n\r\n");
  const std::string header = s.header();
  EXPECT_EQ(header.substr(0, header.find("\r\n")), "HTTP/1.1 426 Upgrade Required");
  EXPECT_NE(header.find("\r\nUpgrade: websocket\r\n"), std::string::npos) << header;
  EXPECT_NE(header.find("\r\nConnection: Upgrade\r\n"), std::string::npos) << header;
  // Kept alive: the next request on it is served.
  RawSocket again(server.port());
  again.send("GET /ws HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
  again.read_until(
      [](const std::string& in) { return in.find("\r\n\r\nok\n") != std::string::npos; }, 5s);
  EXPECT_NE(again.received().find("HTTP/1.1 200 OK"), std::string::npos) << again.received();
  // Other methods elsewhere are refused with the one allowed.
  RawSocket post(server.port());
  post.send("POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
  const std::string refused = post.header();
  EXPECT_EQ(refused.substr(0, refused.find("\r\n")), "HTTP/1.1 405 Method Not Allowed");
  EXPECT_NE(refused.find("\r\nAllow: GET\r\n"), std::string::npos) << refused;
}

// ---------------------------------------------------------------- rate limit

// A refused message's error answers its request id, in either form.
void rate_limited_errors_answer_their_requests(bool text) {
  auto config = test_config();
  config.rate_per_second = 0.001;  // nothing refills during the test
  config.rate_burst = 1;
  config.rate_strikes = 100;
  TestServer server(config);
  WsClient c(server.port(), text);
  EXPECT_FALSE(c.hello("flood").name().empty());  // the one token
  std::vector<std::uint64_t> ids;
  for (int i = 0; i < 3; ++i)
    ids.push_back(c.send(ping_message()));
  for (const auto id : ids) {
    auto m = c.next();
    ASSERT_TRUE(m);
    EXPECT_EQ(m->request_id(), id);
    ASSERT_TRUE(m->has_error()) << m->DebugString();
    EXPECT_EQ(m->error().code(), v1::ERROR_RATE_LIMITED);
  }
  // Even a request that would be unknown, and one that cannot be parsed (0).
  v1::ClientMessage unknown;
  unknown.set_request_id(77);
  c.send(unknown);
  auto m = c.next();
  ASSERT_TRUE(m);
  EXPECT_EQ(m->request_id(), 77u);
  EXPECT_EQ(m->error().code(), v1::ERROR_RATE_LIMITED);
  c.send_raw(text ? "{not json" : "\xff\xff\xff", text);
  m = c.next();
  ASSERT_TRUE(m);
  EXPECT_EQ(m->request_id(), 0u);
  EXPECT_EQ(m->error().code(), v1::ERROR_RATE_LIMITED);
}

TEST(EdgeRateLimit, RefusalsAnswerTheRequestIdInProtobuf) {
  rate_limited_errors_answer_their_requests(false);
}

TEST(EdgeRateLimit, RefusalsAnswerTheRequestIdInJson) {
  rate_limited_errors_answer_their_requests(true);
}

// ---------------------------------------------------------------- idle peers

// A peer that reads (so answers the server's pings) stays; one that does
// not is pinged after half the idle timeout and dropped at the timeout, never
// before it. The silent peer is a raw socket that did the handshake by hand:
// a WebSocket client would answer the ping as soon as it read anything.
TEST(EdgeIdle, ASilentPeerIsClosedAfterTheIdleTimeout) {
  constexpr auto kIdle = 1000ms;
  auto config = test_config();
  config.idle_timeout = kIdle;
  TestServer server(config);
  WsClient lively(server.port());
  lively.hello("lively");

  const auto asked = Clock::now();
  RawSocket silent(server.port());
  ASSERT_TRUE(silent.connected());
  silent.send(kUpgrade);
  const std::string upgraded = silent.header();
  ASSERT_EQ(upgraded.substr(0, upgraded.find("\r\n")), "HTTP/1.1 101 Switching Protocols");

  // `lively` reads through more than two idle timeouts; nothing comes for it
  // but pings, which its reads answer.
  EXPECT_FALSE(lively.next(2 * kIdle + 500ms));
  EXPECT_FALSE(lively.closed());

  // The silent one is closed: well within 20 s, and not before the timeout.
  ASSERT_TRUE(silent.wait_closed(20s)) << "never closed";
  EXPECT_GE(silent.closed_at() - asked, kIdle);
  // What it got after the handshake is the server's ping (opcode 9, from
  // the server so unmasked, empty) and then the end: the idle close, with no
  // close frame.
  const std::string after = silent.received().substr(upgraded.size());
  ASSERT_GE(after.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(after[0]), 0x89);
  EXPECT_EQ(after.find('\x88'), std::string::npos) << "a close frame: not the idle timeout";

  EXPECT_TRUE(lively.request(ping_message()).has_pong());
}

}  // namespace
}  // namespace inarow::testing
