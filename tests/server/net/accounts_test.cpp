// Accounts over real sockets: a player protects their name with a password
// and signs in with it from a second connection (the same player, the same
// ratings, and the first device's token still works); wrong passwords,
// names taken (case aside) by accounts, every bad request's exact error and
// nothing changed after it; profiles and the paged leaderboard; accounts
// kept across a restart on the same store. And players on demand: a player
// nothing holds any more is let go of, and read back from the store, with
// their ratings, account and name, when they come back.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "../store/records.h"
#include "inarow/bots/ladder.h"
#include "inarow/testing/messages.h"
#include "inarow/testing/temp_dir.h"
#include "inarow/testing/test_server.h"
#include "inarow/testing/ws_client.h"

namespace inarow::testing {
namespace {

using Kind = v1::MatchEvent::KindCase;

v1::ClientMessage sign_in_message(const std::string& name, const std::string& password,
                                  const std::string& token = {}) {
  v1::ClientMessage m = hello_message(name);
  m.mutable_hello()->set_password(password);
  m.mutable_hello()->set_token(token);
  return m;
}

v1::ClientMessage set_password_message(const std::string& password,
                                       const std::string& old_password = {}) {
  v1::ClientMessage m;
  m.mutable_set_password()->set_password(password);
  m.mutable_set_password()->set_old_password(old_password);
  return m;
}

v1::ClientMessage profile_message(const std::string& player_id, const std::string& name = {}) {
  v1::ClientMessage m;
  m.mutable_get_profile()->set_player_id(player_id);
  m.mutable_get_profile()->set_name(name);
  return m;
}

v1::ClientMessage leaderboard_message(const std::string& variant, std::uint32_t limit = 0,
                                      const std::string& after = {}) {
  v1::ClientMessage m;
  m.mutable_get_leaderboard()->set_variant(variant);
  m.mutable_get_leaderboard()->set_limit(limit);
  m.mutable_get_leaderboard()->set_after(after);
  return m;
}

// A rated tic-tac-toe game against a bot, resigned once both sides have
// moved (before that a game is aborted, unrated): the player's rating
// changes (a loss). Returns the rating after it.
v1::Rating lose_to_bot(WsClient& c, const std::string& level = "easy") {
  const std::string id = expect_match_ack(c.play_bot("tictactoe", level));
  expect_ack(c.move(id, "a1"));
  auto reply = c.next_until([&](const v1::ServerMessage& s) {
    return s.has_event() && s.event().match_id() == id && s.event().has_move_made() &&
           s.event().move_made().ply() == 2;
  });
  EXPECT_TRUE(reply) << "the bot did not answer";
  expect_ack(c.request(resign_message(id)));
  auto end = c.next_until([&](const v1::ServerMessage& s) {
    return s.has_event() && s.event().match_id() == id && s.event().kind_case() == Kind::kEnded;
  });
  EXPECT_TRUE(end);
  if (!end) return {};
  for (const auto& change : end->event().ended().ratings()) {
    if (change.player_id() == c.player_id()) return change.after();
  }
  ADD_FAILURE() << "no rating change for the player";
  return {};
}

const v1::VariantRating* rating_in(const v1::Profile& p, const std::string& variant) {
  for (const auto& r : p.ratings()) {
    if (r.variant() == variant) return &r;
  }
  return nullptr;
}

TEST(Accounts, SignInFromASecondDeviceIsTheSamePlayerAndTheFirstTokenStillWorks) {
  TestServer server;
  WsClient first(server.port());
  const auto welcome = first.hello("Alice");
  EXPECT_FALSE(welcome.account());
  const v1::Rating rated = lose_to_bot(first);
  EXPECT_LT(rated.rating(), 1500.0);
  expect_ack(first.request(set_password_message("correct horse")));

  WsClient second(server.port(), /*text=*/true);
  auto m = second.request(sign_in_message("aLiCe", "correct horse"));
  ASSERT_TRUE(m.has_welcome()) << m.DebugString();
  EXPECT_EQ(m.welcome().player_id(), first.player_id());
  EXPECT_EQ(m.welcome().name(), "Alice");
  EXPECT_TRUE(m.welcome().resumed());
  EXPECT_TRUE(m.welcome().account());
  EXPECT_TRUE(m.welcome().signed_in());
  EXPECT_FALSE(m.welcome().token().empty());
  EXPECT_NE(m.welcome().token(), first.token());  // the device's own token

  // The same ratings, seen from the new device.
  auto profile = second.request(profile_message({}));
  ASSERT_TRUE(profile.has_profile()) << profile.DebugString();
  EXPECT_EQ(profile.profile().player_id(), first.player_id());
  EXPECT_TRUE(profile.profile().account());
  EXPECT_GT(profile.profile().account_since_ms(), 0);
  const auto* ttt = rating_in(profile.profile(), "tictactoe");
  ASSERT_NE(ttt, nullptr);
  EXPECT_EQ(ttt->rating().rating(), rated.rating());
  EXPECT_EQ(ttt->rating().deviation(), rated.deviation());
  EXPECT_EQ(ttt->games(), 1u);

  // Both devices' tokens resume the player.
  WsClient third(server.port());
  EXPECT_EQ(third.resume(first.token()).player_id(), first.player_id());
  WsClient fourth(server.port());
  EXPECT_EQ(fourth.resume(m.welcome().token()).player_id(), first.player_id());
  // And the first connection is still the player's.
  EXPECT_TRUE(first.request(ping_message()).has_pong());
}

TEST(Accounts, AWrongPasswordIsRefusedAndGreetsNobody) {
  TestServer server;
  WsClient owner(server.port());
  owner.hello("Bob");
  expect_ack(owner.request(set_password_message("bob's secret")));

  WsClient other(server.port());
  expect_error(other.request(sign_in_message("Bob", "bob's secreT")), v1::ERROR_WRONG_PASSWORD,
               "wrong password");
  // Nothing changed: still not greeted, and the right password still works.
  expect_error(other.request(ping_message()), v1::ERROR_HELLO_REQUIRED);
  auto m = other.request(sign_in_message("bob", "bob's secret"));
  ASSERT_TRUE(m.has_welcome()) << m.DebugString();
  EXPECT_EQ(m.welcome().player_id(), owner.player_id());
}

TEST(Accounts, AnAccountsNameIsNotANewGuestsInAnyCase) {
  TestServer server;
  WsClient owner(server.port());
  owner.hello("Carol");
  expect_ack(owner.request(set_password_message("carol's secret")));
  for (const std::string name : {"Carol", "CAROL", "  carol  "}) {
    WsClient guest(server.port());
    expect_error(guest.request(hello_message(name)), v1::ERROR_NAME_TAKEN,
                 "the name \"" + std::string(name == "  carol  " ? "carol" : name) +
                     "\" is an account's: sign in with its password, or choose another");
    expect_error(guest.request(ping_message()), v1::ERROR_HELLO_REQUIRED);
  }
  // Another name is fine.
  WsClient guest(server.port());
  EXPECT_EQ(guest.hello("Caroline").name(), "Caroline");
}

TEST(Accounts, AGuestCannotClaimACaseVariantOfAnAccountsName) {
  TestServer server;
  // Two guests named alike, before either is an account.
  WsClient dave(server.port());
  dave.hello("Dave");
  WsClient other(server.port());
  other.hello("DAVE");
  expect_ack(dave.request(set_password_message("dave's secret")));
  expect_error(other.request(set_password_message("another secret")), v1::ERROR_NAME_TAKEN,
               "the name \"DAVE\" is already an account's");
  // Nothing changed: the other is still a guest; the account's password is
  // still Dave's.
  auto p = other.request(profile_message({}));
  ASSERT_TRUE(p.has_profile());
  EXPECT_FALSE(p.profile().account());
  WsClient device(server.port());
  expect_error(device.request(sign_in_message("dave", "another secret")), v1::ERROR_WRONG_PASSWORD);
  WsClient device2(server.port());
  EXPECT_TRUE(device2.request(sign_in_message("dave", "dave's secret")).has_welcome());
}

TEST(Accounts, BadPasswordRequestsGetTheirErrorsAndChangeNothing) {
  TestServer server;
  WsClient c(server.port());
  c.hello("Erin");
  expect_error(c.request(set_password_message("short")), v1::ERROR_WEAK_PASSWORD,
               "passwords need at least 8 bytes");
  expect_error(c.request(set_password_message("eRIN")), v1::ERROR_WEAK_PASSWORD,
               "passwords need at least 8 bytes");
  WsClient named(server.port());
  named.hello("Frank Long");
  expect_error(named.request(set_password_message("frank long")), v1::ERROR_WEAK_PASSWORD,
               "a password cannot be the name itself");
  expect_error(c.request(set_password_message(std::string(129, 'x'))), v1::ERROR_BAD_REQUEST,
               "passwords are at most 128 bytes");
  // None of these made an account.
  auto p = c.request(profile_message({}));
  ASSERT_TRUE(p.has_profile());
  EXPECT_FALSE(p.profile().account());
  WsClient guest(server.port());
  EXPECT_EQ(guest.hello("erin").name(), "erin");

  // 128 bytes is allowed.
  expect_ack(c.request(set_password_message(std::string(128, 'x'))));
  // Changing needs the old password, and the right one.
  expect_error(c.request(set_password_message("new password")), v1::ERROR_WRONG_PASSWORD,
               "changing a password needs the old one");
  expect_error(c.request(set_password_message("new password", "not the old one")),
               v1::ERROR_WRONG_PASSWORD, "wrong password");
  WsClient still_old(server.port());
  EXPECT_TRUE(still_old.request(sign_in_message("Erin", std::string(128, 'x'))).has_welcome());
  // With it, the new one replaces the old.
  expect_ack(c.request(set_password_message("new password", std::string(128, 'x'))));
  WsClient old_one(server.port());
  expect_error(old_one.request(sign_in_message("Erin", std::string(128, 'x'))),
               v1::ERROR_WRONG_PASSWORD);
  WsClient new_one(server.port());
  EXPECT_TRUE(new_one.request(sign_in_message("Erin", "new password")).has_welcome());
}

TEST(Accounts, BadSignInsGetTheirErrors) {
  TestServer server;
  WsClient owner(server.port());
  owner.hello("Grace");
  expect_ack(owner.request(set_password_message("grace's secret")));

  WsClient c(server.port());
  expect_error(c.request(sign_in_message("Nobody", "whatever it is")), v1::ERROR_UNKNOWN_PLAYER,
               "no account is named \"Nobody\"");
  expect_error(c.request(sign_in_message("Grace", "grace's secret", owner.token())),
               v1::ERROR_BAD_REQUEST, "a password signs in by name: send the name and no token");
  expect_error(c.request(sign_in_message("Grace", std::string(129, 'g'))), v1::ERROR_BAD_REQUEST,
               "passwords are at most 128 bytes");
  expect_error(c.request(sign_in_message("", "grace's secret")), v1::ERROR_BAD_REQUEST,
               "a name needs a visible character");
  // A guest's name is not an account.
  WsClient guest(server.port());
  guest.hello("Heidi");
  expect_error(c.request(sign_in_message("Heidi", "heidi's secret")), v1::ERROR_UNKNOWN_PLAYER,
               "no account is named \"Heidi\"");
  expect_error(c.request(ping_message()), v1::ERROR_HELLO_REQUIRED);
  // A greeted connection cannot sign in again.
  expect_error(owner.request(sign_in_message("Grace", "grace's secret")),
               v1::ERROR_ALREADY_GREETED);
}

TEST(Accounts, WrongPasswordsAreRateLimitedPerName) {
  auto config = test_config();
  config.password_failures_per_name = 2;
  TestServer server(config);
  WsClient owner(server.port());
  owner.hello("Ivan");
  expect_ack(owner.request(set_password_message("ivan's secret")));
  WsClient c(server.port());
  expect_error(c.request(sign_in_message("Ivan", "guess one")), v1::ERROR_WRONG_PASSWORD);
  expect_error(c.request(sign_in_message("ivan", "guess two")), v1::ERROR_WRONG_PASSWORD);
  // Even the right password waits out the window now, for this name only.
  expect_error(c.request(sign_in_message("IVAN", "ivan's secret")), v1::ERROR_RATE_LIMITED,
               "too many wrong passwords lately for this name or address; wait a minute");
  // A password change by the owner counts the same name too.
  expect_error(owner.request(set_password_message("a new secret", "ivan's secret")),
               v1::ERROR_RATE_LIMITED);
  WsClient judy(server.port());
  judy.hello("Judy");
  expect_ack(judy.request(set_password_message("judy's secret")));
  EXPECT_TRUE(c.request(sign_in_message("Judy", "judy's secret")).has_welcome());
}

TEST(Accounts, WrongPasswordsInFlightTogetherCannotPassTheLimit) {
  auto config = test_config();
  config.password_failures_per_name = 2;
  TestServer server(config);
  WsClient owner(server.port());
  owner.hello("Karl");
  expect_ack(owner.request(set_password_message("karl's secret")));
  // Five guesses sent at once, each asked before any hash is done.
  std::vector<std::unique_ptr<WsClient>> guessers;
  for (int i = 0; i < 5; ++i) {
    guessers.push_back(std::make_unique<WsClient>(server.port()));
    guessers.back()->send(sign_in_message("Karl", "guess " + std::to_string(i)));
  }
  int wrong = 0;
  int limited = 0;
  for (auto& g : guessers) {
    auto reply = g->next();
    ASSERT_TRUE(reply && reply->has_error());
    if (reply->error().code() == v1::ERROR_WRONG_PASSWORD) ++wrong;
    if (reply->error().code() == v1::ERROR_RATE_LIMITED) ++limited;
  }
  EXPECT_EQ(wrong, 2);
  EXPECT_EQ(limited, 3);
  // A right password is taken back: the owner's change does not count.
  WsClient other(server.port());
  other.hello("Lena");
  expect_ack(other.request(set_password_message("lena's secret")));
  EXPECT_TRUE(
      WsClient(server.port()).request(sign_in_message("Lena", "lena's secret")).has_welcome());
  EXPECT_TRUE(
      WsClient(server.port()).request(sign_in_message("Lena", "lena's secret")).has_welcome());
  expect_error(WsClient(server.port()).request(sign_in_message("Lena", "guess")),
               v1::ERROR_WRONG_PASSWORD);
  expect_error(WsClient(server.port()).request(sign_in_message("Lena", "guess")),
               v1::ERROR_WRONG_PASSWORD);
  expect_error(WsClient(server.port()).request(sign_in_message("Lena", "lena's secret")),
               v1::ERROR_RATE_LIMITED);
}

TEST(Accounts, ProfilesByIdAndNameAndTheirErrors) {
  TestServer server;
  WsClient c(server.port());
  c.hello("Mallory");
  lose_to_bot(c, "easy");
  // The bot, by name in any case, and by id.
  auto bot = c.request(profile_message({}, "EASY bot"));
  ASSERT_TRUE(bot.has_profile()) << bot.DebugString();
  EXPECT_TRUE(bot.profile().bot());
  EXPECT_EQ(bot.profile().name(), "easy bot");
  EXPECT_EQ(bot.profile().player_id(), "bot-easy");
  const auto* r = rating_in(bot.profile(), "tictactoe");
  ASSERT_NE(r, nullptr);
  EXPECT_GT(r->rating().rating(), 1500.0);
  EXPECT_EQ(r->games(), 1u);
  auto by_id = c.request(profile_message(c.player_id()));
  ASSERT_TRUE(by_id.has_profile());
  EXPECT_EQ(by_id.profile().name(), "Mallory");
  EXPECT_FALSE(by_id.profile().account());
  EXPECT_EQ(by_id.profile().account_since_ms(), 0);

  expect_error(c.request(profile_message("p0000")), v1::ERROR_UNKNOWN_PLAYER, "no player p0000");
  expect_error(c.request(profile_message(c.player_id(), "Mallory")), v1::ERROR_BAD_REQUEST,
               "ask by player id or by name, not both");
  // A guest is found by id, not by name.
  expect_error(c.request(profile_message({}, "Mallory")), v1::ERROR_UNKNOWN_PLAYER,
               "no account or bot is named \"Mallory\"");
  expect_error(c.request(profile_message({}, std::string(129, 'n'))), v1::ERROR_BAD_REQUEST,
               "names are at most 32 bytes");
  // A name is looked up as hello keeps it, with its limit and its errors.
  expect_error(c.request(profile_message({}, std::string(33, 'n'))), v1::ERROR_BAD_REQUEST,
               "names are at most 32 bytes");
  expect_error(c.request(profile_message({}, "mal\x01lory")), v1::ERROR_BAD_REQUEST,
               "names cannot hold control or formatting characters (U+0001 at byte 3)");
  // A level's bot that has not played here yet has a profile, without ratings.
  auto unplayed = c.request(profile_message({}, "Hard Bot"));
  ASSERT_TRUE(unplayed.has_profile()) << unplayed.DebugString();
  EXPECT_EQ(unplayed.profile().player_id(), "bot-hard");
  EXPECT_EQ(unplayed.profile().name(), "hard bot");
  EXPECT_TRUE(unplayed.profile().bot());
  EXPECT_EQ(unplayed.profile().ratings_size(), 0);
  expect_error(c.request(profile_message({}, "wizard bot")), v1::ERROR_UNKNOWN_PLAYER,
               "no account or bot is named \"wizard bot\"");  // no such level
  auto spaced_bot = c.request(profile_message({}, "  Easy   bot "));
  ASSERT_TRUE(spaced_bot.has_profile()) << spaced_bot.DebugString();
  EXPECT_EQ(spaced_bot.profile().player_id(), "bot-easy");
  expect_ack(c.request(set_password_message("mallory's secret")));
  auto by_name = c.request(profile_message({}, "mallory"));
  ASSERT_TRUE(by_name.has_profile());
  EXPECT_EQ(by_name.profile().player_id(), c.player_id());
  EXPECT_TRUE(by_name.profile().account());
  auto spaced = c.request(profile_message({}, " MALLORY "));
  ASSERT_TRUE(spaced.has_profile());
  EXPECT_EQ(spaced.profile().player_id(), c.player_id());
}

// The measurement of a profile in a variant; null when it has none.
const v1::LevelMeasure* measured_in(const v1::Profile& p, const std::string& variant) {
  for (const auto& m : p.measured()) {
    if (m.variant() == variant) return &m;
  }
  return nullptr;
}

TEST(Accounts, ALevelsBotShowsWhatTheArenaMeasuredAndAPersonNothing) {
  // The numbers are the file's in the tree (today hard is 543.7 +- 67.6 over
  // beginner in 400 games of connect four), read here, not copied.
  const auto ladder = bots::load_ladder(std::string(INAROW_WEIGHTS_DIR) + "/connect4_levels.txt");
  ASSERT_TRUE(ladder) << ladder.error().describe();
  const auto rung = std::find_if(ladder->rungs.begin(), ladder->rungs.end(),
                                 [](const bots::LadderRung& r) { return r.level == "hard"; });
  ASSERT_NE(rung, ladder->rungs.end());

  TestServer server;
  WsClient c(server.port(), /*text=*/true);  // through protobuf's JSON
  c.hello("Nadia");
  auto hard = c.request(profile_message({}, "hard bot"));
  ASSERT_TRUE(hard.has_profile()) << hard.DebugString();
  const auto* m = measured_in(hard.profile(), "connect4");
  ASSERT_NE(m, nullptr) << hard.DebugString();
  EXPECT_EQ(m->level(), "hard");
  EXPECT_EQ(m->elo(), rung->elo);
  EXPECT_EQ(m->margin(), rung->margin);
  EXPECT_EQ(m->anchor(), "beginner");
  EXPECT_EQ(m->anchor(), ladder->anchor());
  EXPECT_EQ(m->games(), static_cast<std::uint32_t>(ladder->games));
  EXPECT_GT(m->games(), 0u);
  // One entry for each variant whose ladder has the level, and none else.
  int ladders_with_hard = 0;
  for (const auto& l : bots::built_in_ladders())
    ladders_with_hard += bots::measured_level(l.variant, "hard") ? 1 : 0;
  EXPECT_EQ(hard.profile().measured_size(), ladders_with_hard);
  EXPECT_EQ(measured_in(hard.profile(), "tictactoe"), nullptr);
  // The anchor is at 0; a level the ladder left out (master, for time) is not
  // measured in connect four.
  auto beginner = c.request(profile_message({}, "beginner bot"));
  ASSERT_TRUE(beginner.has_profile());
  const auto* zero = measured_in(beginner.profile(), "connect4");
  ASSERT_NE(zero, nullptr);
  EXPECT_EQ(zero->elo(), 0.0);
  EXPECT_EQ(zero->anchor(), "beginner");
  auto master = c.request(profile_message({}, "master bot"));
  ASSERT_TRUE(master.has_profile());
  EXPECT_EQ(measured_in(master.profile(), "connect4"), nullptr);

  // A person, even after a game against a bot, has no measurement; the bot,
  // now in the store, has the same by id, over binary frames.
  WsClient binary(server.port());
  binary.hello("Oscar");
  lose_to_bot(binary, "hard");
  auto by_id = binary.request(profile_message("bot-hard"));
  ASSERT_TRUE(by_id.has_profile()) << by_id.DebugString();
  EXPECT_EQ(by_id.profile().measured_size(), ladders_with_hard);
  ASSERT_NE(measured_in(by_id.profile(), "connect4"), nullptr);
  EXPECT_EQ(measured_in(by_id.profile(), "connect4")->elo(), rung->elo);
  auto person = binary.request(profile_message({}));
  ASSERT_TRUE(person.has_profile());
  EXPECT_FALSE(person.profile().bot());
  EXPECT_EQ(person.profile().ratings_size(), 1);
  EXPECT_EQ(person.profile().measured_size(), 0);
}

TEST(Accounts, TheLeaderboardRanksByRatingWithAMinimumOfGamesAndPages) {
  auto config = test_config();
  config.leaderboard_min_games = 2;
  TestServer server(config);
  WsClient a(server.port());
  a.hello("Olivia");
  WsClient b(server.port());
  b.hello("Peggy");
  lose_to_bot(a, "easy");
  lose_to_bot(a, "easy");
  lose_to_bot(b, "medium");  // one game: not ranked yet

  auto board = a.request(leaderboard_message("tictactoe"));
  ASSERT_TRUE(board.has_leaderboard()) << board.DebugString();
  const auto& l = board.leaderboard();
  EXPECT_EQ(l.variant(), "tictactoe");
  EXPECT_EQ(l.min_games(), 2u);
  ASSERT_EQ(l.total(), 2u);  // the easy bot and Olivia
  ASSERT_EQ(l.entries_size(), 2);
  EXPECT_EQ(l.entries(0).rank(), 1u);
  EXPECT_EQ(l.entries(0).player_id(), "bot-easy");
  EXPECT_TRUE(l.entries(0).bot());
  EXPECT_EQ(l.entries(0).games(), 2u);
  EXPECT_EQ(l.entries(1).rank(), 2u);
  EXPECT_EQ(l.entries(1).name(), "Olivia");
  EXPECT_FALSE(l.entries(1).bot());
  EXPECT_LT(l.entries(1).rating().rating(), l.entries(0).rating().rating());
  EXPECT_TRUE(l.next().empty());

  // Pages of one.
  auto first = a.request(leaderboard_message("tictactoe", 1));
  ASSERT_TRUE(first.has_leaderboard());
  ASSERT_EQ(first.leaderboard().entries_size(), 1);
  EXPECT_EQ(first.leaderboard().entries(0).player_id(), "bot-easy");
  EXPECT_EQ(first.leaderboard().next(), "1");
  auto second = a.request(leaderboard_message("tictactoe", 1, "1"));
  ASSERT_TRUE(second.has_leaderboard());
  ASSERT_EQ(second.leaderboard().entries_size(), 1);
  EXPECT_EQ(second.leaderboard().entries(0).rank(), 2u);
  EXPECT_EQ(second.leaderboard().entries(0).player_id(), a.player_id());
  EXPECT_TRUE(second.leaderboard().next().empty());
  // Another variant has nobody yet; mnk:3,3,3 is tic-tac-toe's own board.
  auto other = a.request(leaderboard_message("connect4"));
  ASSERT_TRUE(other.has_leaderboard());
  EXPECT_EQ(other.leaderboard().total(), 0u);

  expect_error(a.request(leaderboard_message("chess")), v1::ERROR_UNKNOWN_VARIANT);
  expect_error(a.request(leaderboard_message("tictactoe", 0, "x1")), v1::ERROR_BAD_REQUEST,
               "after is the next cursor of an earlier page, not \"x1\"");
  expect_error(a.request(leaderboard_message("tictactoe", 0, "-1")), v1::ERROR_BAD_REQUEST);
}

TEST(Accounts, AnAccountAndItsDevicesOutliveARestart) {
  TempDir dir;
  auto config = test_config();
  config.store = (dir.path() / "inarow.db").string();
  std::string player_id, first_token, second_token;
  {
    TestServer server(config);
    WsClient c(server.port());
    player_id = c.hello("Rupert").player_id();
    first_token = c.token();
    lose_to_bot(c);
    expect_ack(c.request(set_password_message("rupert's secret")));
    WsClient d(server.port());
    auto m = d.request(sign_in_message("Rupert", "rupert's secret"));
    ASSERT_TRUE(m.has_welcome());
    second_token = m.welcome().token();
  }
  TestServer server(config);
  WsClient a(server.port());
  EXPECT_EQ(a.resume(first_token).player_id(), player_id);
  WsClient b(server.port());
  EXPECT_EQ(b.resume(second_token).player_id(), player_id);
  WsClient c(server.port());
  auto m = c.request(sign_in_message("RUPERT", "rupert's secret"));
  ASSERT_TRUE(m.has_welcome()) << m.DebugString();
  EXPECT_EQ(m.welcome().player_id(), player_id);
  auto p = c.request(profile_message({}));
  ASSERT_TRUE(p.has_profile());
  const auto* r = rating_in(p.profile(), "tictactoe");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->games(), 1u);
  WsClient guest(server.port());
  expect_error(guest.request(hello_message("rupert")), v1::ERROR_NAME_TAKEN);
}

TEST(Accounts, AHashOfAnOlderCostIsMadeAgainAtTheNewOneOnSignIn) {
  TempDir dir;
  auto config = test_config();
  config.store = (dir.path() / "inarow.db").string();
  const auto stored_hash = [&] {
    return server::testing::query_text(dir.path() / "inarow.db",
                                       "SELECT password_hash FROM accounts");
  };
  config.password_ops = 1;
  config.password_memory_kib = 1024;
  {
    TestServer server(config);
    WsClient c(server.port());
    c.hello("Selma");
    expect_ack(c.request(set_password_message("selma's secret")));
  }
  const std::string old_hash = stored_hash();
  EXPECT_NE(old_hash.find("$m=1024,t=1,"), std::string::npos) << old_hash;

  config.password_ops = 2;
  config.password_memory_kib = 2048;
  TestServer server(config);
  ASSERT_TRUE(
      WsClient(server.port()).request(sign_in_message("Selma", "selma's secret")).has_welcome());
  const std::string new_hash = stored_hash();
  EXPECT_NE(new_hash.find("$m=2048,t=2,"), std::string::npos) << new_hash;
  // The new hash is the one checked from now on, and a hash of today's cost
  // is left alone.
  ASSERT_TRUE(
      WsClient(server.port()).request(sign_in_message("Selma", "selma's secret")).has_welcome());
  EXPECT_EQ(stored_hash(), new_hash);
  expect_error(WsClient(server.port()).request(sign_in_message("Selma", "wrong one")),
               v1::ERROR_WRONG_PASSWORD);
}

TEST(Accounts, AChangedPasswordSignsTheOtherDevicesOutForGood) {
  TempDir dir;
  auto config = test_config();
  config.store = (dir.path() / "inarow.db").string();
  std::string first_token, second_token, third_token;
  {
    TestServer server(config);
    WsClient first(server.port());
    first.hello("Nina");
    first_token = first.token();
    expect_ack(first.request(set_password_message("nina's secret")));
    WsClient second(server.port());
    auto m = second.request(sign_in_message("Nina", "nina's secret"));
    ASSERT_TRUE(m.has_welcome());
    second_token = m.welcome().token();
    WsClient third(server.port());
    m = third.request(sign_in_message("nina", "nina's secret"));
    ASSERT_TRUE(m.has_welcome());
    third_token = m.welcome().token();
    WsClient first_tab(server.port());  // the first device, in another tab
    first_tab.resume(first_token);

    expect_ack(first.request(set_password_message("a better secret", "nina's secret")));
    for (WsClient* gone : {&second, &third}) {
      auto bye = gone->next_until([](const v1::ServerMessage& s) { return s.has_bye(); });
      ASSERT_TRUE(bye);
      EXPECT_EQ(bye->bye().reason(), "signed out: the password was changed on another device");
      EXPECT_FALSE(gone->next());
      EXPECT_TRUE(gone->closed());
      EXPECT_EQ(gone->close_code(), 1001);
    }
    EXPECT_TRUE(first_tab.request(ping_message()).has_pong());
    expect_error(WsClient(server.port()).request(sign_in_message({}, {}, second_token)),
                 v1::ERROR_BAD_TOKEN, "unknown token");
    expect_error(WsClient(server.port()).request(sign_in_message("Nina", "nina's secret")),
                 v1::ERROR_WRONG_PASSWORD);
    EXPECT_TRUE(
        WsClient(server.port()).request(sign_in_message("Nina", "a better secret")).has_welcome());
  }
  // The store agrees: only the device that changed it still names her.
  TestServer server(config);
  EXPECT_FALSE(WsClient(server.port()).resume(first_token).player_id().empty());
  for (const std::string& token : {second_token, third_token}) {
    expect_error(WsClient(server.port()).request(sign_in_message({}, {}, token)),
                 v1::ERROR_BAD_TOKEN, "unknown token");
  }
}

// ---- Players on demand: held while something needs them, read back after.

// A figure from GET /metrics (-1 if it is not there).
double metric(std::uint16_t port, const std::string& name) {
  const HttpReply reply = http_get(port, "/metrics");
  const std::string line_start = "\n" + name + " ";
  const auto at = reply.body.find(line_start);
  if (at == std::string::npos) return -1;
  return std::stod(reply.body.substr(at + line_start.size()));
}

// Waits until the server holds `players` players (a departure is handled
// on the router's strand, after the socket closes).
bool holds(std::uint16_t port, double players) {
  for (int i = 0; i < 300; ++i) {
    if (metric(port, "inarow_players_held") == players) return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

server::ServerConfig short_grace() {
  auto config = test_config();
  config.reconnect_grace = 200ms;  // an ended match lets its players go soon
  return config;
}

TEST(PlayersOnDemand, APlayerWhoLeftIsLetGoAndComesBackWithTheirRatings) {
  TestServer server(short_grace());
  std::string token, id;
  v1::Rating rated;
  {
    WsClient c(server.port());
    id = c.hello("Oscar").player_id();
    token = c.token();
    rated = lose_to_bot(c);
    EXPECT_EQ(metric(server.port(), "inarow_players_held"), 2);  // Oscar and the easy bot
  }
  // Gone, with his match's linger: only the bot is held.
  ASSERT_TRUE(holds(server.port(), 1));
  const double reads = metric(server.port(), "inarow_player_reads_total");

  WsClient back(server.port());
  const auto welcome = back.resume(token);
  EXPECT_EQ(welcome.player_id(), id);
  EXPECT_EQ(welcome.name(), "Oscar");
  EXPECT_TRUE(welcome.resumed());
  EXPECT_EQ(metric(server.port(), "inarow_player_reads_total"), reads + 1);
  EXPECT_EQ(metric(server.port(), "inarow_players_held"), 2);
  auto p = back.request(profile_message({}));
  ASSERT_TRUE(p.has_profile()) << p.DebugString();
  const auto* r = rating_in(p.profile(), "tictactoe");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->rating().rating(), rated.rating());
  EXPECT_EQ(r->games(), 1u);
  // The next game starts from the rating read back, not from 1500.
  const v1::Rating again = lose_to_bot(back);
  EXPECT_LT(again.rating(), rated.rating());
  auto q = back.request(profile_message({}));
  ASSERT_TRUE(q.has_profile());
  EXPECT_EQ(rating_in(q.profile(), "tictactoe")->games(), 2u);
}

TEST(PlayersOnDemand, AnUnknownTokenIsStillRefusedAndHoldsNobody) {
  TestServer server;
  WsClient c(server.port());
  expect_error(c.request(sign_in_message({}, {}, "no such token")), v1::ERROR_BAD_TOKEN,
               "unknown token");
  expect_error(c.request(ping_message()), v1::ERROR_HELLO_REQUIRED);
  EXPECT_EQ(metric(server.port(), "inarow_players_held"), 0);
}

TEST(PlayersOnDemand, AnAccountLetGoOfStillOwnsItsNameAndSignsIn) {
  TestServer server;
  std::string id;
  {
    WsClient guest(server.port());
    guest.hello("Hank");  // a guest named alike, from before the account
    WsClient owner(server.port());
    id = owner.hello("HANK").player_id();
    expect_ack(owner.request(set_password_message("hank's secret")));
    owner.close();
    ASSERT_TRUE(holds(server.port(), 1));  // the guest alone
    // The account is not held, but its name is still its own.
    expect_error(guest.request(set_password_message("another secret")), v1::ERROR_NAME_TAKEN,
                 "the name \"Hank\" is already an account's");
    expect_error(WsClient(server.port()).request(hello_message("hank")), v1::ERROR_NAME_TAKEN);
  }
  ASSERT_TRUE(holds(server.port(), 0));
  WsClient device(server.port());
  auto m = device.request(sign_in_message("Hank", "hank's secret"));
  ASSERT_TRUE(m.has_welcome()) << m.DebugString();
  EXPECT_EQ(m.welcome().player_id(), id);
  EXPECT_TRUE(m.welcome().account());
  // A wrong password read back the account, and let it go again.
  device.close();
  ASSERT_TRUE(holds(server.port(), 0));
  WsClient wrong(server.port());
  expect_error(wrong.request(sign_in_message("hank", "not it")), v1::ERROR_WRONG_PASSWORD);
  EXPECT_TRUE(holds(server.port(), 0));
  // Profiles and the leaderboard come from the store: the account is there.
  expect_error(wrong.request(profile_message({}, "hank")), v1::ERROR_HELLO_REQUIRED);
  WsClient reader(server.port());
  reader.hello("Ivy");
  auto q = reader.request(profile_message(id));
  ASSERT_TRUE(q.has_profile()) << q.DebugString();
  EXPECT_EQ(q.profile().name(), "HANK");
  EXPECT_TRUE(q.profile().account());
  auto by_name = reader.request(profile_message({}, "hank"));
  ASSERT_TRUE(by_name.has_profile());
  EXPECT_EQ(by_name.profile().player_id(), id);
}

TEST(PlayersOnDemand, ManyGuestsComeAndGoAndOnlyWhoIsHereIsHeld) {
  TestServer server;
  WsClient stays(server.port());
  stays.hello("Stays");
  std::vector<std::string> tokens;
  for (int i = 0; i < 50; ++i) {
    WsClient c(server.port());
    c.hello("Guest " + std::to_string(i));
    tokens.push_back(c.token());
  }
  ASSERT_TRUE(holds(server.port(), 1));
  // Every one of them comes back by token, and is let go again.
  for (const std::string& token : tokens) {
    WsClient c(server.port());
    EXPECT_TRUE(c.resume(token).resumed());
  }
  EXPECT_TRUE(holds(server.port(), 1));
  EXPECT_EQ(metric(server.port(), "inarow_player_reads_total"), 50);
}

// The code of the private tictactoe game `creator` opens ("" if refused).
std::string open_private_code(WsClient& creator) {
  auto ack = creator.request(create_private_message("tictactoe"));
  EXPECT_TRUE(ack.has_ack()) << ack.DebugString();
  return ack.has_ack() ? ack.ack().code() : "";
}

TEST(PlayersOnDemand, APrivateGameWaitsForItsCreatorThroughTheGraceThenLapses) {
  TestServer server(short_grace());
  std::string code, token;
  {
    WsClient creator(server.port());
    creator.hello("Creator");
    token = creator.token();
    code = open_private_code(creator);
  }
  // Held while the code is open: a friend who joins at once gets the game.
  WsClient friend_(server.port());
  friend_.hello("Friend");
  EXPECT_EQ(metric(server.port(), "inarow_players_held"), 2);
  const std::string match = expect_match_ack(friend_.request(join_private_message(code)));
  EXPECT_FALSE(match.empty());
  expect_ack(friend_.request(resign_message(match)));

  // A second code, and the creator gone past the grace: it lapses.
  {
    WsClient creator(server.port());
    creator.resume(token);
    code = open_private_code(creator);
  }
  ASSERT_TRUE(holds(server.port(), 1));  // the friend alone
  expect_error(friend_.request(join_private_message(code)), v1::ERROR_UNKNOWN_CODE);
}

TEST(PlayersOnDemand, APrivateCodeLapsesAGraceAfterItsCreatorsLastDeparture) {
  auto config = test_config();
  config.reconnect_grace = 2s;
  TestServer server(config);
  std::string code, token;
  auto first_left = std::chrono::steady_clock::now();
  {
    WsClient creator(server.port());
    creator.hello("Creator");
    token = creator.token();
    code = open_private_code(creator);
    first_left = std::chrono::steady_clock::now();
  }
  // Back and gone again halfway through the grace: the code now waits a
  // whole grace from this second departure, not from the first.
  std::this_thread::sleep_until(first_left + 1s);
  {
    WsClient creator(server.port());
    ASSERT_TRUE(creator.resume(token).resumed());
  }
  std::this_thread::sleep_until(first_left + 2500ms);
  WsClient friend_(server.port());
  friend_.hello("Friend");
  const std::string match = expect_match_ack(friend_.request(join_private_message(code)));
  EXPECT_FALSE(match.empty());
}

}  // namespace
}  // namespace inarow::testing
