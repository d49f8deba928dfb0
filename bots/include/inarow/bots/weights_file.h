// Evaluation weights read from a file: the engine parses weights text, the
// bots read it from disk (the engine does no I/O).
#pragma once

#include <string>

#include "inarow/common/error.h"
#include "inarow/common/expected.h"
#include "inarow/engine/evaluator.h"
#include "inarow/engine/variant.h"

namespace inarow::bots {

// The weights in the file at `path` (Weights::parse's text form). A file that
// cannot be read is a cannot_read error naming it; bad contents are
// bad_weights errors naming the line.
expected<Weights, Error> load_weights(const Variant& v, const std::string& path);

}  // namespace inarow::bots
