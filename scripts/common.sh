# SPDX-License-Identifier: MIT
# Shared set-up for scripts/demo and scripts/test: make sure the Debian packages are there
# (installing them when run as root, naming them otherwise), then configure with CMake.
set -euo pipefail

GPURENT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
GPURENT_PACKAGES=(cmake ninja-build g++ tzdata libboost-dev libhowardhinnant-date-dev libfmt-dev
  libexpected-dev nlohmann-json3-dev libcli11-dev doctest-dev libbenchmark-dev)
GPURENT_JOBS="${GPURENT_JOBS:-$(nproc 2>/dev/null || echo 2)}"

gpurent_ensure_packages() {
  local missing=()
  for p in "${GPURENT_PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "installing: ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null || true
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "missing Debian packages; install them with:" >&2
    echo "  sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
}

# gpurent_try_packages PACKAGE...: installs what is missing when it can (as root, with
# apt-get); returns 1 instead of exiting when it cannot, for optional checks that then skip
# (scripts/check-prometheus).
gpurent_try_packages() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null || return 1
  echo "installing: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null 2>&1 || true
  timeout 300 apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1
}

# gpurent_configure BUILD_DIR [cmake args...]
gpurent_configure() {
  local dir="$1"; shift
  cmake -S "$GPURENT_ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
}

# gpurent_debian_version PACKAGE: an installed Debian package's upstream version as
# major.minor.patch (1:9.1.0+ds1-2 -> 9.1.0, 1.74.0.3 -> 1.74.0); nothing when not installed.
gpurent_debian_version() {
  local v
  v=$(dpkg-query -W -f='${Status}|${Version}' "$1" 2>/dev/null || true)
  [[ "$v" == "install ok installed|"* ]] || return 0
  sed -E 's/^[^|]*[|]//; s/^[0-9]+://; s/^([0-9]+([.][0-9]+){0,2}).*/\1/' <<<"$v"
}
