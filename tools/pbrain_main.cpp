// pbrain-inarow: our bot as a Gomocup brain (the pbrain protocol over
// standard input and output), for Gomocup managers and for the arena.
#include <CLI/CLI.hpp>
#include <iostream>

#include "inarow/bots/pbrain_session.h"

int main(int argc, char** argv) {
  CLI::App app{
      "pbrain-inarow: the inarow bot speaking the Gomocup pbrain protocol on stdin/stdout"};
  std::string bot = "master";  // the strongest level: Gomocup managers pass no flags
  int k = 5;
  std::uint64_t seed = 1;
  app.add_option("--bot", bot,
                 "Bot spec: a level (beginner..master) or depth=..,time=..,weights=..")
      ->capture_default_str();
  app.add_option("-k,--k", k, "Stones in a line that win (Gomocup: 5)")
      ->capture_default_str()
      ->check(CLI::Range(3, 19));
  app.add_option("--seed", seed, "Seed of the bot's random choices")->capture_default_str();
  app.footer(
      "Time: a move gets 0.9 of INFO timeout_turn less 20 ms, all of it searched; with\n"
      "INFO timeout_match, a fifteenth of INFO time_left when that is less, and the\n"
      "search then starts no iteration it is unlikely to finish, saving the rest.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  auto spec = inarow::bots::BotSpec::parse(bot);
  if (!spec) {
    std::cerr << "pbrain-inarow: --bot: " << spec.error().describe() << "\n";
    return 2;
  }
  std::ios::sync_with_stdio(false);
  return inarow::bots::run_pbrain(std::cin, std::cout, inarow::bots::PbrainOptions{*spec, k, seed});
}
