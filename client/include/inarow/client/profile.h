// Who this client is between runs: the player's name and the secret resume
// token from the server's welcome, kept in $XDG_CONFIG_HOME/inarow/profile
// (or ~/.config/inarow/profile), readable by its owner only.
#pragma once

#include <filesystem>
#include <string>

namespace inarow::client {

struct Profile {
  std::string name;
  std::string token;
  bool sound = true;  // the terminal bell on a start, the opponent's move and the end
};

// $XDG_CONFIG_HOME/inarow, else $HOME/.config/inarow, else ./.inarow.
std::filesystem::path default_config_dir();

// An empty profile when the file is missing or unreadable.
Profile load_profile(const std::filesystem::path& dir);
// Written to a temporary file and renamed over the old one; false on failure.
bool save_profile(const std::filesystem::path& dir, const Profile& profile);

}  // namespace inarow::client
