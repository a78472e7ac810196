#!/usr/bin/env bash
# Installs every Debian 12 package rowbridge needs to build, test, benchmark and run its demo,
# the MariaDB, ClickHouse and ZooKeeper servers included. Safe to run again; skips apt when all are present.
set -euo pipefail

PACKAGES=(
  build-essential g++ cmake ninja-build ccache pkg-config git
  libssl-dev zlib1g-dev liblz4-dev libzstd-dev libfmt-dev libspdlog-dev libcli11-dev
  libyaml-cpp-dev nlohmann-json3-dev libcpp-httplib-dev libsystemd-dev libzookeeper-mt-dev
  libgtest-dev libgmock-dev libbenchmark-dev clang-14 libclang-rt-14-dev clang-format-14
  mariadb-server mariadb-client clickhouse-server clickhouse-client clickhouse-tools zookeeper
  gnuplot-nox procps iproute2 python3 openssl tzdata debootstrap dpkg-dev chromium prometheus
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  # The packages' own init scripts try to start system-wide servers; tests start their own. A
  # policy-rc.d that says "no" (exit 101) keeps them from starting during the install.
  POLICY=/usr/sbin/policy-rc.d
  if [ ! -e "$POLICY" ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$POLICY" >/dev/null
    $SUDO chmod 755 "$POLICY"
    trap '$SUDO rm -f "$POLICY"' EXIT
  fi
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
