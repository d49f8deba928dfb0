// Match statistics, as engine testers compute them (cutechess-cli, fastchess,
// fishtest): Elo from a score with a 95% margin, the pentanomial model over
// game pairs, likelihood of superiority, the generalised SPRT, and joint
// maximum-likelihood ratings for more than two participants.
//
// Scores are from one side's view (the "first" participant of a pairing):
// a win is 1, a draw 1/2, a loss 0. Elo is logistic Elo throughout.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inarow/common/error.h"
#include "inarow/common/expected.h"

namespace inarow::bots {

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

// The generalised sequential probability ratio test (Michel Van den Bergh's
// GSPRT, as fishtest and fastchess run it) of H0: elo = elo0 against
// H1: elo = elo1, in logistic Elo, over pentanomial results.
struct SprtConfig {
  double elo0 = 0;
  double elo1 = 5;
  double alpha = 0.05;
  double beta = 0.05;

  // "elo0=0,elo1=5,alpha=0.05,beta=0.05"; keys may be omitted.
  static expected<SprtConfig, Error> parse(std::string_view text);
  double lower_bound() const;  // log(beta / (1 - alpha)): accept H0 below
  double upper_bound() const;  // log((1 - beta) / alpha): accept H1 above
};

enum class SprtDecision : std::uint8_t { continue_testing, accept_h0, accept_h1 };
std::string_view to_string(SprtDecision d);

// The generalised log-likelihood ratio as fishtest's LLRcalc computes it:
// for each hypothesis the maximum-likelihood distribution over the five pair
// scores with mean s = score_from_elo(elo) (p_i = f_i / (1 + lambda (x_i - s)),
// lambda solving the secular equation sum f_i (x_i - s) / (1 + lambda (x_i - s)) = 0),
// then LLR = sum_i n_i log(p1_i / p0_i). Empty cells count 1e-3 pairs so the
// support covers all five outcomes.
double sprt_llr(const SprtConfig& cfg, const Pentanomial& p);
// Its normal approximation (fastchess; fishtest's LLR_alt2):
// LLR = N (s1 - s0) (2 mean - s0 - s1) / (2 var), var per pair. Close to the
// exact ratio while the mean lies near s0 and s1; it overshoots far from them
// and on a handful of identical pairs (the variance is nearly zero), which is
// why decisions use sprt_llr.
double sprt_llr_normal(const SprtConfig& cfg, const Pentanomial& p);
SprtDecision sprt_decide(const SprtConfig& cfg, double llr);

// Results between participants i and j (i < j), scored from i's view.
struct PairResult {
  int i = 0, j = 0;
  Trinomial games;
};

struct Rating {
  double elo = 0;     // relative to the mean of all participants (or the anchor)
  double margin = 0;  // 95% half-width from the Fisher information
};

// Joint maximum-likelihood ratings (Bradley-Terry with a draw counted as half a
// win each way, as BayesElo's default without a draw model) by Hunter's MM
// iteration. A prior of `prior_draws` virtual draws between every pair that
// met keeps perfect scores finite, as BayesElo's prior does. Ratings have mean
// 0 unless `anchor` names a participant fixed at 0.
std::vector<Rating> joint_ratings(int participants, const std::vector<PairResult>& results,
                                  double prior_draws = 2.0, std::optional<int> anchor = {});

}  // namespace inarow::bots
