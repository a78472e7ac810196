#!/usr/bin/env bash
# Builds the Debian package build/package/rowbridge_<version>_<arch>.deb: a release build (no
# sanitizers, a unity build for speed) of rowbridge and rowbridge-loadgen in build/release, then
# CPack (packaging/CMakeLists.txt says what goes where). The version is the project's, from the
# top CMakeLists.txt.
#
# Usage: scripts/package.sh [--install-test]
#   --install-test  then installs the package with `apt-get install ./rowbridge_*.deb` into a copy
#                   of a pristine Debian 12 chroot (scripts/source-chroots.sh bookworm-pristine,
#                   built once under /var/lib/rowbridge/chroots), runs `rowbridge --version`,
#                   `rowbridge validate --help` and the installed example config there, checks
#                   the user, the unit and the conffile, and verifies the unit with the host's
#                   `systemd-analyze verify` (skipped, saying so, when the host has none). The copy is removed afterwards
#                   (nothing is ever mounted inside it).
#
# Knobs (environment): ROWBRIDGE_RELEASE_BUILD (default build/release), ROWBRIDGE_PACKAGE_DIR
# (default build/package), ROWBRIDGE_BUILD_JOBS (default: the number of cores).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

INSTALL_TEST=0
for arg in "$@"; do
  case "$arg" in
    --install-test) INSTALL_TEST=1 ;;
    -h | --help)
      sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "package.sh: unknown argument '$arg' (--install-test)" >&2
      exit 2
      ;;
  esac
done

BUILD="${ROWBRIDGE_RELEASE_BUILD:-$ROOT/build/release}"
PACKAGE_DIR="${ROWBRIDGE_PACKAGE_DIR:-$ROOT/build/package}"
JOBS="${ROWBRIDGE_BUILD_JOBS:-$(nproc)}"
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/rowbridge-ccache}"
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$ROOT}"

command -v dpkg-shlibdeps >/dev/null || {
  echo "package.sh: dpkg-shlibdeps is missing (apt-get install dpkg-dev)" >&2
  exit 1
}

t0=$SECONDS
# -O2 as Debian builds its packages (dpkg-buildflags), not CMake's Release -O3: it compiles
# faster. A unity build compiles each module in a few large files: faster again.
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
  -DCMAKE_UNITY_BUILD=ON -DCMAKE_INSTALL_PREFIX=/usr -DROWBRIDGE_TESTS=OFF -DROWBRIDGE_BENCH=OFF \
  >/dev/null
nice cmake --build "$BUILD" -j "$JOBS" --target rowbridge rowbridge-loadgen
echo "package.sh: release build took $((SECONDS - t0))s"

version="$("$BUILD/rowbridge" --version)"
version="${version#rowbridge }"
mkdir -p "$PACKAGE_DIR"
rm -f "$PACKAGE_DIR"/rowbridge_*.deb
(cd "$PACKAGE_DIR" && cpack --config "$BUILD/CPackConfig.cmake" -B "$PACKAGE_DIR" >cpack.log) || {
  cat "$PACKAGE_DIR/cpack.log" >&2
  exit 1
}
deb="$PACKAGE_DIR/rowbridge_${version}_$(dpkg --print-architecture).deb"
[ -f "$deb" ] || {
  echo "package.sh: CPack did not make $deb; it made: $(ls "$PACKAGE_DIR")" >&2
  exit 1
}
echo "package.sh: built $deb"
dpkg-deb --field "$deb" Package Version Depends

((INSTALL_TEST)) || exit 0

# --- the install test ---------------------------------------------------------------------------
# shellcheck source=scripts/source-chroots.sh
source "$ROOT/scripts/source-chroots.sh"
$SUDO mkdir -p "$ROOT_DIR"
locked_build bookworm-pristine
pristine="$ROOT_DIR/bookworm-pristine"

