#include "inarow/engine/forcing.h"

#include <cassert>
#include <type_traits>
#include <variant>

#include "vcf.h"

namespace inarow {

namespace {

// The solver for boards of W words, with the shape it was made for.
template <int W>
struct Solver {
  std::shared_ptr<const Geometry<W>> geo;
  detail::LineShape<W> shape;
  detail::Vcf<W> vcf;

  Solver(const Variant& v, int table_bits)
      : geo(Geometry<W>::make(v)),
        shape{geo->directions, v.k, v.exact},
        vcf(shape, geo->board, table_bits) {}

  VcfAnswer find(const Position<W>& pos, Side attacker, int max_plies, std::uint64_t budget) {
    const auto r = vcf.find(attacker, pos.stones(attacker), pos.stones(opponent(attacker)),
                            pos.key(), max_plies, budget);
    return {r.move, r.plies, r.move == kNoCell && !vcf.aborted(), vcf.nodes()};
  }
};

}  // namespace

struct VcfSolver::Impl {
  Variant variant;
  bool has_fours;  // k >= 5 without gravity, as the search's threat rules
  std::variant<Solver<1>, Solver<2>, Solver<4>, Solver<7>> solver;

  static decltype(solver) make(const Variant& v, int table_bits) {
    switch (v.words()) {
      case 1:
        return decltype(solver)(std::in_place_type<Solver<1>>, v, table_bits);
      case 2:
        return decltype(solver)(std::in_place_type<Solver<2>>, v, table_bits);
      case 4:
        return decltype(solver)(std::in_place_type<Solver<4>>, v, table_bits);
      default:
        return decltype(solver)(std::in_place_type<Solver<7>>, v, table_bits);
    }
  }

  Impl(const Variant& v, int table_bits)
      : variant(v), has_fours(v.k >= 5 && !v.gravity), solver(make(v, table_bits)) {}
};

VcfSolver::VcfSolver(const Variant& v, int table_bits)
    : impl_(std::make_unique<Impl>(v, table_bits)) {}
VcfSolver::~VcfSolver() = default;
VcfSolver::VcfSolver(VcfSolver&&) noexcept = default;
VcfSolver& VcfSolver::operator=(VcfSolver&&) noexcept = default;

VcfAnswer VcfSolver::find(const Game& game, Side attacker, int max_plies,
                          std::uint64_t node_budget) {
  assert(game.variant() == impl_->variant && !game.over());
  if (!impl_->has_fours) return {};
  // The solver and the position have the same width: both follow the variant.
  return std::visit(
      [&](auto& solver, const auto& pos) -> VcfAnswer {
        if constexpr (std::is_same_v<std::remove_cvref_t<decltype(pos.geometry())>,
                                     std::remove_cvref_t<decltype(*solver.geo)>>)
          return solver.find(pos, attacker, max_plies, node_budget);
        else
          return {};
      },
      impl_->solver, game.position());
}

void VcfSolver::clear() {
  std::visit([](auto& solver) { solver.vcf.clear(); }, impl_->solver);
}

}  // namespace inarow
