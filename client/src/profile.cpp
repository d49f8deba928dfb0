#include "inarow/client/profile.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <system_error>

namespace inarow::client {

namespace fs = std::filesystem;

fs::path default_config_dir() {
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) {
    return fs::path(xdg) / "inarow";
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    return fs::path(home) / ".config" / "inarow";
  }
  return fs::path(".inarow");
}

Profile load_profile(const fs::path& dir) {
  Profile p;
  std::ifstream in(dir / "profile");
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = line.substr(0, eq);
    const std::string value = line.substr(eq + 1);
    if (key == "name") p.name = value;
    if (key == "token") p.token = value;
    if (key == "sound") p.sound = value != "off";
  }
  return p;
}

bool save_profile(const fs::path& dir, const Profile& profile) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return false;
  const fs::path tmp = dir / "profile.tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) return false;
    out << "# inarow client profile: the token is the secret that resumes this player\n"
        << "name=" << profile.name << "\n"
        << "token=" << profile.token << "\n"
        << "sound=" << (profile.sound ? "on" : "off") << "\n";
    if (!out.flush()) return false;
  }
  ::chmod(tmp.c_str(), S_IRUSR | S_IWUSR);
  fs::rename(tmp, dir / "profile", ec);
  return !ec;
}

}  // namespace inarow::client
