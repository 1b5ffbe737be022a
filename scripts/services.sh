#!/usr/bin/env bash
# Starts the local servers the test suite talks to, if they are not already up:
# PostgreSQL (127.0.0.1:5432) and MariaDB (127.0.0.1:3306). Idempotent.
set -uo pipefail

wait_for() { # name, command
  for _ in $(seq 1 60); do eval "$2" >/dev/null 2>&1 && return 0; sleep 0.5; done
  echo "services: $1 did not come up" >&2
  return 1
}

if ! pg_isready -q -h 127.0.0.1 -p 5432; then
  echo "services: starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
  wait_for PostgreSQL "pg_isready -q -h 127.0.0.1 -p 5432" || exit 1
fi

if ! mysqladmin -uroot -h127.0.0.1 --connect-timeout=2 ping >/dev/null 2>&1; then
  echo "services: starting MariaDB"
  start-stop-daemon --start --oknodo --background --exec "$(command -v mariadbd)" || true
  wait_for MariaDB "mysqladmin -uroot -h127.0.0.1 --connect-timeout=2 ping" || exit 1
fi

# promtool checks the /metrics output in the tests; Debian ships it in the prometheus package.
if ! command -v promtool >/dev/null 2>&1; then
  echo "services: installing promtool (Debian prometheus)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends prometheus >/dev/null 2>&1 \
    || { apt-get update -qq && apt-get install -y --no-install-recommends prometheus >/dev/null; } \
    || echo "services: promtool could not be installed" >&2
fi

psql -h 127.0.0.1 -U postgres -d postgres -tAc "select 1 from pg_database where datname='test'" | grep -q 1 \
  || psql -h 127.0.0.1 -U postgres -d postgres -c "create database test" >/dev/null
mysql -uroot -h127.0.0.1 -e "create database if not exists test" >/dev/null
echo "services: PostgreSQL and MariaDB are up"
