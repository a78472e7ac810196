#!/usr/bin/env bash
# Throwaway source (MariaDB or MySQL), ClickHouse 18.16 and, on request, ZooKeeper servers for
# rowbridge's tests.
#
# Every server lives entirely inside one directory (DIR), listens on 127.0.0.1 only, on free ports
# chosen at start, and is stopped by its own pid. System-wide servers and default ports are never
# touched.
#
# As a command:
#   testservers.sh start [--source=FLAVOR] [--mariadb-opt=OPT]... [--no-mariadb]
#                        [--no-clickhouse] [--zookeeper] [--cluster] [--owner-pid=PID] DIR
#       Starts the servers and returns once each answers `SELECT 1`. Starting again on a DIR whose
#       servers were stopped restarts them on the same data and ports (for restart tests); extra
#       --mariadb-opt options of the first start are kept and new ones are appended. With
#       --owner-pid, a watchdog stops the servers when that process exits, even if it crashed.
#       The source server ("mariadb" in option and directory names, whatever its flavor) is:
#         mariadb     MariaDB 10.11 from the host (the default)
#         mysql       MySQL 9.x from a Debian sid chroot, GTIDs on
#         mariadb11   MariaDB 11.8 from a Debian trixie chroot
#       FLAVOR defaults to $ROWBRIDGE_TEST_SOURCE, which `env` prints, so servers a test starts
#       for itself (ScopedMariaDb) have the flavor of the shared one. The chroots are built once by
#       scripts/source-chroots.sh (called here if missing); a chroot server keeps its files
#       inside the chroot (DIR/mariadb is a symbolic link to them) and is stopped by its own pid.
#       --zookeeper (or ROWBRIDGE_TEST_ZK=1) also starts a standalone ZooKeeper (Debian's
#       zookeeper package, run with java) for the ha tests: tickTime 500 ms, so that sessions of
#       1 s to 10 s are granted, and no admin server.
#       --cluster also starts a ClickHouse cluster for the cluster tests: a ZooKeeper (as above)
#       and three clickhouse-server 18.16 nodes forming the cluster `rowbridge_test`, shard 1 =
#       node1, shard 2 = node2 + node3 (internal_replication), macros {shard} and {replica}. A
#       second start on the DIR starts the nodes that do not run (after stop --only=cluster-nodeN).
#   testservers.sh stop [--kill] [--only=mariadb|clickhouse|zookeeper|cluster|cluster-nodeN] [--remove] DIR
#       TERM, wait, then KILL. --only=cluster stops the cluster's nodes and its ZooKeeper,
#       --only=cluster-node2 that node alone. --kill sends KILL at once (crash tests). --remove deletes DIR after.
#   testservers.sh env DIR      prints `export ROWBRIDGE_TEST_...=...` lines, for eval.
#   testservers.sh mariadb DIR [ARGS]...       the mariadb client, connected as root.
#   testservers.sh clickhouse DIR [ARGS]...    clickhouse-client, connected.
#
# As a library (`source tests/servers/testservers.sh`): the same as functions testservers_start,
# testservers_stop, testservers_env, testservers_mariadb, testservers_clickhouse. Each runs in a
# subshell, so the caller's shell options and traps are left alone. The caller arranges the stop,
# typically: trap 'testservers_stop "$dir"' EXIT.
#
# Environment printed by `env` (the contract with tests/support/test_servers.h):
#   ROWBRIDGE_TEST_SERVERS_DIR
#   ROWBRIDGE_TEST_SOURCE                              mariadb, mysql or mariadb11
#   ROWBRIDGE_TEST_MYSQL_VERSION                       the source's SELECT VERSION()
#   ROWBRIDGE_TEST_MYSQL_CHROOT                        the chroot it runs in ("" for the host's)
#   ROWBRIDGE_TEST_MYSQL_HOST/PORT/USER/PASSWORD/DATADIR/SOCKET/SSL_CA/BINLOG_BASENAME/PID
#   ROWBRIDGE_TEST_MYSQL_REPL_USER/REPL_PASSWORD       replication grants only
#   ROWBRIDGE_TEST_MYSQL_NOREPL_USER/NOREPL_PASSWORD   SELECT only, no replication grant
#   ROWBRIDGE_TEST_MYSQL_SSL_USER/SSL_PASSWORD         may only connect over TLS
#   ROWBRIDGE_TEST_CH_HOST/PORT/HTTP_PORT/USER/PASSWORD   (user `default`, empty password)
#   ROWBRIDGE_TEST_CH_TLS_PORT/SSL_CA                  native protocol over TLS; the CA that
#                                                      signed its certificate (for 127.0.0.1)
#   ROWBRIDGE_TEST_CH_AUTH_USER/AUTH_PASSWORD          a ClickHouse user with a password
#   ROWBRIDGE_TEST_CH_READONLY_USER                    a read-only ClickHouse user, no password
#   ROWBRIDGE_TEST_CH_PID
#   ROWBRIDGE_TEST_ZK_HOSTS/PID                        127.0.0.1:port of ZooKeeper (--zookeeper)
#   ROWBRIDGE_TEST_CLUSTER_NAME                        the cluster's name (--cluster)
#   ROWBRIDGE_TEST_CLUSTER_DIR                         DIR (--cluster): the cluster tests use this
#                                                      cluster instead of starting their own
#   ROWBRIDGE_TEST_CLUSTER_NODE<n>_PORT/HTTP_PORT/PID  node n (1..3): native and HTTP ports, pid

# The servers live in /usr/sbin, which is not on a normal user's PATH on Debian.
case ":$PATH:" in
  *:/usr/sbin:*) ;;
  *) PATH="$PATH:/usr/sbin" ;;
esac

# Seconds to wait for a server to answer, and for it to exit after TERM before it gets KILL.
: "${TESTSERVERS_START_TIMEOUT:=90}"
: "${TESTSERVERS_STOP_TIMEOUT:=30}"

_ts_log() { echo "testservers: $*" >&2; }
_ts_die() {
  echo "testservers: ERROR: $*" >&2
  exit 1
}

# A port in 20000..32767 (below Linux's ephemeral range, above the usual service ports) that
# nothing listens on and that is not in the exclusion list ($@).
_ts_free_port() {
  local port tries
  for ((tries = 0; tries < 200; tries++)); do
    port=$((20000 + RANDOM % 12768))
    local taken=0 p
    for p in "$@"; do [[ "$p" == "$port" ]] && taken=1; done
    ((taken)) && continue
    if command -v ss >/dev/null 2>&1; then
      [[ -z "$(ss -Htan "sport = :$port" 2>/dev/null)" ]] || continue
    else
      (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && continue
    fi
    echo "$port"
    return 0
  done
  _ts_die "no free TCP port found on 127.0.0.1 in 20000..32767"
}

# True while PID runs and is not a zombie.
_ts_alive() {
  local pid="$1" state
  [[ -n "$pid" && -r "/proc/$pid/stat" ]] || return 1
  state="$(sed -E 's/^[0-9]+ \(.*\) ([A-Za-z]).*/\1/' "/proc/$pid/stat" 2>/dev/null)" || return 1
  [[ "$state" != "Z" && "$state" != "X" ]]
}

# True if PID is alive and its command line contains MARK (guards against a recycled pid).
_ts_is_ours() {
  local pid="$1" mark="$2"
  _ts_alive "$pid" || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$mark"
}

# Stops PID (if it is still ours): TERM, wait up to the timeout, then KILL. With kill_now=1, KILL.
_ts_stop_pid() {
  local name="$1" pid="$2" mark="$3" kill_now="$4" i
  _ts_is_ours "$pid" "$mark" || return 0
  if ((kill_now)); then
    kill -KILL "$pid" 2>/dev/null || true
  else
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < TESTSERVERS_STOP_TIMEOUT * 10; i++)); do
      _ts_alive "$pid" || return 0
      sleep 0.1
    done
    _ts_log "$name (pid $pid) still running ${TESTSERVERS_STOP_TIMEOUT}s after TERM; sending KILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  for ((i = 0; i < 100; i++)); do
    _ts_alive "$pid" || return 0
    sleep 0.1
  done
  _ts_log "$name (pid $pid) survived KILL"
  return 1
}

