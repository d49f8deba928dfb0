// The only translation unit with Asio and Beast (slow to compile) and with
// readline. Everything runs on one thread: the connection coroutine, the
// terminal's readiness callbacks, the clock tick and the signals. A script's
// standard input is read by a blocking thread that posts lines here.
#include "inarow/client/app.h"

#include <readline/history.h>
#include <readline/readline.h>
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <thread>
#include <utility>

#include "inarow/client/controller.h"
#include "inarow/client/profile.h"

namespace inarow::client {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;

expected<WsUrl, std::string> parse_ws_url(std::string_view url) {
  constexpr std::string_view scheme = "ws://";
  if (url.substr(0, scheme.size()) != scheme) {
    return unexpected("the server address must start with ws:// (got \"" + std::string(url) +
                      "\")");
  }
  std::string_view rest = url.substr(scheme.size());
  WsUrl u;
  const auto slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  u.path = slash == std::string_view::npos ? "/ws" : std::string(rest.substr(slash));
  // "[::1]:8080", "host:8080", "host".
  const auto bracket = authority.rfind(']');
  const auto colon = authority.rfind(':');
  if (colon != std::string_view::npos && (bracket == std::string_view::npos || colon > bracket)) {
    u.host = std::string(authority.substr(0, colon));
    u.port = std::string(authority.substr(colon + 1));
  } else {
    u.host = std::string(authority);
    u.port = "80";
  }
  if (u.host.size() > 2 && u.host.front() == '[' && u.host.back() == ']') {
    u.host = u.host.substr(1, u.host.size() - 2);
  }
  if (u.host.empty()) return unexpected("no host in \"" + std::string(url) + "\"");
  if (u.port.empty() || u.port.find_first_not_of("0123456789") != std::string::npos) {
    return unexpected("bad port in \"" + std::string(url) + "\"");
  }
  return u;
}

namespace {

using Stream = websocket::stream<beast::tcp_stream>;

class App;
App* g_app = nullptr;  // readline's line handler is a plain function
void on_readline_line(char* line);
char** complete_command(const char* text, int start, int end);
void redisplay();

class App {
 public:
  App(asio::io_context& ioc, const AppOptions& options, WsUrl url, bool interactive,
      ControllerOptions copts)
      : ioc_(ioc),
        options_(options),
        url_(std::move(url)),
        interactive_(interactive),
        backoff_timer_(ioc),
        tick_timer_(ioc),
        close_timer_(ioc),
        signals_(ioc, SIGINT, SIGTERM, SIGHUP),
        controller_(std::move(copts), load_profile(options.config_dir),
                    Controller::Hooks{
                        [this](v1::ClientMessage m) { send(std::move(m)); },
                        [this](const std::string& text) { print(text); },
                        [this] { quit(); },
                        [this](const Profile& p) { save_profile(options_.config_dir, p); },
                        [this] { reconnect(); },
                    }) {}

  void start() {
    signals_.async_wait([this](const beast::error_code& ec, int) {
      if (!ec) quit();
    });
    if (interactive_) {
      start_readline();
    } else {
      start_reader_thread();
    }
    asio::co_spawn(ioc_, connection_loop(), asio::detached);
    tick();
  }

  void on_tty_line(char* line) {
    in_handler_ = true;
    if (!line) {
      out_ += "\n";
      controller_.on_eof();
    } else {
      if (*line && !hides_input_) add_history(line);  // never a password
      controller_.on_line(line);
      std::free(line);
    }
    flush_output();
    if (!quitting_) set_prompt();
    in_handler_ = false;
  }

  bool hides_input() const { return hides_input_; }

 private:
  // ------------------------------------------------------------ terminal

