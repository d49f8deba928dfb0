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
// protocol's rule), within two seconds. When the match is over the same
// players start the next one (in the next variant); the hub is rebuilt every
// 500 inputs, and whenever a new match cannot be made, so that players,
// matches and messages do not pile up across inputs.
//
// Speed (issue 16): the io_context is kept from running out of work and run
// one handler at a time, waiting for the next instead of spinning; an answer
// is looked for among the messages that came after its request only.
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

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

const char* const kVariants[] = {"tictactoe", "connect4", "gomoku", "mnk:5,4,3,gravity"};
int matches = 0;  // made so far: picks the next one's variant

class Hub {
 public:
  Hub() {
    config_.matchmaker_tick = 20ms;
    config_.bot_seed = 7;
    router_ =
        std::make_unique<inarow::server::Router>(ioc_, bots_, config_, store_, writer_, metrics_);
    hello(first_, "first");
    hello(second_, "second");
    hello(watcher_, "watcher");
    if (!new_match()) fail("no match in a new hub");
  }
  ~Hub() {
    work_.reset();
    router_->shutdown();
    ioc_.restart();
    ioc_.poll();
    router_.reset();
    writer_.flush();
    bots_.join();
  }

  // One frame from the sender `who`; false when the hub is to be rebuilt.
  bool frame(int who, bool text, std::string data) {
    for (auto at = data.find(kMatchPlaceholder); at != std::string::npos;
         at = data.find(kMatchPlaceholder, at + kMatchPlaceholder.size()))
      data.replace(at, kMatchPlaceholder.size(), match_id_);
    v1::ClientMessage message;
    if (inarow::server::parse_frame(data, text, message)) return true;  // the session answers
    const auto& from = who == 0 ? first_ : who == 1 ? second_ : who == 2 ? watcher_ : stranger_;
    request(from, std::move(message));
    if (++inputs_ >= kInputsPerHub) return false;
    const auto last = first_->last_event(match_from_);
    return !(last && last->has_ended()) || new_match();
  }

 private:
  // The first player creates a private match in the next variant, the
  // second joins it and the watcher watches; false if that was refused
  // (earlier inputs may have used up the players' live matches).
  bool new_match() {
    v1::ClientMessage create;
    create.mutable_create_private()->set_variant(kVariants[matches++ % 4]);
    const auto created = request(first_, create);
    if (!created.has_ack()) return false;
    v1::ClientMessage join;
    join.mutable_join_private()->set_code(created.ack().code());
    const auto joined = request(second_, join);
    if (!joined.has_ack()) return false;
    match_id_ = joined.ack().match_id();
    if (match_id_.size() != kMatchPlaceholder.size()) fail("a match id of another length");
    v1::ClientMessage watch;
    watch.mutable_watch()->set_match_id(match_id_);
    request(watcher_, watch);
    match_from_ = first_->count();
    return true;
  }
  v1::ServerMessage request(const std::shared_ptr<FakeConnection>& from, v1::ClientMessage m) {
    const auto seen = from->count();
    const auto id = m.request_id();
    router_->receive(from, std::move(m));
    // Unanswered means two seconds and 200 turns of the loop below without
    // an answer: on a starved machine (a fuzzer niced under builds stalled
    // for 12 s at a time) the clock alone runs out while the hub never ran.
    const auto deadline = std::chrono::steady_clock::now() + 2s;
    for (int turns = 0;; ++turns) {
      // Answers come from handlers run here (the work guard keeps run_one
      // waiting for the store writer's or a bot's post instead of returning);
      // look after each, and every 10 ms for anything from another thread.
      if (from->count() > seen)
        if (auto answer = from->answer(id, seen)) return *std::move(answer);
      if (turns >= 200 && std::chrono::steady_clock::now() > deadline) {
        fail("a request went unanswered");
      }
      ioc_.run_one_for(10ms);
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
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_{
      ioc_.get_executor()};
  asio::thread_pool bots_{1};
  std::unique_ptr<inarow::server::Router> router_;
  std::shared_ptr<FakeConnection> first_ = std::make_shared<FakeConnection>();
  std::shared_ptr<FakeConnection> second_ = std::make_shared<FakeConnection>();
  std::shared_ptr<FakeConnection> watcher_ = std::make_shared<FakeConnection>();
  std::shared_ptr<FakeConnection> stranger_ = std::make_shared<FakeConnection>();
  std::string match_id_;
  std::size_t match_from_ = 0;  // first_'s messages before this match
  int inputs_ = 0;
};

Hub* hub = nullptr;  // never destroyed at exit: libFuzzer exits from any thread

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  if (!hub) hub = new Hub();
  const bool text = data[0] & 1;
  const int who = (data[0] >> 1) & 3;
  if (!hub->frame(who, text, std::string(reinterpret_cast<const char*>(data + 1), size - 1))) {
    delete hub;
    hub = nullptr;
  }
  return 0;
}
