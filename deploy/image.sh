#!/usr/bin/env bash
# The container image's steps, in one place: deploy/Dockerfile runs them, and
# `check` runs them all on a plain Debian 12 root (no container engine needed),
# so the image's package lists are tested the way a fresh machine would be.
#
#   bash deploy/image.sh deps-build     # the build stage's packages
#   bash deploy/image.sh build [DIR]    # configure and build inarow-server into DIR (/build)
#   bash deploy/image.sh deps-runtime   # the runtime stage's packages
#   bash deploy/image.sh check          # all of the above, then: every library the
#                                       # binary links comes from the runtime list, and
#                                       # the server answers /healthz and stops on SIGTERM
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$(dirname "$here")"

packages() { grep -v '^\s*#' "$here/packages/$1.txt" | awk 'NF { print $1 }'; }

install_packages() {
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2046
  apt-get install -y -qq --no-install-recommends $(packages "$1") >/dev/null
  rm -rf /var/lib/apt/lists/*
}

build() {
  local out="${1:-/build}"
  cmake -S "$src" -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DINAROW_BUILD_TESTS=OFF -DINAROW_BUILD_BENCH=OFF -DINAROW_BUILD_CLIENT=OFF >/dev/null
  cmake --build "$out" --target inarow-server
  strip "$out/server/inarow-server"
}

# Every shared library the binary needs must come from a package of the
# runtime list or of Debian's base (which the slim image has).
check_runtime_libraries() {
  local binary="$1" missing=0 lib pkg
  local allowed
  allowed="$(packages runtime) libc6 libgcc-s1 libstdc++6 zlib1g"
  while read -r lib; do
    pkg="$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | head -1 | cut -d: -f1)" || true
    [ -n "$pkg" ] || pkg="$(dpkg -S "$lib" 2>/dev/null | head -1 | cut -d: -f1)" || true
    if ! grep -qw -- "$pkg" <<<"$allowed"; then
      echo "image check: $lib comes from '${pkg:-no package}', which packages/runtime.txt lacks" >&2
      missing=1
    fi
  done < <(ldd "$binary" | awk '$3 ~ /^\// { print $3 }')
  return "$missing"
}

# Start the server as an unprivileged user on a free loopback port, ask
# /healthz with bash's own /dev/tcp (a slim image has no curl), stop it.
check_serves() {
  local binary="$1" dir log port reply
  dir="$(mktemp -d)"
  log="$dir/log"
  id inarow >/dev/null 2>&1 || useradd --system --home-dir "$dir" inarow
  chown inarow "$dir"
  # setpriv execs the server itself (su would stay as its parent), so the
  # signal and the exit status below are the server's own.
  setpriv --reuid=inarow --regid=inarow --init-groups \
    "$binary" --address 127.0.0.1 --port 0 --store "$dir/inarow.db" >"$log" 2>&1 &
  local pid=$!
  for _ in $(seq 100); do
    port="$(grep -o 'listening on [0-9.]*:[0-9]*' "$log" | head -1 | sed 's/.*://')" || true
    [ -n "$port" ] && break
    sleep 0.1
  done
  [ -n "$port" ] || { echo "image check: the server did not start" >&2; cat "$log" >&2; kill "$pid"; return 1; }
  exec 3<>"/dev/tcp/127.0.0.1/$port"
  printf 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n' >&3
  reply="$(cat <&3)"
  exec 3<&-
  kill -TERM "$pid"
  wait "$pid" || { echo "image check: the server did not stop cleanly on SIGTERM" >&2; return 1; }
  grep -q '^HTTP/1.1 200' <<<"$reply" || { echo "image check: /healthz said: $reply" >&2; return 1; }
  echo "image check: inarow-server built, its libraries are all in packages/runtime.txt, it answered /healthz on port $port and stopped on SIGTERM"
}

case "${1:-}" in
  deps-build) install_packages build ;;
  deps-runtime) install_packages runtime ;;
  build) build "${2:-/build}" ;;
  check)
    install_packages build
    install_packages runtime
    out="$(mktemp -d)"
    build "$out"
    # Where the image puts it, so the unprivileged user can run it.
    install -m 755 "$out/server/inarow-server" /usr/local/bin/inarow-server
    check_runtime_libraries /usr/local/bin/inarow-server
    check_serves /usr/local/bin/inarow-server
    ;;
  *) sed -n '2,13p' "$0"; exit 2 ;;
esac