  void start_readline() {
    g_app = this;
    rl_catch_signals = 0;  // the signal_set has them
    rl_catch_sigwinch = 0;
    readline_on_ = true;
    // History survives the session, next to the profile.
    history_file_ = (options_.config_dir / "history").string();
    stifle_history(1000);
    read_history(history_file_.c_str());
    rl_readline_name = "inarow";
    rl_attempted_completion_function = complete_command;
    rl_redisplay_function = redisplay;
    shown_prompt_ = controller_.prompt(std::chrono::steady_clock::now());
    rl_callback_handler_install(shown_prompt_.c_str(), on_readline_line);
    tty_.emplace(ioc_, ::dup(STDIN_FILENO));
    winch_.emplace(ioc_, SIGWINCH);
    wait_winch();
    wait_tty();
  }

  void wait_tty() {
    tty_->async_wait(asio::posix::descriptor_base::wait_read, [this](const beast::error_code& ec) {
      if (ec || quitting_) return;
      rl_callback_read_char();
      if (quitting_) return;
      wait_tty();
    });
  }

  void wait_winch() {
    winch_->async_wait([this](const beast::error_code& ec, int) {
      if (ec) return;
      rl_resize_terminal();
      wait_winch();
    });
  }

  void stop_readline() {
    if (!readline_on_) return;
    readline_on_ = false;
    rl_callback_handler_remove();
    std::error_code ec;
    std::filesystem::create_directories(options_.config_dir, ec);
    write_history(history_file_.c_str());
    if (tty_) tty_->cancel();
    if (winch_) winch_->cancel();
  }

