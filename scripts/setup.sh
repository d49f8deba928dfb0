#!/usr/bin/env bash
# Installs everything inarow needs to build, test and run on Debian 12.
# Run as root (or with sudo). Safe to run again.
#   bash scripts/setup.sh          # build, test and run
#   bash scripts/setup.sh fuzz     # and Debian's clang with libFuzzer (the asan and
#                                  # fuzz presets: scripts/sanitize.sh, scripts/fuzz.sh)
set -euo pipefail

packages=(
  build-essential g++ cmake ninja-build ccache pkg-config git
  libboost1.81-dev                       # Asio + Beast: the WebSocket/HTTP server and client
  protobuf-compiler libprotobuf-dev      # the wire protocol and its JSON mapping
  libsqlite3-dev                         # the default durable store
  libpq-dev                              # libpq: the PostgreSQL store's client library
  postgresql                             # the PostgreSQL server the store's tests start a private cluster of
  libhiredis-dev                         # hiredis: Redis's own C client, for a cluster's shared directory
  redis-server                           # the Redis the cluster's tests start on a free port
  libsodium-dev                          # Argon2id password hashes for accounts
  libmimalloc-dev                        # the server's allocator
  libcli11-dev                           # command-line flags
  libspdlog-dev libfmt-dev               # structured logs
  libreadline-dev                        # line editing in the console client
  libgtest-dev libgmock-dev              # the test suite
  chromium                               # the browser the web client's tests drive
)
# Node.js and npm run the third-party protocol test (the `ws` package). A
# machine may already have them from elsewhere (nodesource's nodejs bundles
# npm and conflicts with Debian's npm package): only install what is missing.
for group in "$@"; do
  case "$group" in
    fuzz) packages+=(clang libclang-rt-14-dev) ;;  # libFuzzer and the sanitizers' runtime
    *) echo "setup.sh: unknown group '$group' (known: fuzz)" >&2; exit 2 ;;
  esac
done
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
