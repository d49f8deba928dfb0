#include "inarow/bots/weights_file.h"

#include <fstream>
#include <sstream>

namespace inarow::bots {

expected<Weights, Error> load_weights(const Variant& v, const std::string& path) {
  std::ifstream in(path);
  if (!in)
    return unexpected(Error{ErrorCode::cannot_read, 0, "cannot read weights file '" + path + "'"});
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
    return unexpected(Error{ErrorCode::cannot_read, 0, "cannot read weights file '" + path + "'"});
  return Weights::parse(v, text.str());
}

}  // namespace inarow::bots
