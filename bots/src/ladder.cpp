#include "inarow/bots/ladder.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "inarow/bots/bot.h"
#include "inarow/common/text_file.h"

namespace inarow::bots {

namespace {

constexpr std::string_view kHeader = "# measured Elo of the bot levels";
constexpr std::string_view kSuffix = "_levels.txt";
constexpr std::string_view kSpace = " \t";

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kSpace) - first + 1);
}

// The words of a line, split on spaces and tabs.
std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t at = 0;
  while ((at = line.find_first_not_of(kSpace, at)) != std::string_view::npos) {
    const std::size_t end = std::min(line.find_first_of(kSpace, at), line.size());
    out.push_back(line.substr(at, end - at));
    at = end;
  }
  return out;
}

std::optional<double> finite_number(std::string_view s) {
  double x = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (ec != std::errc{} || end != s.data() + s.size() || !std::isfinite(x)) return std::nullopt;
  return x;
}

// "connect4_levels.txt" (or a path ending so) -> "connect4"; else empty.
std::string_view variant_of_file(std::string_view name) {
  name = name.substr(std::min(name.size(), name.find_last_of('/') + 1));
  if (!name.ends_with(kSuffix)) return {};
  return name.substr(0, name.size() - kSuffix.size());
}

}  // namespace

expected<LevelLadder, Error> parse_ladder(std::string_view text, std::string_view file_name) {
  LevelLadder ladder;
  bool header = false;
  std::size_t line_no = 0;
  std::size_t at = 0;
  auto fail = [&](std::size_t offset, const std::string& why) {
    return unexpected(
        Error{ErrorCode::bad_syntax, offset, "line " + std::to_string(line_no) + ": " + why});
  };
  while (at < text.size()) {
    const std::size_t start = at;
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    at = end + 1;
    ++line_no;
    std::string_view line = text.substr(start, end - start);
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (trim(line).empty()) continue;
    if (line.starts_with('#')) {
      if (!line.starts_with(kHeader)) continue;
      // "...: variant connect4, 400 games, weakest level = 0, 95% margin"
      if (header) return fail(start, "a second header: a file holds one ladder");
      header = true;
      // Parts end at ", ": a variant's name may hold commas ("mnk:9,9,4").
      std::string_view rest = line.substr(kHeader.size());
      if (rest.starts_with(':')) rest.remove_prefix(1);
      while (!rest.empty()) {
        const std::size_t comma = std::min(rest.find(", "), rest.size());
        const std::string_view part = trim(rest.substr(0, comma));
        rest = rest.substr(std::min(rest.size(), comma + 2));
        const auto w = words(part);
        if (w.size() == 2 && w[0] == "variant") ladder.variant = std::string(w[1]);
        if (w.size() == 2 && w[1] == "games") {
          const auto [end_ptr, ec] =
              std::from_chars(w[0].data(), w[0].data() + w[0].size(), ladder.games);
          if (ec != std::errc{} || end_ptr != w[0].data() + w[0].size() || ladder.games < 0)
            return fail(start, "'" + std::string(w[0]) + "' is not a number of games");
        }
      }
      continue;
    }
    const auto w = words(line);
    if (w.size() != 3)
      return fail(start, "expected 'level elo margin', found '" + std::string(trim(line)) + "'");
    if (!find_level(w[0])) return fail(start, "unknown level '" + std::string(w[0]) + "'");
    if (std::any_of(ladder.rungs.begin(), ladder.rungs.end(),
                    [&](const LadderRung& r) { return r.level == w[0]; }))
      return fail(start, "level '" + std::string(w[0]) + "' is listed twice");
    const auto elo = finite_number(w[1]);
    if (!elo) return fail(start, "'" + std::string(w[1]) + "' is not an Elo");
    const auto margin = finite_number(w[2]);
    if (!margin || *margin < 0) return fail(start, "'" + std::string(w[2]) + "' is not a margin");
    if (ladder.rungs.empty() && *elo != 0)
      return fail(start, "the first level is the anchor, at 0, not " + std::string(w[1]));
    ladder.rungs.push_back({std::string(w[0]), *elo, *margin});
  }
  if (ladder.rungs.empty()) return unexpected(Error{ErrorCode::bad_syntax, 0, "no levels listed"});
  const std::string_view named = variant_of_file(file_name);
  if (!named.empty()) {
    if (ladder.variant.empty()) ladder.variant = std::string(named);
    if (ladder.variant != named)
      return unexpected(Error{
          ErrorCode::bad_syntax, 0,
          "the header's variant " + ladder.variant + " is not the file's, " + std::string(named)});
  }
  return ladder;
}

expected<LevelLadder, Error> load_ladder(const std::string& path) {
  auto text = read_text_file(path, "ladder file");
  if (!text) return unexpected(std::move(text).error());
  return parse_ladder(*text, path);
}

std::span<const LevelLadder> built_in_ladders() {
  // Parsed once, on first use; the files never change while we run.
  static const std::vector<LevelLadder> ladders = [] {
    std::vector<LevelLadder> out;
    for (const LadderFile& f : built_in_ladder_files())
      if (auto ladder = parse_ladder(f.text, f.name); ladder && !ladder->variant.empty())
        out.push_back(std::move(*ladder));
    return out;
  }();
  return ladders;
}

std::optional<LevelMeasure> measured_level(std::string_view variant, std::string_view level) {
  for (const LevelLadder& ladder : built_in_ladders()) {
    if (ladder.variant != variant) continue;
    for (const LadderRung& r : ladder.rungs)
      if (r.level == level) return LevelMeasure{r.elo, r.margin, ladder.games, ladder.anchor()};
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace inarow::bots
