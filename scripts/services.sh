#!/usr/bin/env bash
# Makes sure PostgreSQL and Redis listen on their default local ports
# (127.0.0.1:5432 and 127.0.0.1:6379), starting them when they are
# installed but stopped, and installing them from Debian's packages when
# they are missing. Safe to run again: it does nothing when both are up.
# With --browser it also installs Debian's Chromium, which only the web
# client's browser tests drive (make test asks for it; make run does not).
set -euo pipefail

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_for() {
	local port=$1 name=$2
	for _ in $(seq 1 60); do
		listening "$port" && return 0
		sleep 0.5
	done
	echo "services: $name did not come up on 127.0.0.1:$port" >&2
	return 1
}

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

ensure_postgres() {
	listening 5432 && return 0
	if ! ls /etc/postgresql/*/main >/dev/null 2>&1; then
		echo "services: installing PostgreSQL" >&2
		as_root apt-get update -qq
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
		local version hba
		version=$(ls /etc/postgresql | sort -V | tail -n 1)
		hba=/etc/postgresql/$version/main/pg_hba.conf
		# Local development only: trust connections from this machine.
		as_root sed -i -E 's/^(host\s+all\s+all\s+(127\.0\.0\.1\/32|::1\/128)\s+)\S+/\1trust/; s/^(local\s+all\s+(postgres|all)\s+)\S+/\1trust/' "$hba"
	fi
	echo "services: starting PostgreSQL" >&2
	as_root pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -n 1)" main start || true
	wait_for 5432 PostgreSQL
}

ensure_redis() {
	listening 6379 && return 0
	if ! command -v redis-server >/dev/null; then
		echo "services: installing Redis" >&2
		as_root apt-get update -qq
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
	fi
	echo "services: starting Redis" >&2
	redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null
	wait_for 6379 Redis
}

# Chromium from Debian's packages (never a browser download) for the browser
# tests; outside CI a failed install only makes them skip.
ensure_chromium() {
	command -v chromium >/dev/null && return 0
	echo "services: installing Chromium" >&2
	if ! (as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null); then
		echo "services: could not install Chromium; the browser tests will skip (or fail with CI=true)" >&2
		[ "${CI:-}" != true ]
	fi
}

ensure_postgres
ensure_redis
if [ "${1:-}" = --browser ]; then
	ensure_chromium
fi
