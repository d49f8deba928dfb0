// The server's message handling: a frame as a WebSocket session receives it
// (binary protobuf or its JSON mapping in a text frame), parsed as the
// session parses it (parse_frame) and routed by the Router to a hub with a
// match in progress: two seated players, a spectator and a stranger who has
// not said hello, on fake connections, an in-memory store behind a real
// StoreWriter and an io_context run here. No sockets.
//
// The first byte of an input picks the frame's kind (bit 0: text) and its
// sender (bits 1-2: first player, second player, spectator, stranger); the
// rest is the frame. "mXXXXXXXXXXXXXXXXXXXXX" in a frame stands for the live
// match's id (the same length, so a binary frame stays well formed).
//
// Every routed request must be answered, repeating its request id (the
// protocol's rule), within two seconds. The hub is rebuilt when its match is
// over and every 500 inputs, so that players, matches and messages do not
// pile up across inputs; the variant changes at each rebuild.
#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "inarow/server/memory_store.h"
#include "inarow/server/router.h"
#include "inarow/server/store_writer.h"
#include "inarow/server/wire.h"
#include "inarow/testing/fake_connection.h"

namespace {

namespace asio = boost::asio;
namespace v1 = inarow::v1;
using inarow::testing::FakeConnection;
using namespace std::chrono_literals;

constexpr std::string_view kMatchPlaceholder = "mXXXXXXXXXXXXXXXXXXXXX";
constexpr int kInputsPerHub = 500;

[[noreturn]] void fail(const char* why) {
  std::fprintf(stderr, "server_fuzz: %s\n", why);
  std::abort();
}

class Hub {
 public:
  explicit Hub(const char* variant) {
    config_.matchmaker_tick = 20ms;
    config_.bot_seed = 7;
    router_ =
        std::make_unique<inarow::server::Router>(ioc_, bots_, config_, store_, writer_, metrics_);
    hello(first_, "first");
    hello(second_, "second");
    hello(watcher_, "watcher");
    v1::ClientMessage create;
    create.mutable_create_private()->set_variant(variant);
    const auto code = request(first_, create).ack().code();
    v1::ClientMessage join;
    join.mutable_join_private()->set_code(code);
    match_id_ = request(second_, join).ack().match_id();
    if (match_id_.size() != kMatchPlaceholder.size()) fail("a match id of another length");
    v1::ClientMessage watch;
    watch.mutable_watch()->set_match_id(match_id_);
    request(watcher_, watch);
  }
  ~Hub() {
    router_->shutdown();
    ioc_.restart();
    ioc_.poll();
    router_.reset();
    writer_.flush();
    bots_.join();
  }

  // One frame from the sender `who`; false when the match is over.
  bool frame(int who, bool text, std::string data) {
    for (auto at = data.find(kMatchPlaceholder); at != std::string::npos;
         at = data.find(kMatchPlaceholder, at + kMatchPlaceholder.size()))
      data.replace(at, kMatchPlaceholder.size(), match_id_);
    v1::ClientMessage message;
    if (inarow::server::parse_frame(data, text, message)) return true;  // the session answers
    const auto& from = who == 0 ? first_ : who == 1 ? second_ : who == 2 ? watcher_ : stranger_;
    request(from, std::move(message));
    ++inputs_;
    const auto events = first_->events();
    return inputs_ < kInputsPerHub && !(!events.empty() && events.back().has_ended());
  }

 private:
  v1::ServerMessage request(const std::shared_ptr<FakeConnection>& from, v1::ClientMessage m) {
    const auto seen = from->received().size();
    const auto id = m.request_id();
    router_->receive(from, std::move(m));
    const auto deadline = std::chrono::steady_clock::now() + 2s;
    for (unsigned spins = 0;; ++spins) {
      ioc_.restart();  // poll() stops the io_context when it runs out of work
      // Answers come from handlers run here; look (a copy of every message
      // so far) only after some ran, and now and then for other threads.
      if (ioc_.poll() > 0 || spins % 256 == 0) {
        const auto got = from->received();
        for (auto i = seen; i < got.size(); ++i)
          if (got[i].request_id() == id && !got[i].has_event()) return got[i];
        if (std::chrono::steady_clock::now() > deadline) fail("a request went unanswered");
      }
      std::this_thread::yield();
    }
  }
  void hello(const std::shared_ptr<FakeConnection>& c, const char* name) {
    v1::ClientMessage m;
    m.set_request_id(1);
    m.mutable_hello()->set_protocol_version(v1::PROTOCOL_VERSION_CURRENT);
    m.mutable_hello()->set_name(name);
    if (!request(c, std::move(m)).has_welcome()) fail("no welcome");
  }

  inarow::server::ServerConfig config_;
  inarow::server::Metrics metrics_;
  inarow::server::MemoryStore store_;
  inarow::server::StoreWriter writer_{store_};
  asio::io_context ioc_;
  asio::thread_pool bots_{1};
  std::unique_ptr<inarow::server::Router> router_;
  std::shared_ptr<FakeConnection> first_ = std::make_shared<FakeConnection>();
  std::shared_ptr<FakeConnection> second_ = std::make_shared<FakeConnection>();
  std::shared_ptr<FakeConnection> watcher_ = std::make_shared<FakeConnection>();
  std::shared_ptr<FakeConnection> stranger_ = std::make_shared<FakeConnection>();
  std::string match_id_;
  int inputs_ = 0;
};

Hub* hub = nullptr;  // never destroyed at exit: libFuzzer exits from any thread
int hubs = 0;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static const char* const kVariants[] = {"tictactoe", "connect4", "gomoku", "mnk:5,4,3,gravity"};
  if (!hub) hub = new Hub(kVariants[hubs++ % 4]);
  const bool text = data[0] & 1;
  const int who = (data[0] >> 1) & 3;
  if (!hub->frame(who, text, std::string(reinterpret_cast<const char*>(data + 1), size - 1))) {
    delete hub;
    hub = nullptr;
  }
  return 0;
}
