// The client in a real terminal: a pseudo-terminal from forkpty, so both
// standard input and output are a tty and the client uses readline, colours
// and the drawn board. The test reads what the terminal would show (escape
// sequences stripped) and types like a person.
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <regex>

#include "client_process.h"
#include "inarow/bots/ladder.h"

namespace inarow::client::testing {
namespace {

using Clock = std::chrono::steady_clock;

class Terminal {
 public:
  Terminal(const std::string& url, const fs::path& config_dir, bool no_color = false) {
    winsize size{};
    size.ws_row = 40;
    size.ws_col = 100;
    pid_ = ::forkpty(&master_, nullptr, nullptr, &size);
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      ::setenv("TERM", "xterm-256color", 1);
      if (no_color) {
        ::setenv("NO_COLOR", "1", 1);
      } else {
        ::unsetenv("NO_COLOR");
      }
      ::setenv("INPUTRC", "/dev/null", 1);
      ::execl(INAROW_CLIENT_BINARY, INAROW_CLIENT_BINARY, "--server", url.c_str(), "--name", "tess",
              "--config-dir", config_dir.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
  }
  ~Terminal() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (master_ >= 0) ::close(master_);
  }

  void type(const std::string& keys) {
    [[maybe_unused]] auto n = ::write(master_, keys.data(), keys.size());
  }

  // What the screen has shown so far, without escape sequences; waits until
  // it contains `text` (after `from`) or the time is up.
  bool shows(const std::string& text, std::size_t from = 0,
             std::chrono::milliseconds timeout = 10s) {
    const auto deadline = Clock::now() + timeout;
    while (true) {
      if (plain().find(text, from) != std::string::npos) return true;
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return false;
      pollfd p{master_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char chunk[4096];
      const ssize_t n = ::read(master_, chunk, sizeof chunk);
      if (n <= 0) return plain().find(text, from) != std::string::npos;
      raw_.append(chunk, static_cast<std::size_t>(n));
    }
  }

  std::string plain() const {
    static const std::regex escapes(R"(\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Za-z0-9]|\x1b[=>]|\r)");
    return std::regex_replace(raw_, escapes, "");
  }
  const std::string& raw() const { return raw_; }

  std::optional<int> wait_exit(std::chrono::milliseconds timeout = 10s) {
    const auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
      shows("\x01never", 0, 50ms);  // keep draining the terminal
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
    }
    return std::nullopt;
  }

 private:
  int master_ = -1;
  pid_t pid_ = -1;
  std::string raw_;
};

TEST(ClientTerminalTest, ShowsTheBoardThePromptAndErrorsInATerminal) {
  TempDir dir;
  ServerProcess server(":memory:");
  Terminal term(server.url(), dir.path() / "tess");
  ASSERT_TRUE(term.shows("inarow> ")) << term.plain();
  EXPECT_NE(term.plain().find("bot VARIANT"), std::string::npos);  // the menu

  term.type("bot tictactoe beginner first time 5+0\r");
  ASSERT_TRUE(term.shows("your move (X)> ")) << term.plain();
  // The level picked has no arena measurement in tic-tac-toe: said so.
  ASSERT_TRUE(term.shows("beginner bot: arena: not measured in tictactoe")) << term.plain();
  const std::string screen = term.plain();
  EXPECT_NE(screen.find(" a  b  c"), std::string::npos) << screen;          // column letters
  EXPECT_NE(screen.find("3  .  .  .  3"), std::string::npos) << screen;     // rows, numbered
  EXPECT_NE(screen.find("tess (you)  5:00"), std::string::npos) << screen;  // the clock
  EXPECT_NE(term.raw().find("\x1b[1;31m"), std::string::npos);              // colour on a terminal

  std::size_t mark = term.plain().size();
  term.type("b2\r");
  ASSERT_TRUE(term.shows("You played b2", mark)) << term.plain().substr(mark);
  ASSERT_TRUE(term.shows("beginner bot played", mark)) << term.plain().substr(mark);
  ASSERT_TRUE(term.shows("your move (X)> ", term.plain().find("beginner bot played", mark)));

  mark = term.plain().size();
  term.type("b2\r");
  ASSERT_TRUE(term.shows("! cell b2 is occupied", mark)) << term.plain().substr(mark);
  ASSERT_TRUE(term.shows("your move (X)> ", term.plain().find("occupied", mark)));

  term.type("resign\r");
  ASSERT_TRUE(term.shows("Game over: you lost", mark)) << term.plain().substr(mark);
  ASSERT_TRUE(term.shows("inarow> ", term.plain().find("Game over", mark)));
  term.type("quit\r");
  EXPECT_EQ(term.wait_exit(), 0);
}

TEST(ClientTerminalTest, NoColorGivesPlainText) {
  TempDir dir;
  ServerProcess server(":memory:");
  Terminal term(server.url(), dir.path() / "tess", /*no_color=*/true);
  ASSERT_TRUE(term.shows("inarow> "));
  term.type("bot connect4 hard first\r");
  ASSERT_TRUE(term.shows("your move (X)> ")) << term.plain();
  // The level's measured Elo in connect four, as the ladder file says.
  const auto ladder = bots::load_ladder(std::string(INAROW_WEIGHTS_DIR) + "/connect4_levels.txt");
  ASSERT_TRUE(ladder) << ladder.error().describe();
  const auto hard = std::find_if(ladder->rungs.begin(), ladder->rungs.end(),
                                 [](const bots::LadderRung& r) { return r.level == "hard"; });
  ASSERT_NE(hard, ladder->rungs.end());
  const std::string arena = "hard bot: arena: +" + std::to_string(std::lround(hard->elo)) +
                            " Elo over " + ladder->anchor() + " (±" +
                            std::to_string(std::lround(hard->margin)) + ", " +
                            std::to_string(ladder->games) + " games)";
  ASSERT_TRUE(term.shows(arena)) << term.plain();
  EXPECT_NE(term.plain().find("1  2  3  4  5  6  7"), std::string::npos);  // columns by number
  EXPECT_EQ(term.raw().find("\x1b[1;31m"), std::string::npos);
  term.type("quit\r");
  EXPECT_EQ(term.wait_exit(), 0);
}

TEST(ClientTerminalTest, APasswordIsNeitherShownNorKeptInTheHistory) {
  TempDir dir;
  ServerProcess server(":memory:");
  Terminal term(server.url(), dir.path() / "tess", /*no_color=*/true);
  ASSERT_TRUE(term.shows("inarow> "));
  const std::string secret = "seen-by-nobody-7";
  term.type("password\r");
  ASSERT_TRUE(term.shows("New password: ")) << term.plain();
  term.type(secret + "\t\r");  // no completion either
  ASSERT_TRUE(term.shows("New password again: ")) << term.plain();
  term.type(secret + "\t\r");
  ASSERT_TRUE(term.shows("Your name is protected")) << term.plain();
  ASSERT_TRUE(term.shows("inarow> ", term.plain().find("Your name is protected")));
  term.type("quit\r");
  EXPECT_EQ(term.wait_exit(), 0);
  EXPECT_EQ(term.raw().find("seen-by"), std::string::npos) << term.plain();
  const std::string kept = ::inarow::testing::read_file(dir.path() / "tess" / "history");
  EXPECT_NE(kept.find("password"), std::string::npos) << kept;  // the command is kept
  EXPECT_EQ(kept.find("seen-by"), std::string::npos) << kept;
}

}  // namespace
}  // namespace inarow::client::testing
