#include "inarow/bots/weights_file.h"

#include "inarow/common/text_file.h"

namespace inarow::bots {

expected<Weights, Error> load_weights(const Variant& v, const std::string& path) {
  auto text = read_text_file(path, "weights file");
  if (!text) return unexpected(std::move(text).error());
  return Weights::parse(v, *text);
}

}  // namespace inarow::bots
