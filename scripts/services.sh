#!/usr/bin/env bash
# Everything the test suite needs outside the project's own install, installed
# when missing and started when down: the test-only servers of test/package.json
# (npm, into test/node_modules), PostgreSQL (127.0.0.1:5432),
# MariaDB (127.0.0.1:3306), Redis (127.0.0.1:6379), promtool, chromium, and
# the command-line tools tests run. Idempotent; never stops a running server.
# Stops with a message naming what is missing when it cannot provide it.
set -uo pipefail

fail() {
  echo "services: $*" >&2
  exit 1
}

wait_for() { # name, command
  for _ in $(seq 1 60); do eval "$2" >/dev/null 2>&1 && return 0; sleep 0.5; done
  fail "$1 did not come up"
}

updated=0
install() { # packages...
  echo "services: installing $*"
  export DEBIAN_FRONTEND=noninteractive
  if [ "$updated" -eq 0 ]; then
    apt-get update -qq >/dev/null 2>&1 || true
    updated=1
  fi
  apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1
}

need() { # command, Debian package providing it
  command -v "$1" >/dev/null 2>&1 && return 0
  install "$2" || fail "$1 is missing and the Debian package $2 could not be installed (apt-get; run as root)"
  command -v "$1" >/dev/null 2>&1 || fail "$1 is still missing after installing $2"
}

# PostgreSQL: the server (its initdb and pg_ctl also start the private servers of
# test/drivers/postgres-auth.test.ts) and the psql client.
need psql postgresql-client
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  install postgresql || fail "the PostgreSQL server is missing and the Debian package postgresql could not be installed"
fi
if ! pg_isready -q -h 127.0.0.1 -p 5432; then
  echo "services: starting PostgreSQL"
  cluster="$(ls /etc/postgresql 2>/dev/null | sort -V | tail -1)"
  [ -n "$cluster" ] || fail "no PostgreSQL cluster under /etc/postgresql to start"
  pg_ctlcluster --skip-systemctl-redirect "$cluster" main start || true
  wait_for PostgreSQL "pg_isready -q -h 127.0.0.1 -p 5432"
fi

# MariaDB: the server (mariadb-install-db also makes the private server of
# test/drivers/mysql-sql-mode.test.ts) and the mysql client.
need mariadbd mariadb-server
need mysql mariadb-client
if ! mysqladmin -uroot -h127.0.0.1 --connect-timeout=2 ping >/dev/null 2>&1; then
  echo "services: starting MariaDB"
  start-stop-daemon --start --oknodo --background --exec "$(command -v mariadbd)" || true
  wait_for MariaDB "mysqladmin -uroot -h127.0.0.1 --connect-timeout=2 ping"
fi

# Redis: the shared cache and rate limits (test/cache, test/rate-limit).
need redis-server redis-server
need redis-cli redis-tools
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "services: starting Redis"
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null \
    || fail "redis-server would not start"
  wait_for Redis "redis-cli -h 127.0.0.1 -p 6379 ping"
fi

# promtool checks the /metrics output (test/observability/metrics.test.ts); Debian ships it in prometheus.
need promtool prometheus
# openssl makes the certificate of test/jwt/remote-jwks.test.ts; runuser runs initdb as postgres when root.
need openssl openssl
need runuser util-linux
# The getting-started guide's examples run as a reader would: curl and jq (test/docs/getting-started.test.ts).
need curl curl
need jq jq
# The console's browser tests drive Debian's chromium through playwright-core (test/console/).
need chromium chromium

# JDBC (test/drivers: the jdbc and h2 connection types): a JDK to compile and run
# the helper (origin/drivers/jdbc/helper), and the H2 and PostgreSQL driver jars.
need javac openjdk-17-jdk-headless
[ -f /usr/share/java/h2.jar ] || install libh2-java || fail "the H2 driver jar is missing and the Debian package libh2-java could not be installed"
[ -f /usr/share/java/postgresql.jar ] || install libpostgresql-jdbc-java \
  || fail "the PostgreSQL JDBC jar is missing and the Debian package libpostgresql-jdbc-java could not be installed"

# The stand-ins only the tests run (chdb under the ClickHouse front, the MongoDB
# emulator, s3rver), newman and axe-core: their own lockfile, never in the user's install.
# Reinstalled when the lockfile is newer than what npm last wrote there.
here="$(cd "$(dirname "$0")/.." && pwd)"
if [ ! -f "$here/test/node_modules/.package-lock.json" ] || [ "$here/test/package-lock.json" -nt "$here/test/node_modules/.package-lock.json" ]; then
  echo "services: installing the test-only servers (test/package.json)"
  npm ci --prefix "$here/test" --no-audit --no-fund >/dev/null || fail "npm ci in test/ failed (the test-only servers: chdb, the MongoDB emulator, s3rver, newman; axe-core)"
fi

psql -h 127.0.0.1 -U postgres -d postgres -tAc "select 1 from pg_database where datname='test'" | grep -q 1 \
  || psql -h 127.0.0.1 -U postgres -d postgres -c "create database test" >/dev/null \
  || fail "could not create the PostgreSQL database test"
mysql -uroot -h127.0.0.1 -e "create database if not exists test" >/dev/null || fail "could not create the MariaDB database test"
echo "services: PostgreSQL, MariaDB and Redis are up; the test-only servers, promtool, the clients, a JDK and the JDBC jars are installed"
