#include "inarow/server/wire.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/util/json_util.h>

#include <cstring>

#include "inarow/common/json.h"
#include "inarow/common/utf8.h"

namespace inarow::server {

namespace v1 = ::inarow::v1;

std::shared_ptr<const Outgoing> Outgoing::event(std::string_view encoded_event) {
  using google::protobuf::io::CodedOutputStream;
  // Field `event`, wire type 2 (length-delimited), then the length: exactly
  // what ServerMessage::SerializeAsString writes before the event's bytes.
  constexpr auto kTag = static_cast<std::uint32_t>(v1::ServerMessage::kEventFieldNumber) << 3 | 2;
  const auto size = static_cast<std::uint32_t>(encoded_event.size());
  std::string frame(static_cast<std::size_t>(CodedOutputStream::VarintSize32(kTag) +
                                             CodedOutputStream::VarintSize32(size)) +
                        encoded_event.size(),
                    '\0');
  auto* at = reinterpret_cast<std::uint8_t*>(frame.data());
  at = CodedOutputStream::WriteVarint32ToArray(kTag, at);
  at = CodedOutputStream::WriteVarint32ToArray(size, at);
  std::memcpy(at, encoded_event.data(), encoded_event.size());
  return std::make_shared<const Outgoing>(Encoded{}, std::move(frame));
}

std::shared_ptr<const Outgoing> Outgoing::encoded(std::string binary) {
  return std::make_shared<const Outgoing>(Encoded{}, std::move(binary));
}

const std::string& Outgoing::payload(bool text) const {
  if (text) {
    std::call_once(text_once_, [this] {
      v1::ServerMessage decoded;
      if (encoded_) (void)decoded.ParseFromString(binary_);
      (void)google::protobuf::util::MessageToJsonString(encoded_ ? decoded : message_, &text_);
    });
    return text_;
  }
  if (!encoded_) std::call_once(binary_once_, [this] { binary_ = message_.SerializeAsString(); });
  return binary_;
}

OutgoingPtr make_outgoing(v1::ServerMessage message) {
  return std::make_shared<const Outgoing>(std::move(message));
}

std::string shown_message(const std::string& message) {
  bool plain = message.size() <= kMaxMessageBytes;
  for (std::string_view rest = message; plain && !rest.empty();) {
    const utf8::Char c = utf8::decode(rest);
    plain = c.valid && !utf8::hidden(c.code_point);
    rest.remove_prefix(c.length);
  }
  return plain ? message : json::echo(message, kMaxMessageBytes);
}

OutgoingPtr make_error(Metrics& metrics, std::uint64_t request_id, const Failure& failure,
                       const std::string& match_id) {
  metrics.errors[static_cast<int>(failure.code)].fetch_add(1, std::memory_order_relaxed);
  v1::ServerMessage m;
  m.set_request_id(request_id);
  auto* e = m.mutable_error();
  e->set_code(static_cast<v1::ErrorCode>(failure.code));
  e->set_message(shown_message(failure.message));
  e->set_match_id(match_id);
  return make_outgoing(std::move(m));
}

OutgoingPtr make_ack(std::uint64_t request_id, const std::string& match_id,
                     const std::string& code) {
  v1::ServerMessage m;
  m.set_request_id(request_id);
  m.mutable_ack()->set_match_id(match_id);
  m.mutable_ack()->set_code(code);
  return make_outgoing(std::move(m));
}

OutgoingPtr make_event(const v1::MatchEvent& e) {
  return Outgoing::event(e.SerializeAsString());
}

std::optional<Failure> parse_frame(std::string_view data, bool text, v1::ClientMessage& out) {
  bool parsed;
  if (text) {
    google::protobuf::util::JsonParseOptions options;
    options.ignore_unknown_fields = true;  // an unknown message is reported as such below
    parsed = google::protobuf::util::JsonStringToMessage(data, &out, options).ok();
  } else {
    parsed = out.ParseFromArray(data.data(), static_cast<int>(data.size()));
  }
  if (!parsed) {
    return Failure{ProtocolError::malformed,
                   text ? "not a ClientMessage in JSON" : "not a ClientMessage in protobuf"};
  }
  if (out.body_case() == v1::ClientMessage::BODY_NOT_SET) {
    return Failure{ProtocolError::unknown_message, "unknown message"};
  }
  return std::nullopt;
}

}  // namespace inarow::server
