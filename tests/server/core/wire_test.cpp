#include "inarow/server/wire.h"

#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <string>

namespace inarow::server {
namespace {

v1::MatchEvent sample_event(std::size_t move_text_size) {
  v1::MatchEvent e;
  e.set_match_id("m0193a1b2c3d4e5f6a7b8c9");
  e.set_seq(7);
  e.mutable_clocks()->set_first_ms(299'120);
  e.mutable_clocks()->set_second_ms(300'000);
  auto* made = e.mutable_move_made();
  made->set_side(v1::SIDE_SECOND);
  made->set_move(std::string(move_text_size, 'a'));
  made->set_ply(6);
  return e;
}

v1::ServerMessage wrapped(const v1::MatchEvent& e) {
  v1::ServerMessage m;
  *m.mutable_event() = e;
  return m;
}

// An event frame is spliced from the event's bytes; it must be the very
// frame protobuf would have written for ServerMessage{event}, whatever the
// length prefix needs (one byte below 128, two above).
TEST(Outgoing, AnEventFrameIsTheServerMessageProtobufWouldWrite) {
  for (std::size_t text : {2u, 200u, 20'000u}) {
    const v1::MatchEvent e = sample_event(text);
    auto out = Outgoing::event(e.SerializeAsString());
    EXPECT_EQ(out->payload(false), wrapped(e).SerializeAsString()) << "move text of " << text;

    v1::ServerMessage back;
    ASSERT_TRUE(back.ParseFromString(out->payload(false)));
    ASSERT_TRUE(back.has_event());
    EXPECT_EQ(back.event().seq(), 7u);
    EXPECT_EQ(back.event().move_made().move().size(), text);
  }
}

TEST(Outgoing, AnEventFrameInTextIsTheSameJson) {
  const v1::MatchEvent e = sample_event(2);
  std::string expected;
  ASSERT_TRUE(google::protobuf::util::MessageToJsonString(wrapped(e), &expected).ok());
  auto out = Outgoing::event(e.SerializeAsString());
  EXPECT_EQ(out->payload(true), expected);
  EXPECT_EQ(out->payload(true), expected);  // encoded once, kept
}

TEST(Outgoing, AMessageIsEncodedInEitherForm) {
  v1::ServerMessage m;
  m.set_request_id(42);
  m.mutable_ack()->set_match_id("m1");
  const Outgoing out(m);
  EXPECT_EQ(out.payload(false), m.SerializeAsString());
  std::string json;
  ASSERT_TRUE(google::protobuf::util::MessageToJsonString(m, &json).ok());
  EXPECT_EQ(out.payload(true), json);
}

}  // namespace
}  // namespace inarow::server