_ts_random_password() {
  echo "rb$(openssl rand -hex 10)"
}

_ts_abs_dir() {
  mkdir -p "$1" && (cd "$1" && pwd)
}

# ---------------------------------------------------------------------------------------------
# Source flavors

_TS_ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"

_ts_check_flavor() {
  case "$1" in
    mariadb | mysql | mariadb11) ;;
    *) _ts_die "unknown source flavor '$1' (mariadb, mysql or mariadb11)" ;;
  esac
}

# The flavor of the source server in DIR (recorded at its first start).
_ts_flavor() { cat "$1/mariadb/flavor" 2>/dev/null || echo mariadb; }

# The chroot a flavor runs from ("" for the host's MariaDB), built on first use.
_ts_chroot() {
  local flavor="$1" path
  [[ "$flavor" == mariadb ]] && return 0
  if ! path="$(bash "$_TS_ROOT/scripts/source-chroots.sh" --path "$flavor")"; then
    bash "$_TS_ROOT/scripts/source-chroots.sh" "$flavor" >&2 ||
      _ts_die "could not build the $flavor chroot (scripts/source-chroots.sh $flavor)"
    path="$(bash "$_TS_ROOT/scripts/source-chroots.sh" --path "$flavor")" ||
      _ts_die "scripts/source-chroots.sh built no $flavor chroot"
  fi
  echo "$path"
}

# Runs a command of the source's flavor: inside its chroot, or on the host.
_ts_source_run() {
  local chroot="$1"
  shift
  if [[ -n "$chroot" ]]; then
    chroot "$chroot" "$@"
  else
    "$@"
  fi
}

# A host path as the server sees it (inside its chroot).
_ts_server_path() {
  local chroot="$1" path="$2"
  if [[ -n "$chroot" ]]; then echo "${path#"$chroot"}"; else echo "$path"; fi
}

# The server and client programs of a flavor.
_ts_server_program() {
  case "$1" in
    mysql) echo /usr/sbin/mysqld ;;
    *) echo mariadbd ;;
  esac
}
_ts_client_program() {
  case "$1" in
    mysql) echo mysql ;;
    *) echo mariadb ;;
  esac
}

# ---------------------------------------------------------------------------------------------
# MariaDB (and the other source flavors)

# A throwaway CA and a server certificate for 127.0.0.1/localhost, signed by it. EC P-256 keys:
# generating them takes milliseconds where RSA takes most of a second on a busy machine.
_ts_make_certs() {
  local ssl="$1"
  mkdir -p "$ssl"
  (
    cd "$ssl"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 -subj "/CN=rowbridge test CA" \
      -keyout ca-key.pem -out ca.pem
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=127.0.0.1" \
      -keyout server-key.pem -out server-req.pem
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n' >server.ext
    openssl x509 -req -in server-req.pem -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 3650 \
      -extfile server.ext -out server-cert.pem
  ) >"$ssl/openssl.log" 2>&1 || {
    cat "$ssl/openssl.log" >&2
    _ts_die "openssl could not make the test certificates in $ssl"
  }
}

_ts_install_db() {
  local flavor="$1" chroot="$2" datadir="$3" log="$4"
  local -a user=()
  [[ "$(id -u)" == 0 ]] && user=(--user=root)
  local server_datadir
  server_datadir="$(_ts_server_path "$chroot" "$datadir")"
  if [[ "$flavor" == mysql ]]; then
    # root@localhost with no password; the first start sets one over the socket.
    _ts_source_run "$chroot" /usr/sbin/mysqld --no-defaults --initialize-insecure \
      --datadir="$server_datadir" "${user[@]}" >"$log" 2>&1
  else
    _ts_source_run "$chroot" mariadb-install-db --no-defaults --datadir="$server_datadir" \
      --auth-root-authentication-method=normal --skip-test-db --skip-name-resolve "${user[@]}" \
      >"$log" 2>&1
  fi || {
    tail -n 30 "$log" >&2
    _ts_die "initializing the $flavor data directory $datadir failed (see $log)"
  }
}

# Makes $m/data a fresh MariaDB data directory. mariadb-install-db takes seconds on a busy machine,
# so its result is kept once per MariaDB version (in TESTSERVERS_CACHE, default
# ~/.cache/rowbridge-testservers) and copied; the copy is sparse and takes a fraction of a second.
# Test processes start servers concurrently: a lock file lets one of them install while the others
# wait for its result, and the finished template appears by an atomic rename, so no start ever
# copies a half-written one (a start killed mid-install leaves only its own temp directory).
_ts_mariadb_datadir() {
  local m="$1" flavor="$2" chroot="$3" version cache template
  version="$(_ts_source_run "$chroot" "$(_ts_server_program "$flavor")" --version |
    grep -oE '[0-9]+\.[0-9]+\.[0-9]+[^ ]*' | head -n 1)"
  # A chroot's server can only read a template inside its chroot.
  if [[ -n "$chroot" ]]; then
    cache="$chroot/var/cache/rowbridge-testservers"
  else
    cache="${TESTSERVERS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rowbridge-testservers}"
  fi
  template="$cache/$flavor-datadir-$version-uid$(id -u)"
  if [[ ! -f "$template/.complete" ]] && mkdir -p "$cache" 2>/dev/null; then
    (
      flock -w "$TESTSERVERS_START_TIMEOUT" 9 ||
        _ts_die "waited ${TESTSERVERS_START_TIMEOUT}s for the lock $template.lock"
      [[ -f "$template/.complete" ]] && exit 0
      tmp="$(mktemp -d "$cache/.install.XXXXXX")"
      _ts_install_db "$flavor" "$chroot" "$tmp/data" "$m/install.log"
      touch "$tmp/data/.complete"
      rm -rf "$template"  # only a template without .complete, i.e. never a usable one
      mv -T "$tmp/data" "$template"
      rm -rf "$tmp"
    ) 9>"$template.lock" || _ts_die "could not prepare the MariaDB data directory template $template"
  fi
  if [[ -f "$template/.complete" ]]; then
    cp -a --sparse=always "$template" "$m/data"
    rm -f "$m/data/.complete"
  else
    _ts_install_db "$flavor" "$chroot" "$m/data" "$m/install.log"
  fi
}

