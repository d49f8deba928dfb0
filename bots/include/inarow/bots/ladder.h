// The bot levels' measured Elo: the ladders `inarow-arena calibrate` writes
// (bots/weights/<variant>_levels.txt), parsed, and built into this library so
// that the server can show players what the arena measured, not a guess.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "inarow/common/error.h"
#include "inarow/common/expected.h"

namespace inarow::bots {

// One level's line: its Elo over the ladder's anchor, with the 95% margin.
struct LadderRung {
  std::string level;
  double elo = 0;
  double margin = 0;
};

struct LevelLadder {
  std::string variant;            // as the header or the file's name says
  std::int64_t games = 0;         // as the header says; 0 when it does not
  std::vector<LadderRung> rungs;  // in the file's order; never empty
  // The level at 0: the first listed (calibrate anchors on the weakest).
  const std::string& anchor() const { return rungs.front().level; }
};

// A ladder's text: `#` comment lines, blank lines, and one line per level,
// `name elo margin`. The comment `# measured Elo of the bot levels: variant
// V, N games, ...` (calibrate's header) gives the variant and the games.
// Strict, since players are shown these numbers: a line that is not a
// comment, a known level not listed before and two finite numbers (the margin
// not negative), a first level not at 0, a second header, a header's variant
// that differs from the file's name (`V_levels.txt`, when given) or no level
// at all is a bad_syntax error naming the line.
expected<LevelLadder, Error> parse_ladder(std::string_view text, std::string_view file_name = {});
// The ladder in the file at `path`, its name as above. A file that cannot be
// read is a cannot_read error naming it.
expected<LevelLadder, Error> load_ladder(const std::string& path);

// A ladder file built into the library: its name and its text.
struct LadderFile {
  std::string_view name;
  std::string_view text;
};
// bots/weights/*_levels.txt as they were at build time, by name.
std::span<const LadderFile> built_in_ladder_files();
// The built-in files that parse (a test holds every one to parsing), one per
// variant.
std::span<const LevelLadder> built_in_ladders();

// What the arena measured of one level in one variant.
struct LevelMeasure {
  double elo = 0;     // over the anchor
  double margin = 0;  // 95%
  std::int64_t games = 0;
  std::string anchor;  // the level at 0
};
// The built-in measurement of `level` in the variant named `variant`;
// nothing when the variant has no ladder or its ladder leaves the level out.
std::optional<LevelMeasure> measured_level(std::string_view variant, std::string_view level);

}  // namespace inarow::bots
