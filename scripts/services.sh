#!/usr/bin/env bash
# Makes sure PostgreSQL and Redis listen on their default local ports
# (127.0.0.1:5432 and 127.0.0.1:6379), starting them when they are
# installed but stopped, and installing them from Debian's packages when
# they are missing. Safe to run again: it does nothing when both are up.
# With --browser it also installs the programs only tests drive: Debian's
# Chromium for the web client's browser tests and wrk for the load tool's
# cross-check (make test asks for them; make run does not).
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

# ensure_tool installs a Debian package that a test drives when its command
# is missing: Chromium (never a browser download) for the browser tests, wrk
# for the load tool's cross-check. Outside CI a failed install only makes
# those tests skip.
ensure_tool() {
	local cmd=$1 pkg=$2
	command -v "$cmd" >/dev/null && return 0
	echo "services: installing $pkg" >&2
	if ! (as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >/dev/null); then
		echo "services: could not install $pkg; the tests that need it will skip (or fail with CI=true)" >&2
		[ "${CI:-}" != true ]
	fi
}

ensure_postgres
ensure_redis
if [ "${1:-}" = --browser ]; then
	ensure_tool chromium chromium
	ensure_tool wrk wrk
fi