# Runs the mariadb client against the server in DIR. Before the root password is set (first
# start), connect with _TS_ROOT_NOPASS=1 over the socket.
# The client is the flavor's own (from its chroot), so it speaks the server's authentication.
_ts_mariadb_client() {
  local dir="$1"
  shift
  local m="$dir/mariadb" flavor chroot
  flavor="$(_ts_flavor "$dir")"
  chroot="$(cat "$m/chroot" 2>/dev/null || true)"
  local -a client=("$(_ts_client_program "$flavor")" --no-defaults --default-character-set=utf8mb4
    --connect-timeout=5 -uroot)
  if [[ "${_TS_ROOT_NOPASS:-0}" == 1 ]]; then
    _ts_source_run "$chroot" "${client[@]}" \
      --socket="$(_ts_server_path "$chroot" "$(cat "$m/socket")")" "$@"
  else
    # The password by environment: MySQL's client warns about one on the command line.
    _ts_source_run "$chroot" env MYSQL_PWD="$(cat "$m/password")" "${client[@]}" \
      --protocol=TCP -h127.0.0.1 -P"$(cat "$m/port")" "$@"
  fi
}

# Waits until CHECK ARG succeeds (the server NAME, process PID, answers), or fails naming why, with
# the last lines of its LOGs. Returns 2 if it exited because its port was taken (BUSY, an extended
# regular expression, in a log), so the caller can retry on another.
_ts_wait_server() {
  local name="$1" pid="$2" busy="$3" check="$4" arg="$5" i
  shift 5
  for ((i = 0; i < TESTSERVERS_START_TIMEOUT * 10; i++)); do
    if ! _ts_alive "$pid"; then
      grep -qE "$busy" "$@" 2>/dev/null && return 2
      _ts_log "$name exited during startup; last lines of its logs:"
      tail -n 30 "$@" >&2 2>/dev/null
      return 1
    fi
    "$check" "$arg" && return 0
    sleep 0.1
  done
  _ts_log "$name (pid $pid) did not answer within ${TESTSERVERS_START_TIMEOUT}s; last lines of its logs:"
  tail -n 30 "$@" >&2 2>/dev/null
  return 1
}

# Waits until mariadbd (pid) answers SELECT 1, or fails naming why (and its error log).
# Returns 2 if the port was taken, so the caller can retry on another.
_ts_wait_mariadb() {
  _ts_wait_server mariadbd "$2" "Bind on TCP/IP port|Address already in use" _ts_mariadb_ok "$1" \
    "$1/mariadb/error.log"
}

_ts_mariadb_ok() { _ts_mariadb_client "$1" -N -e 'SELECT 1' >/dev/null 2>&1; }

_ts_launch_mariadb() {
  local dir="$1"
  local m="$dir/mariadb" flavor chroot sm
  flavor="$(_ts_flavor "$dir")"
  chroot="$(cat "$m/chroot" 2>/dev/null || true)"
  # The same directory, as the server sees it.
  sm="$(_ts_server_path "$chroot" "$(readlink -f "$m")")"
  local -a opts=(
    --no-defaults
    --datadir="$sm/data"
    --tmpdir="$sm/tmp"
    --socket="$(_ts_server_path "$chroot" "$(cat "$m/socket")")"
    --pid-file="$sm/mariadbd.pid"
    --log-error="$sm/error.log"
    --port="$(cat "$m/port")"
    --bind-address=127.0.0.1
    --skip-name-resolve
    --log-bin="$sm/data/mysql-bin"
    --binlog-format=ROW
    --server-id=1
    --character-set-server=utf8mb4
    --ssl-ca="$sm/ssl/ca.pem"
    --ssl-cert="$sm/ssl/server-cert.pem"
    --ssl-key="$sm/ssl/server-key.pem"
    --secure-file-priv="$sm/tmp"
    --max-allowed-packet=256M
    --innodb-buffer-pool-size=128M
    --innodb-flush-log-at-trx-commit=2
    --sync-binlog=0
    --performance-schema=OFF
    --max-connections=500
  )
  if [[ "$flavor" == mysql ]]; then
    # GTIDs on, as production MySQL runs; no X protocol listener (its fixed port 33060 would
    # clash between servers).
    opts+=(--gtid-mode=ON --enforce-gtid-consistency=ON --mysqlx=OFF)
  else
    opts+=(--collation-server=utf8mb4_general_ci)
  fi
  [[ "$(id -u)" == 0 ]] && opts+=(--user=root)
  local -a extra=()
  if [[ -s "$m/extra_opts" ]]; then mapfile -t extra <"$m/extra_opts"; fi
  # The error log is appended to on restarts; remember where this start begins for bind checks.
  : >>"$m/error.log"
  # A simple command, not a function, so that $! is the process bash execs; chroot(8) execs the
  # server in turn, so $! is the server's own pid (the tests SIGSTOP it, stop kills it).
  local -a server=("$(_ts_server_program "$flavor")")
  [[ -n "$chroot" ]] && server=(chroot "$chroot" "${server[@]}")
  TZ=UTC "${server[@]}" "${opts[@]}" "${extra[@]}" </dev/null >>"$m/stdout.log" 2>&1 &
  echo $! >"$m/pid"
}

# MySQL refuses to start while its socket's lock file names a process that exists, and a server
# killed with -9 stays a zombie until whoever inherited it reaps it, which can take seconds where
# PID 1 is not an init (a container): the restart failed with "Another process with pid N is using
# unix socket file" (seen in a CI-like run on MySQL 9.7). A lock file whose process is dead or a
# zombie is stale and goes; one of a live process stays (and the server says so).
_ts_clear_socket_lock() {
  local m="$1/mariadb" lock holder
  lock="$(cat "$m/socket" 2>/dev/null).lock"
  [[ -f "$lock" ]] || return 0
  holder="$(tr -dc '0-9' <"$lock")"
  _ts_alive "$holder" || rm -f "$lock"
}

# What a running source server's command line holds that no other process's does.
_ts_mariadb_mark() {
  local m="$1/mariadb" chroot
  chroot="$(cat "$m/chroot" 2>/dev/null || true)"
  echo "$(_ts_server_path "$chroot" "$(readlink -f "$m")")/data"
}

