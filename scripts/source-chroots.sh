#!/usr/bin/env bash
# Builds, once, the Debian chroots the source servers that Debian 12 does not ship run from:
#   mysql      Debian sid,    mysql-server   (MySQL 9.x)
#   mariadb11  Debian trixie, mariadb-server (MariaDB 11.8)
# and a pristine Debian 12 that the package's install test copies and installs the .deb into
# (scripts/package.sh --install-test):
#   bookworm-pristine  Debian bookworm, nothing but minbase (apt's package lists fetched)
# under ROWBRIDGE_CHROOTS (default /var/lib/rowbridge/chroots), outside any work tree, and reuses
# them on every later call. The servers are started from there by tests/servers/testservers.sh
# (--source=mysql|mariadb11): a mysqld/mariadbd run from a chroot's /usr with
# --bind-address=127.0.0.1 is an ordinary loopback server; nothing is mounted inside the chroots.
#
# Usage: scripts/source-chroots.sh [mysql|mariadb11|bookworm-pristine|all]
#                                    (default all: the two source flavors)
#        scripts/source-chroots.sh --path FLAVOR   prints the chroot's path if it is ready
# Sourced (`source scripts/source-chroots.sh`), it only defines its functions (ready, build,
# locked_build, remove_unmounted) and ROOT_DIR, for scripts that work with the same chroots.
#
# A chroot is built in FLAVOR.partial and renamed to FLAVOR only when its check command runs (the
# server's --version), so a half-built chroot is never used; a stale .partial is removed first
# (after checking that nothing is mounted inside it).
set -euo pipefail

ROOT_DIR="${ROWBRIDGE_CHROOTS:-/var/lib/rowbridge/chroots}"
MIRROR="${ROWBRIDGE_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

suite_of() {
  case "$1" in
    mysql) echo sid ;;
    mariadb11) echo trixie ;;
    bookworm-pristine) echo bookworm ;;
    *) return 1 ;;
  esac
}
packages_of() {
  case "$1" in
    mysql) echo "mysql-server mysql-client" ;;
    mariadb11) echo "mariadb-server mariadb-client" ;;
    bookworm-pristine) echo "" ;;
  esac
}
# What must run inside the finished chroot (its output is kept in .rowbridge-ready).
check_command_of() {
  case "$1" in
    mysql) echo "/usr/sbin/mysqld --version" ;;
    mariadb11) echo "/usr/sbin/mariadbd --version" ;;
    bookworm-pristine) echo "apt-get --version" ;;
  esac
}

ready() { [ -f "$ROOT_DIR/$1/.rowbridge-ready" ]; }

# Refuses to delete a directory with anything mounted below it (a bind mount would take the
# host's files with it).
remove_unmounted() {
  local dir="$1"
  [ -e "$dir" ] || return 0
  if awk -v d="$dir" 'index($2, d) == 1 { found = 1 } END { exit !found }' /proc/mounts; then
    echo "source-chroots: $dir has something mounted inside it; unmount it, then run this again" >&2
    return 1
  fi
  $SUDO rm -rf --one-file-system "$dir"
}

build() {
  local flavor="$1" suite target partial
  suite="$(suite_of "$flavor")" || {
    echo "source-chroots: unknown flavor '$flavor' (mysql, mariadb11 or bookworm-pristine)" >&2
    return 2
  }
  target="$ROOT_DIR/$flavor"
  partial="$target.partial"
  local packages
  packages="$(packages_of "$flavor")"
  if ready "$flavor"; then return 0; fi
  command -v debootstrap >/dev/null || {
    echo "source-chroots: debootstrap is missing (apt-get install debootstrap)" >&2
    return 1
  }
  remove_unmounted "$partial"
  echo "source-chroots: building the $flavor chroot: Debian $suite (minbase) from $MIRROR," \
    "then ${packages:-no package} inside it, into $target (about 2 minutes, once)"
  $SUDO mkdir -p "$partial"
  if ! $SUDO debootstrap --variant=minbase "$suite" "$partial" "$MIRROR" \
    >"$ROOT_DIR/$flavor.debootstrap.log" 2>&1; then
    echo "source-chroots: debootstrap of Debian $suite FAILED; last lines of" \
      "$ROOT_DIR/$flavor.debootstrap.log:" >&2
    tail -n 30 "$ROOT_DIR/$flavor.debootstrap.log" >&2
    return 1
  fi
  # mariadb-install-db looks up localhost; minbase writes no /etc/hosts.
  [ -s "$partial/etc/hosts" ] ||
    printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' |
    $SUDO tee "$partial/etc/hosts" >/dev/null
  # The archive this machine reaches may be a dated snapshot whose sid Release file has expired
  # (apt-get update refuses it); its packages are still the ones we want, so apt's date check
  # is off inside the chroot.
  # The packages' maintainer scripts must not start a server inside the chroot.
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$partial/usr/sbin/policy-rc.d" >/dev/null
  $SUDO chmod 755 "$partial/usr/sbin/policy-rc.d"
  # shellcheck disable=SC2046
  if ! $SUDO env DEBIAN_FRONTEND=noninteractive LC_ALL=C chroot "$partial" sh -c \
    "apt-get -o Acquire::Check-Valid-Until=false update -qq && apt-get install -y -qq --no-install-recommends $packages" \
    >"$ROOT_DIR/$flavor.install.log" 2>&1; then
    echo "source-chroots: installing ${packages:-nothing} in the Debian $suite chroot FAILED;" \
      "last lines of $ROOT_DIR/$flavor.install.log:" >&2
    tail -n 30 "$ROOT_DIR/$flavor.install.log" >&2
    return 1
  fi
  local version
  # shellcheck disable=SC2046  # the command's words
  if ! version="$($SUDO chroot "$partial" $(check_command_of "$flavor") 2>&1)"; then
    echo "source-chroots: $(check_command_of "$flavor") does not run in the chroot: $version" >&2
    return 1
  fi
  version="${version%%$'\n'*}"
  $SUDO chroot "$partial" apt-get clean >/dev/null 2>&1 || true
  echo "$version" | $SUDO tee "$partial/.rowbridge-ready" >/dev/null
  remove_unmounted "$target"
  $SUDO mv "$partial" "$target"
  echo "source-chroots: $flavor ready: $version"
}

# One lock per flavor: concurrent callers wait for the build in progress, then reuse it.
locked_build() {
  (
    exec 9>"$ROOT_DIR/.$1.lock"
    flock 9
    build "$1"
  )
}

# Sourced: the functions only.
if [[ "${BASH_SOURCE[0]}" != "$0" ]]; then
  return 0
fi

if [ "${1:-}" = "--path" ]; then
  flavor="${2:?--path needs a flavor}"
  ready "$flavor" || exit 1
  echo "$ROOT_DIR/$flavor"
  exit 0
fi

$SUDO mkdir -p "$ROOT_DIR"
case "${1:-all}" in
  all)
    # Both at once: the time goes to downloads, not to this machine's cores.
    locked_build mysql &
    mysql_pid=$!
    rc=0
    locked_build mariadb11 || rc=1
    wait "$mysql_pid" || rc=1
    exit "$rc"
    ;;
  *) locked_build "$1" ;;
esac
