// The client's brain, without I/O: typed lines and server messages in,
// protocol messages and printed text out (through Hooks). The program in
// app.cpp owns the socket, the terminal and the timers and feeds this.
//
// Lines are queued and run one at a time. In script mode (standard input not
// a terminal) a line runs only when the previous one is done: its request
// answered, its `wait` condition met, the connection up and greeted. That is
// what makes a script deterministic without sleeps.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "inarow/client/command.h"
#include "inarow/client/match_view.h"
#include "inarow/client/profile.h"
#include "inarow/client/render.h"

namespace inarow::client {

struct ControllerOptions {
  bool script = true;   // pace lines as described above
  bool pretty = false;  // boards and sentences for a person; else the line format
  Style style;
  std::string url;   // for messages only
  std::string name;  // --name: a new identity when it differs from the profile's
};

class Controller {
 public:
  struct Hooks {
    std::function<void(v1::ClientMessage)> send;
    std::function<void(const std::string&)> print;  // one or more whole lines
    std::function<void()> quit;
    std::function<void(const Profile&)> save_profile;
    // Drop the connection and make a new one at once (signing in as another
    // player needs a fresh hello).
    std::function<void()> reconnect;
  };

  Controller(ControllerOptions options, Profile profile, Hooks hooks);

  // The connection.
  void on_connecting(int attempt);
  void on_connected();
  void on_disconnected(const std::string& reason);
  void on_reconnect_scheduled(int attempt, std::chrono::milliseconds delay);
  void on_message(const v1::ServerMessage& message, SteadyTime now);

  // Input: a line typed or read; end of input.
  void on_line(std::string line);
  void on_eof();

  // What the prompt says now (clocks included).
  std::string prompt(SteadyTime now) const;
  // The next line is a password: not shown as it is typed, not kept in the
  // history, never run as a command. prompt() says which.
  bool asking_secret() const { return asking_.has_value(); }
  // A timed match is being shown: the prompt changes by itself.
  bool clock_running() const;
  bool greeted() const { return greeted_; }
  const Profile& profile() const { return profile_; }
  // Requests sent whose answer has not come yet (an answer, or the
  // connection's loss, forgets them).
  std::size_t unanswered() const;

 private:
  void pump();
  bool ready() const;
  bool runs_unready(const std::optional<std::string>& line) const;
  bool wait_met() const;
  void run(const std::string& line);
  void execute(const Command& c);
  std::uint64_t send(v1::ClientMessage m, Command::Kind kind);
  void send_hello();
  // Reads the next lines as secrets, one per prompt, then calls `then` with
  // them (in a script: the lines that follow the command).
  void ask_secrets(std::vector<std::string> prompts,
                   std::function<void(std::vector<std::string>)> then);
  void ask_next() const;
  void take_secret(std::string line);
  void set_password(bool changing, std::vector<std::string> secrets);
  void sign_in(std::string name, std::string password);
  void print(const std::string& text) const;
  // The terminal bell for a match we sit in, when a person at a terminal
  // wants sounds.
  void ring(const MatchView& v) const;
  void say(const std::string& line_form, const std::string& pretty_form) const;
  void client_error(const std::string& code, const std::string& message) const;

  void on_welcome(const v1::ServerMessage& m);
  void on_error(const v1::ServerMessage& m);
  void on_ack(const v1::ServerMessage& m);
  void on_match_state(const v1::ServerMessage& m, SteadyTime now);
  void on_event(const v1::MatchEvent& e, SteadyTime now);
  void on_rematch_event(const MatchView& view, const v1::MatchEvent& e);
  void on_match_list(const v1::MatchList& list);
  void on_seek_list(const v1::SeekList& list);
  void on_game_list(const v1::GameList& list);
  void on_game_record(const v1::ServerMessage& m, SteadyTime now);
  void ask_game(const Command& c);
  // `code` as an id: its number (1-based) in `listed`, or, when `ids` is
  // true and it is no number, itself. nullopt (a BAD_COMMAND said) for a
  // number not in the list: "no <what> number N in <where>".
  std::optional<std::string> from_list(const std::string& code,
                                       const std::vector<std::string>& listed, bool ids,
                                       const char* what, const char* where) const;
  void show_replay(int at, SteadyTime now);
  void on_profile(const v1::Profile& profile);
  // Asks for a level's bot's profile, to say what the arena measured of it
  // in `variant` when the answer comes.
  void ask_strength(const std::string& level, const std::string& variant);
  void on_leaderboard(const v1::Leaderboard& board);

  MatchView* current();
  const MatchView* current() const;
  MatchView* seated_live_match();
  std::string player_name(const MatchView& v, v1::Side s) const;
  std::string rated_name(const MatchView& v, v1::Side s) const;
  void show_board(const MatchView& v, SteadyTime now) const;
  void show_turn(const MatchView& v) const;
  std::string clocks_suffix(const MatchView& v, SteadyTime now) const;

  ControllerOptions options_;
  Profile profile_;
  Hooks hooks_;

  bool connected_ = false;
  bool greeted_ = false;
  bool quitting_ = false;
  std::uint64_t next_request_ = 1;
  std::uint64_t hello_request_ = 0;
  std::uint64_t pending_ = 0;  // script mode: the request a line waits for
  std::map<std::uint64_t, Command::Kind> requests_;
  std::string awaited_match_;  // acked, but its first event is still on the way
  std::optional<WaitFor> wait_;
  std::set<std::string> resuming_;                // matches whose state comes after welcome
  std::deque<std::optional<std::string>> lines_;  // nullopt: end of input
  bool seeking_ = false;
  bool account_ = false;  // the welcome said our name has a password

  // Secrets being read (password, login): the next lines are theirs.
  struct Asking {
    std::deque<std::string> prompts;  // still to be read
    std::vector<std::string> answers;
    std::function<void(std::vector<std::string>)> then;
  };
  std::optional<Asking> asking_;
  // `login`: the next hello signs in by name and password. Until it is
  // answered, the old connection's messages are dropped and no line runs.
  struct SignIn {
    std::string name;
    std::string password;
    std::uint64_t request = 0;  // its hello, once sent
  };
  std::optional<SignIn> sign_in_;

  std::string player_id_;
  std::map<std::string, MatchView> views_;
  // Ended matches whose opponent offers us a rematch: the offering side.
  std::map<std::string, v1::Side> rematch_offers_;
  std::string current_;
  std::vector<std::string> listed_;                 // ids by number, from the last list
  std::vector<std::string> seeks_listed_;           // seek ids by number, from the last seeks
  std::vector<std::string> games_listed_;           // ids by number, from the last `games`
  std::map<std::uint64_t, Command> game_requests_;  // replay and export, by request id
  std::optional<v1::GameRecord> replay_;            // the game `next` and `prev` step through
  int replay_ply_ = 0;
  // `bot` asks for the level's profile too: the variant, by request id.
  std::map<std::uint64_t, std::string> strength_requests_;
};

}  // namespace inarow::client