_ts_start_mariadb() {
  local dir="$1" exclude_port="$2"
  local m="$dir/mariadb" flavor chroot
  flavor="$(_ts_flavor "$dir")"
  chroot="$(cat "$m/chroot" 2>/dev/null || true)"
  if [[ -f "$m/initialized" ]]; then
    # Restart on the existing data and port; the users exist already.
    _ts_clear_socket_lock "$dir"
    _ts_launch_mariadb "$dir"
    _ts_wait_mariadb "$dir" "$(cat "$m/pid")" ||
      _ts_die "mariadbd did not restart on port $(cat "$m/port") (datadir $m/data)"
    return 0
  fi

  mkdir -p "$m/tmp"
  local sock="$m/mariadbd.sock"
  # A unix socket path must fit in 108 bytes; deep DIRs get a short one in /tmp instead (the
  # chroot's /tmp for a chroot's server).
  if [[ -n "$chroot" ]]; then
    sock="$(mktemp -d "$chroot/tmp/rbsock.XXXXXX")/mariadbd.sock"
  elif ((${#sock} > 100)); then
    sock="$(mktemp -d /tmp/rbsock.XXXXXX)/mariadbd.sock"
  fi
  echo "$sock" >"$m/socket"
  _ts_random_password >"$m/password"
  _ts_random_password >"$m/repl_password"
  _ts_random_password >"$m/norepl_password"
  _ts_random_password >"$m/ssl_password"
  _ts_make_certs "$m/ssl"
  _ts_mariadb_datadir "$m" "$flavor" "$chroot"

  local attempt rc
  for ((attempt = 0; attempt < 5; attempt++)); do
    _ts_free_port "$exclude_port" >"$m/port"
    _ts_launch_mariadb "$dir"
    rc=0
    _TS_ROOT_NOPASS=1 _ts_wait_mariadb "$dir" "$(cat "$m/pid")" || rc=$?
    ((rc == 2)) && {
      _ts_log "port $(cat "$m/port") was taken; retrying on another"
      continue
    }
    ((rc == 0)) || _ts_die "the $flavor server did not start (datadir $m/data, log $m/error.log)"
    break
  done
  ((rc == 0)) || _ts_die "mariadbd found no free port after $attempt attempts"

  local pw repl norepl sslpw
  pw="$(cat "$m/password")"
  repl="$(cat "$m/repl_password")"
  norepl="$(cat "$m/norepl_password")"
  sslpw="$(cat "$m/ssl_password")"
  # Root gets a password on every host entry the installer made; the entry named after this
  # machine's hostname is useless with --skip-name-resolve and is dropped. The replication user
  # has what a binlog reader needs (dump, position/GTID queries) plus SELECT for snapshots. None
  # of this is binlogged, so tests see a binlog that holds only their own events.
  local hosts sql="SET SESSION sql_log_bin=0;" h
  hosts="$(_TS_ROOT_NOPASS=1 _ts_mariadb_client "$dir" -N -e \
    "SELECT Host FROM mysql.user WHERE User='root'")" || _ts_die "cannot list root users in $m"
  while IFS= read -r h; do
    case "$h" in
      localhost | 127.0.0.1 | ::1) sql+="ALTER USER 'root'@'$h' IDENTIFIED BY '$pw';" ;;
      *) sql+="DROP USER 'root'@'$h';" ;;
    esac
  done <<<"$hosts"
  if [[ "$flavor" == mysql ]]; then
    # MySQL's installer makes root@localhost only, which a TCP login from 127.0.0.1 does not
    # match under --skip-name-resolve; MySQL has no BINLOG MONITOR/SLAVE MONITOR privileges.
    sql+="
    CREATE USER 'root'@'127.0.0.1' IDENTIFIED BY '$pw';
    GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;
    CREATE USER 'repl'@'%' IDENTIFIED BY '$repl';
    GRANT REPLICATION SLAVE, REPLICATION CLIENT, SELECT, RELOAD, SHOW VIEW ON *.* TO 'repl'@'%';
    CREATE USER 'norepl'@'%' IDENTIFIED BY '$norepl';
    GRANT SELECT ON *.* TO 'norepl'@'%';
    CREATE USER 'ssluser'@'%' IDENTIFIED BY '$sslpw' REQUIRE SSL;
    GRANT SELECT, REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'ssluser'@'%';
    FLUSH PRIVILEGES;"
  else
    sql+="
    CREATE USER 'repl'@'%' IDENTIFIED BY '$repl';
    GRANT REPLICATION SLAVE, REPLICATION CLIENT, BINLOG MONITOR, REPLICATION MASTER ADMIN,
          SLAVE MONITOR, SELECT, RELOAD, SHOW VIEW ON *.* TO 'repl'@'%';
    CREATE USER 'norepl'@'%' IDENTIFIED BY '$norepl';
    GRANT SELECT ON *.* TO 'norepl'@'%';
    CREATE USER 'ssluser'@'%' IDENTIFIED BY '$sslpw' REQUIRE SSL;
    GRANT SELECT, REPLICATION SLAVE, BINLOG MONITOR ON *.* TO 'ssluser'@'%';
    FLUSH PRIVILEGES;"
  fi
  _TS_ROOT_NOPASS=1 _ts_mariadb_client "$dir" -e "$sql" ||
    _ts_die "could not create the test users in $m"
  # Prove the password, TCP and TLS all work before declaring the server ready.
  _ts_mariadb_client "$dir" -N -e 'SELECT 1' >/dev/null ||
    _ts_die "root cannot log in over TCP to 127.0.0.1:$(cat "$m/port")"
  local cipher ca
  ca="$(_ts_server_path "$chroot" "$(readlink -f "$m")/ssl/ca.pem")"
  local -a tls=(--ssl --ssl-verify-server-cert --ssl-ca="$ca")
  [[ "$flavor" == mysql ]] && tls=(--ssl-mode=VERIFY_IDENTITY --ssl-ca="$ca")
  cipher="$(_ts_mariadb_client "$dir" "${tls[@]}" \
    -N -e "SHOW STATUS LIKE 'Ssl_cipher'" | awk '{print $2}')"
  [[ -n "$cipher" ]] || _ts_die "TLS to 127.0.0.1:$(cat "$m/port") did not work"
  touch "$m/initialized"
}

# ---------------------------------------------------------------------------------------------
# ClickHouse

_ts_write_clickhouse_config() {
  local c="$1" tcp="$2" http="$3" authpw="$4" tls="$5" extra="${6:-}"
  cat >"$c/config.xml" <<EOF
<?xml version="1.0"?>
<!-- A throwaway ClickHouse for rowbridge tests; written by tests/servers/testservers.sh. -->
<yandex>
  <logger>
    <level>information</level>
    <log>$c/log/clickhouse-server.log</log>
    <errorlog>$c/log/clickhouse-server.err.log</errorlog>
    <size>100M</size>
    <count>2</count>
  </logger>
  <listen_host>127.0.0.1</listen_host>
  <tcp_port>$tcp</tcp_port>
  <http_port>$http</http_port>
  <tcp_port_secure>$tls</tcp_port_secure>
  <openSSL>
    <server>
      <certificateFile>$c/ssl/server-cert.pem</certificateFile>
      <privateKeyFile>$c/ssl/server-key.pem</privateKeyFile>
      <verificationMode>none</verificationMode>
      <loadDefaultCAFile>false</loadDefaultCAFile>
      <cacheSessions>true</cacheSessions>
      <disableProtocols>sslv2,sslv3</disableProtocols>
      <preferServerCiphers>true</preferServerCiphers>
    </server>
  </openSSL>
  <path>$c/data/</path>
  <tmp_path>$c/tmp/</tmp_path>
  <user_files_path>$c/user_files/</user_files_path>
  <format_schema_path>$c/format_schemas/</format_schema_path>
  <users_config>$c/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <max_connections>1024</max_connections>
  <max_concurrent_queries>200</max_concurrent_queries>
  <mark_cache_size>268435456</mark_cache_size>
  <uncompressed_cache_size>268435456</uncompressed_cache_size>
  <mlock_executable>false</mlock_executable>
$extra
</yandex>
EOF
  cat >"$c/users.xml" <<EOF
<?xml version="1.0"?>
<yandex>
  <profiles>
    <default>
      <max_memory_usage>4000000000</max_memory_usage>
    </default>
    <readonly>
      <readonly>1</readonly>
    </readonly>
  </profiles>
  <users>
    <default>
      <password></password>
      <networks><ip>127.0.0.1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </default>
    <rowbridge>
      <password>$authpw</password>
      <networks><ip>127.0.0.1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </rowbridge>
    <reader>
      <password></password>
      <networks><ip>127.0.0.1</ip></networks>
      <profile>readonly</profile>
      <quota>default</quota>
    </reader>
  </users>
  <quotas>
    <default></default>
  </quotas>
</yandex>
EOF
}

_ts_clickhouse_client() {
  local dir="$1"
  shift
  clickhouse-client --host 127.0.0.1 --port "$(cat "$dir/clickhouse/port")" "$@"
}

_ts_wait_clickhouse() {
  _ts_wait_server clickhouse-server "$2" "Address already in use" _ts_clickhouse_ok "$1" \
    "$1/clickhouse/stdout.log" "$1/clickhouse/log/clickhouse-server.err.log"
}

# The TLS listener opens with the plain one; check it too so no test races it.
_ts_clickhouse_ok() {
  [[ "$(_ts_clickhouse_client "$1" -q 'SELECT 1' 2>/dev/null)" == 1 ]] &&
    (exec 3<>"/dev/tcp/127.0.0.1/$(cat "$1/clickhouse/tls_port")") 2>/dev/null
}

_ts_launch_clickhouse() {
  local c="$1"
  mkdir -p "$c/data" "$c/tmp" "$c/user_files" "$c/format_schemas" "$c/log"
  # cd so that nothing ClickHouse writes relative to its working directory lands elsewhere.
  (cd "$c" && TZ=UTC exec clickhouse-server --config-file="$c/config.xml" \
    </dev/null >>"$c/stdout.log" 2>&1) &
  echo $! >"$c/pid"
}

_ts_start_clickhouse() {
  local dir="$1" exclude_port="$2"
  local c="$dir/clickhouse"
  mkdir -p "$c"
  if [[ -f "$c/initialized" ]]; then
    _ts_launch_clickhouse "$c"
    _ts_wait_clickhouse "$dir" "$(cat "$c/pid")" ||
      _ts_die "clickhouse-server did not restart (config $c/config.xml)"
    return 0
  fi
  [[ -s "$c/auth_password" ]] || _ts_random_password >"$c/auth_password"
  [[ -f "$c/ssl/server-cert.pem" ]] || _ts_make_certs "$c/ssl"
  _ts_on_free_ports clickhouse-server "$c/config.xml" _ts_try_clickhouse "$dir" "$exclude_port"
  touch "$c/initialized"
}

# One start of a new ClickHouse on free ports (see _ts_on_free_ports).
_ts_try_clickhouse() {
  local dir="$1" exclude_port="$2" c="$1/clickhouse" tcp http tls
  tcp="$(_ts_free_port "$exclude_port")"
  http="$(_ts_free_port "$exclude_port" "$tcp")"
  tls="$(_ts_free_port "$exclude_port" "$tcp" "$http")"
  echo "$tcp" >"$c/port"
  echo "$http" >"$c/http_port"
  echo "$tls" >"$c/tls_port"
  _ts_write_clickhouse_config "$c" "$tcp" "$http" "$(cat "$c/auth_password")" "$tls"
  _ts_launch_clickhouse "$c"
  _ts_wait_clickhouse "$dir" "$(cat "$c/pid")"
}

# Runs TRY ARGS... (picks free ports, writes the config, launches and waits for the server: status
# 0 when it answers, 2 when one of its ports was taken meanwhile, else 1) up to 5 times; dies
# naming NAME and CONFIG when it fails or finds no free ports.
_ts_on_free_ports() {
  local name="$1" config="$2" try="$3" attempt rc
  shift 3
  for ((attempt = 0; attempt < 5; attempt++)); do
    rc=0
    "$try" "$@" || rc=$?
    ((rc == 0)) && return 0
    ((rc == 2)) || _ts_die "$name did not start (config $config)"
    _ts_log "a port of $name was taken; retrying on others"
  done
  _ts_die "$name found no free ports after $attempt attempts"
}

# ---------------------------------------------------------------------------------------------
# ZooKeeper

# True when the ZooKeeper in Z answers the four-letter command ruok within 2 s (a server that is
# starting accepts connections before it reads them).
# A subshell: a write to a socket the server already closed (SIGPIPE) ends only it.
_ts_zookeeper_ok() (
  local answer="" fd
  exec {fd}<>"/dev/tcp/127.0.0.1/$(cat "$1/port")" || exit 1
  echo ruok 1>&"$fd"
  read -r -t 2 -u "$fd" answer || true # "imok" has no newline: read fails at EOF, keeps it
  [[ "$answer" == imok ]]
) 2>/dev/null

_ts_wait_zookeeper() {
  _ts_wait_server zookeeper "$2" "Address already in use" _ts_zookeeper_ok "$1" "$1/stdout.log"
}

_ts_launch_zookeeper() {
  local z="$1"
  # As the package's zkServer.sh runs it, with log4j bound to slf4j so that its log (the
  # package's log4j.properties, CONSOLE) lands in stdout.log; zoo.cfg on the command line marks the
  # process as ours.
  local cp="/etc/zookeeper/conf:/usr/share/java/zookeeper.jar"
  local jar
  for jar in /usr/share/java/slf4j-log4j12.jar /usr/share/java/log4j-1.2.jar; do
    [[ -f "$jar" ]] && cp="$cp:$jar"
  done
  (cd "$z" && exec java -Xmx256m -Dzookeeper.log.dir="$z" -Dzookeeper.root.logger=INFO,CONSOLE \
    -cp "$cp" \
    org.apache.zookeeper.server.quorum.QuorumPeerMain "$z/zoo.cfg" \
    </dev/null >>"$z/stdout.log" 2>&1) &
  echo $! >"$z/pid"
}

# Starts ZooKeeper in DIR/zookeeper on a free port other than the ones given.
_ts_start_zookeeper() {
  local dir="$1"
  shift
  local z="$dir/zookeeper"
  [[ -f /usr/share/java/zookeeper.jar ]] ||
    _ts_die "ZooKeeper is not installed (apt-get install zookeeper; scripts/install-deps.sh)"
  mkdir -p "$z/data"
  if [[ -f "$z/initialized" ]]; then
    _ts_launch_zookeeper "$z"
    _ts_wait_zookeeper "$z" "$(cat "$z/pid")" || _ts_die "zookeeper did not restart ($z/zoo.cfg)"
    return 0
  fi
  _ts_on_free_ports zookeeper "$z/zoo.cfg" _ts_try_zookeeper "$z" "$@"
  touch "$z/initialized"
}

# One start of a new ZooKeeper in Z on a free port other than the ones given (_ts_on_free_ports).
_ts_try_zookeeper() {
  local z="$1" port
  shift
  port="$(_ts_free_port "$@")"
  echo "$port" >"$z/port"
  printf '%s\n' "tickTime=500" "dataDir=$z/data" "clientPort=$port" \
    "clientPortAddress=127.0.0.1" "admin.enableServer=false" \
    "4lw.commands.whitelist=ruok,srvr,stat,cons,mntr" >"$z/zoo.cfg"
  _ts_launch_zookeeper "$z"
  _ts_wait_zookeeper "$z" "$(cat "$z/pid")"
}


# ---------------------------------------------------------------------------------------------
# ClickHouse cluster (--cluster)
#
# Three clickhouse-server processes in DIR/cluster/node1..3 and the ZooKeeper of DIR/zookeeper,
# forming the cluster `rowbridge_test`: shard 1 is node1 alone, shard 2 is node2 and node3
# (internal_replication true: a Distributed table writes a row to one replica, the Replicated
# table copies it). Macros per node: shard (01, 02) and replica (node1..3, unique in the whole
# cluster). Every node listens on 127.0.0.1 only, with its own native, HTTP and interserver
# ports; ON CLUSTER DDL goes through ZooKeeper (/clickhouse/task_queue/ddl).

_TS_CLUSTER_NAME=rowbridge_test
_TS_CLUSTER_NODES=(1 2 3)
_ts_cluster_shard() { if (($1 == 1)); then echo 01; else echo 02; fi; }

_ts_cluster_node_ok() {
  [[ "$(clickhouse-client --host 127.0.0.1 --port "$(cat "$1/port")" -q 'SELECT 1' 2>/dev/null)" == 1 ]]
}

_ts_wait_cluster_node() {
  _ts_wait_server "clickhouse-server $(basename "$1")" "$2" "Address already in use" \
    _ts_cluster_node_ok "$1" "$1/stdout.log" "$1/log/clickhouse-server.err.log"
}

# The XML every node adds to the single server's config: the cluster, ZooKeeper, its macros.
_ts_cluster_extra_config() {
  local cl="$1" node="$2" zk_port="$3" n
  echo "  <interserver_http_port>$(cat "$cl/node$node/interserver_port")</interserver_http_port>"
  echo "  <interserver_http_host>127.0.0.1</interserver_http_host>"
  echo "  <remote_servers><$_TS_CLUSTER_NAME>"
  echo "    <shard><internal_replication>true</internal_replication>"
  echo "      <replica><host>127.0.0.1</host><port>$(cat "$cl/node1/port")</port></replica></shard>"
  echo "    <shard><internal_replication>true</internal_replication>"
  for n in 2 3; do
    echo "      <replica><host>127.0.0.1</host><port>$(cat "$cl/node$n/port")</port></replica>"
  done
  echo "    </shard>"
  echo "  </$_TS_CLUSTER_NAME></remote_servers>"
  echo "  <zookeeper><node><host>127.0.0.1</host><port>$zk_port</port></node>"
  echo "    <session_timeout_ms>10000</session_timeout_ms></zookeeper>"
  echo "  <macros><shard>$(_ts_cluster_shard "$node")</shard><replica>node$node</replica></macros>"
  echo "  <distributed_ddl><path>/clickhouse/task_queue/ddl</path></distributed_ddl>"
}

# One try at a new cluster: free ports for every node, configs, launch all, wait for all (see
# _ts_on_free_ports). A node whose port was taken stops the others, so the next try starts afresh.
_ts_try_cluster() {
  local dir="$1" cl="$1/cluster" node rc=0
  shift
  local -a taken=("$@")
  for node in "${_TS_CLUSTER_NODES[@]}"; do
    local d="$cl/node$node" port
    mkdir -p "$d"
    for port in port http_port interserver_port tls_port; do
      _ts_free_port "${taken[@]}" >"$d/$port"
      taken+=("$(cat "$d/$port")")
    done
  done
  for node in "${_TS_CLUSTER_NODES[@]}"; do
    local d="$cl/node$node"
    _ts_write_clickhouse_config "$d" "$(cat "$d/port")" "$(cat "$d/http_port")" \
      "$(cat "$cl/auth_password")" "$(cat "$d/tls_port")" \
      "$(_ts_cluster_extra_config "$cl" "$node" "$(cat "$dir/zookeeper/port")")"
    _ts_launch_clickhouse "$d"
  done
  for node in "${_TS_CLUSTER_NODES[@]}"; do
    _ts_wait_cluster_node "$cl/node$node" "$(cat "$cl/node$node/pid")" || rc=$?
    ((rc == 0)) || break
  done
  if ((rc != 0)); then
    for node in "${_TS_CLUSTER_NODES[@]}"; do
      _ts_stop_pid "clickhouse-server node$node" "$(cat "$cl/node$node/pid")" \
        "$cl/node$node/config.xml" 1 || true
    done
  fi
  return "$rc"
}

# Starts the cluster's ZooKeeper and nodes that do not run (all of them the first time; after
# `stop --only=cluster-nodeN`, that node again on its data and ports).
_ts_start_cluster() {
  local dir="$1" cl="$1/cluster" node
  shift
  mkdir -p "$cl"
  if ! _ts_is_ours "$(cat "$dir/zookeeper/pid" 2>/dev/null)" "$dir/zookeeper/zoo.cfg"; then
    _ts_start_zookeeper "$dir" "$@"
  fi
  if [[ ! -f "$cl/initialized" ]]; then
    [[ -s "$cl/auth_password" ]] || _ts_random_password >"$cl/auth_password"
    [[ -f "$cl/ssl/server-cert.pem" ]] || _ts_make_certs "$cl/ssl"
    for node in "${_TS_CLUSTER_NODES[@]}"; do
      mkdir -p "$cl/node$node"
      ln -sfn "$cl/ssl" "$cl/node$node/ssl"
    done
    _ts_on_free_ports "the ClickHouse cluster" "$cl/node1/config.xml" _ts_try_cluster "$dir" \
      "$@" "$(cat "$dir/zookeeper/port")"
    touch "$cl/initialized"
    return 0
  fi
  local -a started=()
  for node in "${_TS_CLUSTER_NODES[@]}"; do
    local d="$cl/node$node"
    _ts_is_ours "$(cat "$d/pid" 2>/dev/null)" "$d/config.xml" && continue
    _ts_launch_clickhouse "$d"
    started+=("$node")
  done
  for node in "${started[@]}"; do
    _ts_wait_cluster_node "$cl/node$node" "$(cat "$cl/node$node/pid")" ||
      _ts_die "clickhouse-server node$node did not restart (config $cl/node$node/config.xml)"
  done
}

# Stops the nodes named (1 2 3 by default).
_ts_stop_cluster() {
  local dir="$1" kill_now="$2" node rc=0
  shift 2
  for node in "$@"; do
    local d="$dir/cluster/node$node"
    [[ -f "$d/pid" ]] || continue
    _ts_stop_pid "clickhouse-server node$node" "$(cat "$d/pid")" "$d/config.xml" "$kill_now" ||
      rc=1
  done
  return "$rc"
}

# ---------------------------------------------------------------------------------------------
# Commands

_ts_write_env() {
  local dir="$1" m="$1/mariadb" c="$1/clickhouse"
  {
    printf 'export ROWBRIDGE_TEST_SERVERS_DIR=%q\n' "$dir"
    if [[ -f "$m/initialized" ]]; then
      printf 'export ROWBRIDGE_TEST_SOURCE=%q\n' "$(_ts_flavor "$dir")"
      printf 'export ROWBRIDGE_TEST_MYSQL_VERSION=%q\n' \
        "$(_ts_mariadb_client "$dir" -N -e 'SELECT VERSION()' 2>/dev/null || true)"
      # Empty for the host's server: %q would print '' there, which the C++ reader takes as is.
      local chroot
      chroot="$(cat "$m/chroot" 2>/dev/null || true)"
      if [[ -n "$chroot" ]]; then
        printf 'export ROWBRIDGE_TEST_MYSQL_CHROOT=%q\n' "$chroot"
      else
        printf 'export ROWBRIDGE_TEST_MYSQL_CHROOT=\n'
      fi
      printf 'export ROWBRIDGE_TEST_MYSQL_HOST=127.0.0.1\n'
      printf 'export ROWBRIDGE_TEST_MYSQL_PORT=%q\n' "$(cat "$m/port")"
      printf 'export ROWBRIDGE_TEST_MYSQL_USER=root\n'
      printf 'export ROWBRIDGE_TEST_MYSQL_PASSWORD=%q\n' "$(cat "$m/password")"
      printf 'export ROWBRIDGE_TEST_MYSQL_DATADIR=%q\n' "$m/data"
      printf 'export ROWBRIDGE_TEST_MYSQL_SOCKET=%q\n' "$(cat "$m/socket")"
      printf 'export ROWBRIDGE_TEST_MYSQL_SSL_CA=%q\n' "$m/ssl/ca.pem"
      printf 'export ROWBRIDGE_TEST_MYSQL_BINLOG_BASENAME=%q\n' "$m/data/mysql-bin"
      printf 'export ROWBRIDGE_TEST_MYSQL_PID=%q\n' "$(cat "$m/pid")"
      printf 'export ROWBRIDGE_TEST_MYSQL_REPL_USER=repl\n'
      printf 'export ROWBRIDGE_TEST_MYSQL_REPL_PASSWORD=%q\n' "$(cat "$m/repl_password")"
      printf 'export ROWBRIDGE_TEST_MYSQL_NOREPL_USER=norepl\n'
      printf 'export ROWBRIDGE_TEST_MYSQL_NOREPL_PASSWORD=%q\n' "$(cat "$m/norepl_password")"
      printf 'export ROWBRIDGE_TEST_MYSQL_SSL_USER=ssluser\n'
      printf 'export ROWBRIDGE_TEST_MYSQL_SSL_PASSWORD=%q\n' "$(cat "$m/ssl_password")"
    fi
    if [[ -f "$c/initialized" ]]; then
      printf 'export ROWBRIDGE_TEST_CH_HOST=127.0.0.1\n'
      printf 'export ROWBRIDGE_TEST_CH_PORT=%q\n' "$(cat "$c/port")"
      printf 'export ROWBRIDGE_TEST_CH_HTTP_PORT=%q\n' "$(cat "$c/http_port")"
      printf 'export ROWBRIDGE_TEST_CH_TLS_PORT=%q\n' "$(cat "$c/tls_port")"
      printf 'export ROWBRIDGE_TEST_CH_SSL_CA=%q\n' "$c/ssl/ca.pem"
      printf 'export ROWBRIDGE_TEST_CH_USER=default\n'
      printf 'export ROWBRIDGE_TEST_CH_PASSWORD=\n'
      printf 'export ROWBRIDGE_TEST_CH_AUTH_USER=rowbridge\n'
      printf 'export ROWBRIDGE_TEST_CH_AUTH_PASSWORD=%q\n' "$(cat "$c/auth_password")"
      printf 'export ROWBRIDGE_TEST_CH_READONLY_USER=reader\n'
      printf 'export ROWBRIDGE_TEST_CH_PID=%q\n' "$(cat "$c/pid")"
    fi
    if [[ -f "$dir/zookeeper/initialized" ]]; then
      printf 'export ROWBRIDGE_TEST_ZK_HOSTS=127.0.0.1:%q\n' "$(cat "$dir/zookeeper/port")"
      printf 'export ROWBRIDGE_TEST_ZK_PID=%q\n' "$(cat "$dir/zookeeper/pid")"
    fi
    if [[ -f "$dir/cluster/initialized" ]]; then
      local node
      printf 'export ROWBRIDGE_TEST_CLUSTER_NAME=%q\n' "$_TS_CLUSTER_NAME"
      printf 'export ROWBRIDGE_TEST_CLUSTER_DIR=%q\n' "$dir"
      for node in "${_TS_CLUSTER_NODES[@]}"; do
        printf 'export ROWBRIDGE_TEST_CLUSTER_NODE%s_PORT=%q\n' "$node" \
          "$(cat "$dir/cluster/node$node/port")"
        printf 'export ROWBRIDGE_TEST_CLUSTER_NODE%s_HTTP_PORT=%q\n' "$node" \
          "$(cat "$dir/cluster/node$node/http_port")"
        printf 'export ROWBRIDGE_TEST_CLUSTER_NODE%s_PID=%q\n' "$node" \
          "$(cat "$dir/cluster/node$node/pid")"
      done
    fi
  } >"$dir/env"
}

# Stops the servers in DIR when process OWNER exits. Runs detached, with no inherited pipes.
_ts_start_watchdog() {
  local dir="$1" owner="$2" self="$3"
  _ts_alive "$owner" || _ts_die "--owner-pid=$owner is not a running process"
  if [[ -f "$dir/watchdog.pid" ]] && _ts_alive "$(cat "$dir/watchdog.pid")"; then return 0; fi
  (
    trap '' INT HUP
    while _ts_alive "$owner" && [[ ! -f "$dir/stopped" ]]; do sleep 1; done
    [[ -f "$dir/stopped" ]] || TESTSERVERS_IN_WATCHDOG=1 bash "$self" stop "$dir"
  ) </dev/null >>"$dir/watchdog.log" 2>&1 &
  echo $! >"$dir/watchdog.pid"
}

testservers_start() (
  set -euo pipefail
  local mariadb=1 clickhouse=1 zookeeper="${ROWBRIDGE_TEST_ZK:-0}" cluster=0 owner="" dir="" arg
  local flavor="${ROWBRIDGE_TEST_SOURCE:-mariadb}"
  local -a new_opts=()
  for arg in "$@"; do
    case "$arg" in
      --source=*) flavor="${arg#--source=}" ;;
      --mariadb-opt=*) new_opts+=("${arg#--mariadb-opt=}") ;;
      --no-mariadb) mariadb=0 ;;
      --no-clickhouse) clickhouse=0 ;;
      --zookeeper) zookeeper=1 ;;
      --cluster) cluster=1 ;;
      --owner-pid=*) owner="${arg#--owner-pid=}" ;;
      -*) _ts_die "start: unknown option $arg" ;;
      *) [[ -z "$dir" ]] || _ts_die "start: more than one DIR given ($dir, $arg)"; dir="$arg" ;;
    esac
  done
  [[ -n "$dir" ]] || _ts_die "start: DIR is required"
  ((mariadb || clickhouse || zookeeper || cluster)) || _ts_die "start: nothing to start"
  ((zookeeper && cluster)) && _ts_die "start: --cluster starts its own ZooKeeper; drop --zookeeper"
  _ts_check_flavor "$flavor"
  dir="$(_ts_abs_dir "$dir")"
  rm -f "$dir/stopped"
  local self
  self="$(readlink -f "${BASH_SOURCE[0]}")"

  # Refuse to start a server that runs already, before the trap below could stop it.
  if ((mariadb)) && _ts_is_ours "$(cat "$dir/mariadb/pid" 2>/dev/null)" "$(_ts_mariadb_mark "$dir")"; then
    _ts_die "mariadbd in $dir/mariadb is already running (pid $(cat "$dir/mariadb/pid"))"
  fi
  if ((clickhouse)) &&
    _ts_is_ours "$(cat "$dir/clickhouse/pid" 2>/dev/null)" "$dir/clickhouse/config.xml"; then
    _ts_die "clickhouse-server in $dir/clickhouse is already running (pid $(cat "$dir/clickhouse/pid"))"
  fi
  if ((zookeeper)) && _ts_is_ours "$(cat "$dir/zookeeper/pid" 2>/dev/null)" "$dir/zookeeper/zoo.cfg"; then
    _ts_die "zookeeper in $dir/zookeeper is already running (pid $(cat "$dir/zookeeper/pid"))"
  fi

  # A start that fails half way stops the servers it was asked to start (and only those).
  local started=() kind
  ((mariadb)) && started+=(mariadb)
  ((clickhouse)) && started+=(clickhouse)
  ((zookeeper)) && started+=(zookeeper)
  ((cluster)) && started+=(cluster)
  trap 'rc=$?; if ((rc)); then
          _ts_log "start failed (status $rc); stopping what it started in $dir"
          for kind in "${started[@]}"; do
            TESTSERVERS_IN_WATCHDOG=1 testservers_stop --only="$kind" "$dir" || true
          done
        fi' EXIT

  local t0=$SECONDS
  if ((mariadb)); then
    if [[ ! -e "$dir/mariadb" ]]; then
      local chroot
      chroot="$(_ts_chroot "$flavor")"
      if [[ -n "$chroot" ]]; then
        # The server only sees its chroot: its files live there, DIR/mariadb points at them.
        mkdir -p "$chroot/var/tmp"
        ln -s "$(mktemp -d "$chroot/var/tmp/rowbridge-testservers.XXXXXX")" "$dir/mariadb"
      else
        mkdir -p "$dir/mariadb"
      fi
      echo "$flavor" >"$dir/mariadb/flavor"
      echo "$chroot" >"$dir/mariadb/chroot"
    elif [[ "$(_ts_flavor "$dir")" != "$flavor" && " $* " == *" --source="* ]]; then
      _ts_die "$dir holds a $(_ts_flavor "$dir") server; it cannot restart as $flavor"
    fi
    if ((${#new_opts[@]})); then printf '%s\n' "${new_opts[@]}" >>"$dir/mariadb/extra_opts"; fi
    _ts_start_mariadb "$dir" ""
  fi
  if ((clickhouse)); then
    _ts_start_clickhouse "$dir" "$(cat "$dir/mariadb/port" 2>/dev/null || true)"
  fi
  if ((zookeeper)); then
    # shellcheck disable=SC2046  # one port a word
    _ts_start_zookeeper "$dir" $(cat "$dir/mariadb/port" "$dir/clickhouse/port" \
      "$dir/clickhouse/http_port" "$dir/clickhouse/tls_port" 2>/dev/null || true)
  fi
  if ((cluster)); then
    # shellcheck disable=SC2046  # one port a word
    _ts_start_cluster "$dir" $(cat "$dir/mariadb/port" "$dir/clickhouse/port" \
      "$dir/clickhouse/http_port" "$dir/clickhouse/tls_port" 2>/dev/null || true)
  fi
  _ts_write_env "$dir"
  if [[ -n "$owner" ]]; then _ts_start_watchdog "$dir" "$owner" "$self"; fi
  local what=()
  ((mariadb)) && what+=("$(_ts_flavor "$dir") on 127.0.0.1:$(cat "$dir/mariadb/port")")
  ((clickhouse)) && what+=("ClickHouse on 127.0.0.1:$(cat "$dir/clickhouse/port")")
  ((zookeeper)) && what+=("ZooKeeper on 127.0.0.1:$(cat "$dir/zookeeper/port")")
  ((cluster)) && what+=("a ClickHouse cluster on 127.0.0.1:$(cat "$dir"/cluster/node*/port | paste -sd,)")
  _ts_log "started ${what[*]} in $((SECONDS - t0))s (dir $dir)"
)

testservers_stop() (
  set -uo pipefail
  local kill_now=0 only="" remove=0 dir="" arg
  for arg in "$@"; do
    case "$arg" in
      --kill) kill_now=1 ;;
      --only=*) only="${arg#--only=}" ;;
      --remove) remove=1 ;;
      -*) _ts_die "stop: unknown option $arg" ;;
      *) dir="$arg" ;;
    esac
  done
  [[ -n "$dir" && -d "$dir" ]] || _ts_die "stop: no such DIR '$dir'"
  dir="$(cd "$dir" && pwd)"
  local rc=0
  if [[ -z "$only" || "$only" == clickhouse ]] && [[ -f "$dir/clickhouse/pid" ]]; then
    _ts_stop_pid clickhouse-server "$(cat "$dir/clickhouse/pid")" "$dir/clickhouse/config.xml" \
      "$kill_now" || rc=1
  fi
  if [[ -z "$only" || "$only" == cluster ]]; then
    _ts_stop_cluster "$dir" "$kill_now" "${_TS_CLUSTER_NODES[@]}" || rc=1
  elif [[ "$only" == cluster-node[1-3] ]]; then
    _ts_stop_cluster "$dir" "$kill_now" "${only#cluster-node}" || rc=1
  fi
  if [[ -z "$only" || "$only" == zookeeper || "$only" == cluster ]] && [[ -f "$dir/zookeeper/pid" ]]; then
    _ts_stop_pid zookeeper "$(cat "$dir/zookeeper/pid")" "$dir/zookeeper/zoo.cfg" "$kill_now" ||
      rc=1
  fi
  if [[ -z "$only" || "$only" == mariadb ]] && [[ -f "$dir/mariadb/pid" ]]; then
    _ts_stop_pid "the $(_ts_flavor "$dir") server" "$(cat "$dir/mariadb/pid")" \
      "$(_ts_mariadb_mark "$dir")" "$kill_now" || rc=1
  fi
  if [[ -z "$only" ]]; then
    touch "$dir/stopped"
    if [[ "${TESTSERVERS_IN_WATCHDOG:-0}" != 1 && -f "$dir/watchdog.pid" ]]; then
      local w
      w="$(cat "$dir/watchdog.pid")"
      _ts_is_ours "$w" bash && kill -TERM "$w" 2>/dev/null
      rm -f "$dir/watchdog.pid"
    fi
  fi
  if ((remove)) && ((rc == 0)) && [[ -z "$only" ]]; then
    local sock
    sock="$(cat "$dir/mariadb/socket" 2>/dev/null || true)"
    [[ "$(basename "$(dirname "$sock")")" == rbsock.* ]] && rm -rf "$(dirname "$sock")"
    # A chroot server's files are where DIR/mariadb points (nothing is ever mounted there).
    if [[ -L "$dir/mariadb" ]]; then
      local target
      target="$(readlink -f "$dir/mariadb")"
      [[ "$target" == */var/tmp/rowbridge-testservers.* ]] && rm -rf --one-file-system "$target"
    fi
    rm -rf "$dir"
  fi
  exit "$rc"
)

testservers_env() (
  set -euo pipefail
  [[ -f "${1:-}/env" ]] || _ts_die "env: no servers were started in '${1:-}'"
  cat "$1/env"
)

testservers_mariadb() (
  set -euo pipefail
  local dir="${1:?DIR}"
  shift
  _ts_mariadb_client "$(cd "$dir" && pwd)" "$@"
)

testservers_clickhouse() (
  set -euo pipefail
  local dir="${1:?DIR}"
  shift
  _ts_clickhouse_client "$(cd "$dir" && pwd)" "$@"
)

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  set -euo pipefail
  cmd="${1:-}"
  shift || true
  case "$cmd" in
    start) testservers_start "$@" ;;
    stop) testservers_stop "$@" ;;
    env) testservers_env "$@" ;;
    mariadb) testservers_mariadb "$@" ;;
    clickhouse) testservers_clickhouse "$@" ;;
    *)
      sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//' >&2
      exit 2
      ;;
  esac
fi
