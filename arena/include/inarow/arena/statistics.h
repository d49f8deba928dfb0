// Match statistics, as engine testers compute them (cutechess-cli, fastchess,
// fishtest): Elo from a score with a 95% margin, the pentanomial model over
// game pairs, likelihood of superiority, and joint maximum-likelihood ratings
// for more than two participants. The SPRT is in sprt.h.
//
// Scores are from one side's view (the "first" participant of a pairing):
// a win is 1, a draw 1/2, a loss 0. Elo is logistic Elo throughout.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace inarow::arena {

// Wins, draws and losses of single games.
struct Trinomial {
  std::int64_t wins = 0, draws = 0, losses = 0;
  std::int64_t games() const { return wins + draws + losses; }
  double score() const;  // mean score per game, 0.5 when empty
};

// Game pairs (one opening, colours swapped) by the pair's total score:
// counts[0] = 0 (two losses), [1] = 1/2, [2] = 1 (two draws or a win and a
// loss), [3] = 3/2, [4] = 2 (two wins).
struct Pentanomial {
  std::array<std::int64_t, 5> counts{};
  std::int64_t pairs() const;
  // Add one pair from its two game scores (each 0, 0.5 or 1).
  void add(double first_game, double second_game);
};

// Logistic Elo of a mean score: -400 log10(1/s - 1). +-inf at 0 and 1.
double elo_from_score(double score);
// Mean score expected at an Elo difference: 1 / (1 + 10^(-elo/400)).
double score_from_elo(double elo);

// An estimate with its 95% confidence interval.
struct EloEstimate {
  double elo = 0;      // point estimate
  double margin = 0;   // half-width of the 95% interval in Elo (inf if unbounded)
  double lower = 0;    // elo_from_score(mean - 1.96 se)
  double upper = 0;    // elo_from_score(mean + 1.96 se)
  double score = 0.5;  // mean score per game
  double stddev = 0;   // per-game (trinomial) or per-pair-mean (pentanomial) sd
  double los = 0.5;    // likelihood of superiority, P(elo > 0)
};

// The normal quantile of 0.975, the 95% two-sided interval.
inline constexpr double kZ95 = 1.959963984540054;

// Trinomial model: per-game variance sum p_i (x_i - mean)^2 over x in {0, 1/2, 1}.
EloEstimate estimate(const Trinomial& t);
// Pentanomial model: variance of the pair mean over x in {0, 1/4, .., 1},
// which accounts for the correlation of the two games of an opening
// (fishtest stat_util / fastchess).
EloEstimate estimate(const Pentanomial& p);

// Likelihood of superiority from wins and losses alone (cutechess-cli):
// 1/2 (1 + erf((W - L) / sqrt(2 (W + L)))).
double los(const Trinomial& t);

// Results between participants i and j (i < j), scored from i's view.
struct PairResult {
  int i = 0, j = 0;
  Trinomial games;
};

// One participant's joint rating (arena Elo, not the server's Glicko-2).
struct EloRating {
  double elo = 0;     // relative to the mean of all participants (or the anchor)
  double margin = 0;  // 95% half-width from the Fisher information
};

// Joint maximum-likelihood ratings (Bradley-Terry with a draw counted as half a
// win each way, as BayesElo's default without a draw model) by Hunter's MM
// iteration. A prior of `prior_draws` virtual draws between every pair that
// met keeps perfect scores finite, as BayesElo's prior does. Ratings have mean
// 0 unless `anchor` names a participant fixed at 0.
std::vector<EloRating> joint_ratings(int participants, const std::vector<PairResult>& results,
                                     double prior_draws = 2.0, std::optional<int> anchor = {});

}  // namespace inarow::arena