scratch="$($SUDO mktemp -d "$ROOT_DIR/bookworm-install-test.XXXXXX")"
cleanup() { remove_unmounted "$scratch"; }
trap cleanup EXIT
t0=$SECONDS
$SUDO cp -a "$pristine/." "$scratch/"
$SUDO chmod 755 "$scratch"  # mktemp's 0700 would keep apt's _apt user out of the chroot's /
$SUDO cp /etc/resolv.conf "$scratch/etc/resolv.conf" 2>/dev/null || true
$SUDO cp "$deb" "$scratch/tmp/"
in_chroot() { $SUDO env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C DEBIAN_FRONTEND=noninteractive chroot "$scratch" "$@"; }

fail() {
  echo "package.sh: install test FAILED: $*" >&2
  exit 1
}
echo "package.sh: installing $(basename "$deb") into a copy of $pristine"
in_chroot apt-get -o Acquire::Check-Valid-Until=false update -qq ||
  fail "apt-get update in the chroot"
in_chroot apt-get install -y -q -o Dpkg::Use-Pty=0 --no-install-recommends "/tmp/$(basename "$deb")" ||
  fail "apt-get install of the package"

got="$(in_chroot rowbridge --version)" || fail "rowbridge --version does not run"
echo "  rowbridge --version: $got"
[ "$got" = "rowbridge $version" ] || fail "rowbridge --version says '$got', not 'rowbridge $version'"
in_chroot rowbridge validate --help >/dev/null || fail "rowbridge validate --help"
echo "  rowbridge validate --help: ok"
in_chroot rowbridge-loadgen --help >/dev/null || fail "rowbridge-loadgen --help"
echo "  rowbridge-loadgen --help: ok"

# The installed example loads: validate says so, then fails on the servers, which are not there.
out="$(in_chroot env MYSQL_PASSWORD=x rowbridge validate -c /etc/rowbridge/example.yaml 2>&1)" || true
grep -q "^config /etc/rowbridge/example.yaml: ok" <<<"$out" ||
  fail "the installed example.yaml does not load: $out"
echo "  rowbridge validate -c /etc/rowbridge/example.yaml: $(grep "^config " <<<"$out")"

in_chroot getent passwd rowbridge >/dev/null || fail "the postinst made no user rowbridge"
echo "  user: $(in_chroot getent passwd rowbridge)"
# shellcheck disable=SC2016  # dpkg-query's own ${...}
in_chroot dpkg-query --showformat='${Conffiles}\n' --show rowbridge | grep -q /etc/rowbridge/example.yaml ||
  fail "/etc/rowbridge/example.yaml is not a conffile"
echo "  conffile: /etc/rowbridge/example.yaml"
unit="$scratch/lib/systemd/system/rowbridge@.service"
[ -f "$unit" ] || fail "no /lib/systemd/system/rowbridge@.service"
grep -qx 'ExecStart=/usr/bin/rowbridge run --config /etc/rowbridge/%i.yaml' "$unit" ||
  fail "the unit's ExecStart is not 'rowbridge run --config /etc/rowbridge/%i.yaml'"
echo "  unit: /lib/systemd/system/rowbridge@.service"

if command -v systemd-analyze >/dev/null; then
  # The installed unit, as an instance of the template; its ExecStart names the chroot's binary,
  # since verify checks that the command exists (the chroot has no systemd to verify it with).
  unit_copy="$(mktemp -d)"
  sed "s#^ExecStart=/usr/bin/rowbridge #ExecStart=$scratch/usr/bin/rowbridge #" "$unit" \
    >"$unit_copy/rowbridge@.service"
  verify="$(systemd-analyze verify "$unit_copy/rowbridge@shop.service" 2>&1)" ||
    fail "systemd-analyze verify rowbridge@shop.service: $verify"
  rm -r "$unit_copy"
  [ -z "$verify" ] || fail "systemd-analyze verify rowbridge@shop.service warns: $verify"
  echo "  systemd-analyze verify rowbridge@shop.service: ok"
else
  echo "  (systemd-analyze is not installed on this host: the unit file was not verified)"
fi
echo "package.sh: install test passed ($((SECONDS - t0))s)"
