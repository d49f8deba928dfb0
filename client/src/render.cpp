#include "inarow/client/render.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "inarow/engine/notation.h"

namespace inarow::client {

std::string paint(std::string_view text, const char* code, const Style& style) {
  if (!style.color) return std::string(text);
  return "\x1b[" + std::string(code) + "m" + std::string(text) + "\x1b[0m";
}

const char* stone(v1::Side s) {
  return s == v1::SIDE_SECOND ? "O" : "X";
}

std::string render_board(const MatchView& view, const Style& style) {
  const Game& g = view.game();
  const Variant& v = g.variant();
  const Cell last = g.ply() > 0 ? g.last_move() : kNoCell;
  const auto& line = view.winning_line();
  const int label_width = v.height >= 10 ? 2 : 1;

  // Under gravity a column is named by its number, as moves are typed;
  // two-digit numbers take the column's cell and the space before it.
  auto column_name = [&](int c) {
    if (!v.gravity) return " " + std::string(1, char('a' + c)) + " ";
    const std::string n = std::to_string(c + 1);
    return (n.size() == 1 ? " " : "") + n + " ";
  };
  std::string header(static_cast<std::size_t>(label_width) + 1, ' ');
  for (int c = 0; c < v.width; ++c)
    header += column_name(c);
  header += "\n";

  std::string out = paint(header, sgr::dim, style);
  for (int r = v.height - 1; r >= 0; --r) {
    char label[16];
    std::snprintf(label, sizeof label, "%*d ", label_width, r + 1);
    out += paint(label, sgr::dim, style);
    for (int c = 0; c < v.width; ++c) {
      const Cell cell = v.cell(c, r);
      const auto s = g.at(c, r);
      const bool is_last = cell == last;
      const bool in_line = std::find(line.begin(), line.end(), format_cell(v, cell)) != line.end();
      std::string mark = !s ? "." : (*s == Side::first ? "X" : "O");
      if (style.color) {
        std::string code = !s ? sgr::dim : (*s == Side::first ? sgr::first : sgr::second);
        if (in_line) code += ";42";
        if (is_last) code += ";7";
        out += " " + paint(mark, code.c_str(), style) + " ";
      } else {
        const char open = is_last ? '[' : (in_line ? '*' : ' ');
        const char close = is_last ? ']' : (in_line ? '*' : ' ');
        out += open + mark + close;
      }
    }
    out += paint(" " + std::to_string(r + 1), sgr::dim, style);
    out += "\n";
  }
  out += paint(header, sgr::dim, style);
  return out;
}

std::string move_pairs(const google::protobuf::RepeatedPtrField<std::string>& moves) {
  std::string out;
  for (int i = 0; i < moves.size(); ++i) {
    if (i % 2 == 0) out += (i ? "  " : "") + std::to_string(i / 2 + 1) + ".";
    out += " " + moves[i];
  }
  return out;
}

std::string format_clock(std::int64_t ms) {
  if (ms < 0) ms = 0;
  char buf[32];
  if (ms < 10'000) {
    std::snprintf(buf, sizeof buf, "%lld.%lld", static_cast<long long>(ms / 1000),
                  static_cast<long long>(ms % 1000 / 100));
    return buf;
  }
  const long long s = ms / 1000;
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%lld:%02lld", s / 60, s % 60);
  }
  return buf;
}

std::string format_time_control(const v1::TimeControl& tc) {
  if (tc.initial_ms() <= 0) return "untimed";
  auto number = [](double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", x);
    return std::string(buf);
  };
  return number(static_cast<double>(tc.initial_ms()) / 60'000.0) + "+" +
         number(static_cast<double>(tc.increment_ms()) / 1000.0);
}

std::string format_measure(const v1::LevelMeasure* measure, std::string_view variant) {
  if (!measure) return "arena: not measured in " + std::string(variant);
  // Older ladders did not record their games: then nothing is said of them.
  const std::string games = measure->games() > 0 ? std::to_string(measure->games()) + " games" : "";
  if (measure->level() == measure->anchor())
    return "arena: 0 Elo, the ladder's anchor" + (games.empty() ? "" : " (" + games + ")");
  const long elo = std::lround(measure->elo());
  return "arena: " + std::string(elo < 0 ? "" : "+") + std::to_string(elo) + " Elo over " +
         measure->anchor() + " (±" + std::to_string(std::lround(measure->margin())) +
         (games.empty() ? "" : ", " + games) + ")";
}

std::string quote(std::string_view value) {
  const bool plain = !value.empty() && value.find_first_of(" \t\"\\=") == std::string_view::npos;
  if (plain) return std::string(value);
  std::string out = "\"";
  for (char ch : value) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (ch == '\n') {
      out += "\\n";
      continue;
    }
    out += ch;
  }
  return out + "\"";
}

std::string_view result_word(v1::Result r) {
  switch (r) {
    case v1::RESULT_FIRST_WINS:
      return "first-wins";
    case v1::RESULT_SECOND_WINS:
      return "second-wins";
    case v1::RESULT_DRAW:
      return "draw";
    case v1::RESULT_ABORTED:
      return "aborted";
    default:
      return "ongoing";
  }
}

std::string_view reason_word(v1::EndReason r) {
  switch (r) {
    case v1::END_REASON_LINE:
      return "line";
    case v1::END_REASON_BOARD_FULL:
      return "board-full";
    case v1::END_REASON_RESIGNATION:
      return "resignation";
    case v1::END_REASON_AGREEMENT:
      return "agreement";
    case v1::END_REASON_TIMEOUT:
      return "timeout";
    case v1::END_REASON_ABANDONED:
      return "abandoned";
    case v1::END_REASON_SHUTDOWN:
      return "shutdown";
    default:
      return "-";
  }
}

std::string_view kind_word(v1::MatchKind k) {
  switch (k) {
    case v1::MATCH_KIND_SEEK:
      return "seek";
    case v1::MATCH_KIND_BOT:
      return "bot";
    case v1::MATCH_KIND_PRIVATE:
      return "private";
    case v1::MATCH_KIND_BOT_VS_BOT:
      return "botmatch";
    default:
      return "-";
  }
}

std::string_view step_word(v1::OpeningStep step) {
  switch (step) {
    case v1::OPENING_STEP_PLACE_THREE:
      return "place-three";
    case v1::OPENING_STEP_CHOOSE:
      return "choose";
    case v1::OPENING_STEP_PLACE_TWO:
      return "place-two";
    case v1::OPENING_STEP_CHOOSE_SIDE:
      return "choose-side";
    default:
      return "-";
  }
}

std::string error_word(v1::ErrorCode code) {
  std::string name = v1::ErrorCode_Name(code);
  if (name.rfind("ERROR_", 0) == 0) name.erase(0, 6);
  return name.empty() ? "UNKNOWN" : name;
}

}  // namespace inarow::client