  void start_reader_thread() {
    // Blocking reads work the same on pipes, files and /dev/null; lines wait
    // in the controller's queue until their turn.
    std::thread([this] {
      std::string line;
      while (std::getline(std::cin, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        asio::post(ioc_, [this, line] {
          controller_.on_line(line);
          flush_output();
        });
      }
      asio::post(ioc_, [this] {
        controller_.on_eof();
        flush_output();
      });
    }).detach();
  }

  void print(const std::string& text) {
    out_ += text;
    if (!interactive_) flush_output();
  }

  void set_prompt() {
    shown_prompt_ = controller_.prompt(std::chrono::steady_clock::now());
    hides_input_ = controller_.asking_secret();
    rl_set_prompt(shown_prompt_.c_str());
  }

  // Print what the controller said without tearing the line being typed:
  // clear it, print, then draw the prompt and the typed text again.
  void flush_output() {
    if (!interactive_ || !readline_on_ || in_handler_) {
      if (!out_.empty()) {
        std::fwrite(out_.data(), 1, out_.size(), stdout);
        out_.clear();
      }
      std::fflush(stdout);
      return;
    }
    const std::string p = controller_.prompt(std::chrono::steady_clock::now());
    if (out_.empty() && p == shown_prompt_) return;
    // Clear while readline still knows the old prompt's width.
    rl_clear_visible_line();
    std::fwrite(out_.data(), 1, out_.size(), stdout);
    out_.clear();
    set_prompt();
    rl_on_new_line();
    rl_redisplay_function();
    std::fflush(stdout);
  }

  // The clocks in the prompt count down by themselves.
  void tick() {
    tick_timer_.expires_after(200ms);
    tick_timer_.async_wait([this](const beast::error_code& ec) {
      if (ec || quitting_) return;
      if (interactive_ && controller_.clock_running()) flush_output();
      tick();
    });
  }

  // ------------------------------------------------------------ connection

  std::chrono::milliseconds backoff(int attempt) {
    // 250 ms doubling to 8 s, with a fifth of jitter so clients spread out.
    const auto base = std::min<std::int64_t>(250LL << std::min(attempt - 1, 5), 8000);
    std::uniform_int_distribution<std::int64_t> jitter(0, base / 5);
    return std::chrono::milliseconds(base - base / 10 + jitter(rng_));
  }

  asio::awaitable<void> connection_loop() {
    tcp::resolver resolver(ioc_);
    int attempt = 0;
    while (!quitting_) {
      controller_.on_connecting(attempt);
      flush_output();
      beast::error_code ec;
      std::string reason;
      auto ws = std::make_shared<Stream>(ioc_);
      auto results = co_await resolver.async_resolve(url_.host, url_.port,
                                                     asio::redirect_error(asio::use_awaitable, ec));
      if (!ec) {
        beast::get_lowest_layer(*ws).expires_after(5s);
        co_await beast::get_lowest_layer(*ws).async_connect(
            results, asio::redirect_error(asio::use_awaitable, ec));
      }
      if (!ec) {
        beast::get_lowest_layer(*ws).expires_never();
        auto timeouts = websocket::stream_base::timeout::suggested(beast::role_type::client);
        timeouts.handshake_timeout = 5s;
        timeouts.idle_timeout = 20s;  // ping a quiet server; give up on a dead one
        timeouts.keep_alive_pings = true;
        ws->set_option(timeouts);
        ws->set_option(websocket::stream_base::decorator([](websocket::request_type& req) {
          req.set(beast::http::field::user_agent, "inarow-client");
        }));
        co_await ws->async_handshake(url_.host + ":" + url_.port, url_.path,
                                     asio::redirect_error(asio::use_awaitable, ec));
      }
      if (!ec && !quitting_) {
        ws->binary(true);
        ws_ = ws;
        outbox_.clear();
        writing_ = false;
        attempt = 0;
        controller_.on_connected();
        flush_output();
        beast::flat_buffer buffer;
        while (!quitting_) {
          co_await ws->async_read(buffer, asio::redirect_error(asio::use_awaitable, ec));
          if (ec) break;
          v1::ServerMessage m;
          if (m.ParseFromArray(buffer.data().data(), static_cast<int>(buffer.size()))) {
            controller_.on_message(m, std::chrono::steady_clock::now());
          }
          buffer.consume(buffer.size());
          flush_output();
        }
        ws_.reset();
        if (ec == websocket::error::closed) {
          reason = "closed by the server";
          if (!ws->reason().reason.empty())
            reason += ": " + std::string(ws->reason().reason.data(), ws->reason().reason.size());
        } else {
          reason = ec.message();
        }
        if (quitting_) break;
        controller_.on_disconnected(reason);
      }
      if (quitting_) break;
      if (std::exchange(reconnect_now_, false)) {
        attempt = 0;
        continue;
      }
      ++attempt;
      const auto delay = backoff(attempt);
      controller_.on_reconnect_scheduled(attempt, delay);
      flush_output();
      backoff_timer_.expires_after(delay);
      co_await backoff_timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
  }

  // A new connection at once, for the controller's new hello: the old one is
  // closed politely and what it still had to send is dropped.
  void reconnect() {
    if (!ws_) return;  // not connected: the next connection is new anyway
    auto ws = std::exchange(ws_, nullptr);
    reconnect_now_ = true;
    ws->async_close(websocket::close_code::normal, [ws](const beast::error_code&) {});
  }

  void send(v1::ClientMessage m) {
    if (!ws_) return;  // offline: the controller resends what matters on resume
    outbox_.push_back(m.SerializeAsString());
    if (!writing_) do_write();
  }

  void do_write() {
    if (outbox_.empty() || !ws_) {
      writing_ = false;
      return;
    }
    writing_ = true;
    auto ws = ws_;
    ws->async_write(asio::buffer(outbox_.front()),
                    [this, ws](const beast::error_code& ec, std::size_t) {
                      if (ws != ws_) return;  // a connection gone; its queue was dropped
                      if (ec) {
                        writing_ = false;
                        return;  // the read side reports the loss
                      }
                      outbox_.pop_front();
                      do_write();
                    });
  }

  void quit() {
    if (quitting_) return;
    quitting_ = true;
    flush_output();
    stop_readline();
    signals_.cancel();
    backoff_timer_.cancel();
    tick_timer_.cancel();
    if (ws_) {
      // Let queued messages go out first: the close frame follows them.
      auto ws = ws_;
      close_timer_.expires_after(1s);
      close_timer_.async_wait([this](const beast::error_code&) { ioc_.stop(); });
      auto close = [this, ws] {
        ws->async_close(websocket::close_code::normal,
                        [this, ws](const beast::error_code&) { ioc_.stop(); });
      };
      if (writing_ || !outbox_.empty()) {
        drain_then_close_ = close;
        poll_drain();
      } else {
        close();
      }
    } else {
      ioc_.stop();
    }
  }

  void poll_drain() {
    if (!writing_ && outbox_.empty()) {
      drain_then_close_();
      return;
    }
    drain_timer_.emplace(ioc_, 10ms);
    drain_timer_->async_wait([this](const beast::error_code&) { poll_drain(); });
  }

  asio::io_context& ioc_;
  AppOptions options_;
  WsUrl url_;
  bool interactive_;
  asio::steady_timer backoff_timer_;
  asio::steady_timer tick_timer_;
  asio::steady_timer close_timer_;
  std::optional<asio::steady_timer> drain_timer_;
  std::function<void()> drain_then_close_;
  asio::signal_set signals_;
  std::optional<asio::signal_set> winch_;
  std::optional<asio::posix::stream_descriptor> tty_;
  Controller controller_;
  std::shared_ptr<Stream> ws_;
  std::deque<std::string> outbox_;
  bool writing_ = false;
  bool quitting_ = false;
  bool readline_on_ = false;
  bool in_handler_ = false;
  bool hides_input_ = false;  // a password is being typed
  bool reconnect_now_ = false;
  std::string out_;
  std::string shown_prompt_;
  std::string history_file_;
  std::mt19937 rng_{std::random_device{}()};
};

// Tab completes command words, variants, levels and sides.
char* next_completion(const char* text, int state) {
  static std::vector<std::string> matches;
  static std::size_t next = 0;
  if (state == 0) {
    matches.clear();
    next = 0;
    const std::string_view prefix(text);
    for (std::string_view word : completion_words()) {
      if (word.substr(0, prefix.size()) == prefix) matches.emplace_back(word);
    }
  }
  if (next >= matches.size()) return nullptr;
  return ::strdup(matches[next++].c_str());
}

char** complete_command(const char* text, int, int) {
  rl_attempted_completion_over = 1;  // never complete file names
  if (g_app && g_app->hides_input()) return nullptr;
  return rl_completion_matches(text, next_completion);
}

// While a password is typed only the prompt is drawn: no characters, no
// length.
void redisplay() {
  if (g_app && g_app->hides_input()) {
    std::FILE* out = rl_outstream ? rl_outstream : stdout;
    std::fprintf(out, "\r\x1b[K%s", rl_display_prompt);
    std::fflush(out);
    return;
  }
  rl_redisplay();
}

void on_readline_line(char* line) {
  if (g_app) g_app->on_tty_line(line);
}

bool color_wanted() {
  if (const char* no = std::getenv("NO_COLOR"); no && *no) return false;
  const char* term = std::getenv("TERM");
  return term && *term && std::string_view(term) != "dumb";
}

}  // namespace

int run_client(const AppOptions& given) {
  AppOptions options = given;
  auto url = parse_ws_url(options.url);
  if (!url) {
    std::fprintf(stderr, "inarow: %s\n", url.error().c_str());
    return 2;
  }
  if (options.config_dir.empty()) options.config_dir = default_config_dir();
  std::signal(SIGPIPE, SIG_IGN);

  const bool interactive = !options.plain && ::isatty(STDIN_FILENO) && ::isatty(STDOUT_FILENO);
  ControllerOptions copts;
  copts.script = !interactive;
  copts.pretty = interactive;
  copts.style.color = interactive && color_wanted();
  copts.url = options.url;
  copts.name = options.name;

  // Leaked on purpose: a script's reader thread may still post to them while
  // the process exits.
  auto* ioc = new asio::io_context(1);
  auto* app = new App(*ioc, options, *url, interactive, copts);
  if (interactive) {
    std::printf("%s", paint("inarow", sgr::bold, copts.style).c_str());
    std::printf(" - k-in-a-row games on %s\n%s", options.url.c_str(), help_text(false).c_str());
    std::fflush(stdout);
  }
  app->start();
  ioc->run();
  std::fflush(stdout);
  return 0;
}

}  // namespace inarow::client
