// The client messages the socket tests send, and checks of the server's
// answers: one definition each, shared by the test files.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

#include "inarow/v1/inarow.pb.h"

namespace inarow::testing {

namespace v1 = ::inarow::v1;

inline v1::ClientMessage hello_message(const std::string& name) {
  v1::ClientMessage m;
  m.mutable_hello()->set_protocol_version(v1::PROTOCOL_VERSION_CURRENT);
  m.mutable_hello()->set_name(name);
  return m;
}

inline v1::ClientMessage move_message(const std::string& match_id, const std::string& move) {
  v1::ClientMessage m;
  m.mutable_move()->set_match_id(match_id);
  m.mutable_move()->set_move(move);
  return m;
}

inline v1::ClientMessage resign_message(const std::string& match_id) {
  v1::ClientMessage m;
  m.mutable_resign()->set_match_id(match_id);
  return m;
}

inline v1::ClientMessage rematch_message(const std::string& match_id, bool decline = false) {
  v1::ClientMessage m;
  m.mutable_rematch()->set_match_id(match_id);
  m.mutable_rematch()->set_decline(decline);
  return m;
}

// Events after `after_seq` are replayed; a private match needs its code.
inline v1::ClientMessage watch_message(const std::string& match_id, std::uint64_t after_seq = 0,
                                       const std::string& code = {}) {
  v1::ClientMessage m;
  m.mutable_watch()->set_match_id(match_id);
  m.mutable_watch()->set_after_seq(after_seq);
  m.mutable_watch()->set_code(code);
  return m;
}

// A private game (the answer's Ack.code is for the friend), and joining one.
inline v1::ClientMessage create_private_message(const std::string& variant) {
  v1::ClientMessage m;
  m.mutable_create_private()->set_variant(variant);
  return m;
}

inline v1::ClientMessage join_private_message(const std::string& code) {
  v1::ClientMessage m;
  m.mutable_join_private()->set_code(code);
  return m;
}

// A seek (`rated` unset leaves the field out: the server's default), the
// open seeks' list, and accepting one of them.
inline v1::ClientMessage seek_message(const std::string& variant, std::int64_t initial_ms,
                                      std::int64_t increment_ms,
                                      std::optional<bool> rated = std::nullopt) {
  v1::ClientMessage m;
  auto* s = m.mutable_seek();
  s->set_variant(variant);
  s->mutable_time_control()->set_initial_ms(initial_ms);
  s->mutable_time_control()->set_increment_ms(increment_ms);
  if (rated) s->set_rated(*rated);
  return m;
}

inline v1::ClientMessage list_seeks_message(bool follow = false) {
  v1::ClientMessage m;
  m.mutable_list_seeks()->set_follow(follow);
  return m;
}

inline v1::ClientMessage accept_message(const std::string& seek_id) {
  v1::ClientMessage m;
  m.mutable_accept_seek()->set_seek_id(seek_id);
  return m;
}

inline v1::ClientMessage offer_draw_message(const std::string& match_id) {
  v1::ClientMessage m;
  m.mutable_offer_draw()->set_match_id(match_id);
  return m;
}

inline v1::ClientMessage ping_message() {
  v1::ClientMessage m;
  m.mutable_ping();
  return m;
}

// A new player's casual connect-four seek at 2 minutes + 1 s, as the open
// seeks' list shows it.
inline void expect_new_players_casual_seek(const v1::OpenSeek& s, const std::string& seek_id,
                                           const std::string& player_id, const std::string& name) {
  EXPECT_EQ(s.seek_id(), seek_id);
  EXPECT_EQ(s.player().id(), player_id);
  EXPECT_EQ(s.player().name(), name);
  EXPECT_FALSE(s.player().bot());
  EXPECT_DOUBLE_EQ(s.player().rating().rating(), 1500.0);
  EXPECT_DOUBLE_EQ(s.player().rating().deviation(), 350.0);
  EXPECT_EQ(s.variant(), "connect4");
  EXPECT_EQ(s.time_control().initial_ms(), 120'000);
  EXPECT_EQ(s.time_control().increment_ms(), 1'000);
  EXPECT_FALSE(s.rated());
}

inline void expect_ack(const v1::ServerMessage& m) {
  ASSERT_TRUE(m.has_ack()) << m.DebugString();
}

// An ack that names a match: its id.
inline std::string expect_match_ack(const v1::ServerMessage& m) {
  EXPECT_TRUE(m.has_ack()) << m.DebugString();
  EXPECT_FALSE(m.ack().match_id().empty()) << m.DebugString();
  return m.ack().match_id();
}

inline void expect_error(const v1::ServerMessage& m, v1::ErrorCode code) {
  ASSERT_TRUE(m.has_error()) << m.DebugString();
  EXPECT_EQ(m.error().code(), code) << m.DebugString();
}

// The error, with exactly this message.
inline void expect_error(const v1::ServerMessage& m, v1::ErrorCode code,
                         const std::string& message) {
  ASSERT_TRUE(m.has_error()) << m.DebugString();
  EXPECT_EQ(m.error().code(), code) << m.DebugString();
  EXPECT_EQ(m.error().message(), message);
}

}  // namespace inarow::testing
