#include "inarow/arena/record.h"

#include <sstream>

#include "json_text.h"

namespace inarow::arena {
namespace {

std::string_view result_text(Outcome o) {
  switch (o) {
    case Outcome::first_wins:
      return "1-0";
    case Outcome::second_wins:
      return "0-1";
    case Outcome::draw:
      return "1/2-1/2";
    default:
      return "*";
  }
}

}  // namespace

std::string record_line(const GameRecord& g, const std::string& fingerprint) {
  std::ostringstream out;
  out << "{\"tournament\":" << json::quote(fingerprint) << ",\"game\":" << g.index
      << ",\"pairing\":" << g.pairing << ",\"pair\":" << g.pair << ",\"first\":" << g.first
      << ",\"second\":" << g.second << ",\"first_name\":" << json::quote(g.first_name)
      << ",\"second_name\":" << json::quote(g.second_name)
      << ",\"variant\":" << json::quote(g.variant) << ",\"opening\":" << json::quote(g.opening)
      << ",\"moves\":" << json::quote(g.moves)
      << ",\"result\":" << json::quote(result_text(g.result))
      << ",\"reason\":" << json::quote(to_string(g.reason)) << ",\"plies\":" << g.plies
      << ",\"ms\":" << g.millis;
  if (!g.detail.empty()) out << ",\"detail\":" << json::quote(g.detail);
  out << '}';
  return out.str();
}

expected<GameRecord, Error> parse_record_line(std::string_view line, std::string* fingerprint) {
  auto bad = [](std::string what) {
    return unexpected(Error{ErrorCode::bad_syntax, 0, std::move(what)});
  };
  const auto obj = json::parse_flat(line);
  if (!obj) return bad("not a record line");
  auto get = [&](const char* key) -> const std::string* {
    auto it = obj->find(key);
    return it == obj->end() ? nullptr : &it->second;
  };
  for (const char* key : {"tournament", "game", "pairing", "pair", "first", "second", "result",
                          "reason", "moves", "opening", "variant"})
    if (!get(key)) return bad(std::string("record line lacks \"") + key + "\"");
  GameRecord g;
  try {
    g.index = std::stoll(*get("game"));
    g.pairing = std::stoi(*get("pairing"));
    g.pair = std::stoi(*get("pair"));
    g.first = std::stoi(*get("first"));
    g.second = std::stoi(*get("second"));
    if (auto p = get("plies")) g.plies = std::stoi(*p);
    if (auto p = get("ms")) g.millis = std::stoll(*p);
  } catch (const std::exception&) {
    return bad("a number in the record line does not parse");
  }
  if (auto p = get("first_name")) g.first_name = *p;
  if (auto p = get("second_name")) g.second_name = *p;
  if (auto p = get("detail")) g.detail = *p;
  g.variant = *get("variant");
  g.opening = *get("opening");
  g.moves = *get("moves");
  const auto& res = *get("result");
  if (res == "1-0") {
    g.result = Outcome::first_wins;
  } else if (res == "0-1") {
    g.result = Outcome::second_wins;
  } else if (res == "1/2-1/2") {
    g.result = Outcome::draw;
  } else {
    return bad("unknown result '" + res + "'");
  }
  const auto& reason = *get("reason");
  bool found = false;
  for (int t = 0; t < kTerminations; ++t)
    if (reason == to_string(Termination(t))) {
      g.reason = Termination(t);
      found = true;
    }
  if (!found) return bad("unknown reason '" + reason + "'");
  if (fingerprint) *fingerprint = *get("tournament");
  return g;
}

}  // namespace inarow::arena
