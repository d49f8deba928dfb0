#include "client_process.h"

namespace inarow::client::testing {

namespace {

std::vector<std::string> client_args(const std::string& url, const std::string& name,
                                     const fs::path& config_dir, std::vector<std::string> extra) {
  std::vector<std::string> args = {INAROW_CLIENT_BINARY, "--server",         url, "--name", name,
                                   "--config-dir",       config_dir.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

}  // namespace

ClientProcess::ClientProcess(const std::string& url, const std::string& name,
                             const fs::path& config_dir, std::vector<std::string> extra_args)
    : ChildProcess(client_args(url, name, config_dir, std::move(extra_args))) {}

std::optional<std::string> field(const std::string& line, const std::string& key) {
  const std::string needle = " " + key + "=";
  auto at = line.find(needle);
  if (at == std::string::npos) return std::nullopt;
  at += needle.size();
  if (at < line.size() && line[at] == '"') {
    std::string value;
    for (std::size_t i = at + 1; i < line.size(); ++i) {
      if (line[i] == '\\' && i + 1 < line.size()) {
        value += line[++i];
      } else if (line[i] == '"') {
        break;
      } else {
        value += line[i];
      }
    }
    return value;
  }
  const auto end = line.find(' ', at);
  return line.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

}  // namespace inarow::client::testing
