// The generalised sequential probability ratio test over game pairs: when a
// two-participant match has seen enough to accept or reject an Elo gain.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "inarow/arena/statistics.h"
#include "inarow/common/error.h"
#include "inarow/common/expected.h"

namespace inarow::arena {

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

}  // namespace inarow::arena
