#include "record_text.h"

#include <charconv>

namespace inarow::server::sqlite {

void encode_record(const std::vector<MoveRecord>& moves, std::string& out) {
  char number[24];
  auto put = [&](std::int64_t v) {
    const auto end = std::to_chars(number, number + sizeof number, v).ptr;
    out.append(number, end);
  };
  for (const MoveRecord& m : moves) {
    put(m.ply);
    out += ' ';
    out += m.move;
    out += ' ';
    put(m.first_ms);
    out += ' ';
    put(m.second_ms);
    out += '\n';
  }
}

void decode_record(std::string_view text, std::vector<MoveRecord>& out) {
  auto field = [&text]() {
    const auto end = text.find_first_of(" \n");
    const std::string_view f = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    return f;
  };
  auto number = [](std::string_view f, auto& v) {
    const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
    return ec == std::errc() && end == f.data() + f.size();
  };
  while (!text.empty()) {
    MoveRecord m;
    const std::string_view ply = field(), move = field(), first = field(), second = field();
    if (move.empty() || !number(ply, m.ply) || !number(first, m.first_ms) ||
        !number(second, m.second_ms)) {
      return;
    }
    m.move = std::string(move);
    out.push_back(std::move(m));
  }
}

}  // namespace inarow::server::sqlite
