#!/usr/bin/env bash
# What the load tool costs and whether its figure agrees with wrk's: one
# server (production settings, the limiters on as make bench runs them),
# the read at 64 connections for 5 s measured in turn by bin/load, by an
# older build of the tool if given (say, built from an earlier commit), and
# by Debian's wrk (one user's token on every request), two rounds. Prints
# each one's req/s and CPU cores (the tool's from its report, wrk's from
# the shell's `time`).
#   bash bench/tool.sh [old-load-binary]
# Loopback only; about a minute.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
"$GO" build -o bin/server ./server
(cd bench && "$GO" build -o ../bin/load ./load) # the load tool is a module of its own
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 1; }
old=${1:-}
db="toolbench$$"
ns="toolbench$$"
dburl="postgres://postgres@127.0.0.1:5432/$db?sslmode=disable"
port=18412
url="http://127.0.0.1:$port"
secret=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
	psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
	redis-cli --scan --pattern "$ns:*" | xargs -r redis-cli del >/dev/null || true
}
trap cleanup EXIT
env -i PATH="$PATH" APP_ENV=production ACCESS_TOKEN_SECRET="$secret" PORT=$port DATABASE_URL="$dburl" \
	REDIS_URL=redis://127.0.0.1:6379/0 JOBS_NAMESPACE="$ns" RATE_LIMIT_MAX=1000000000 AUTH_RATE_LIMIT_MAX=1000000000 \
	LOG_LEVEL=warn SHUTDOWN_DRAIN=0s ACCESS_TOKEN_EXPIRES_IN=1h bin/server all >>"${TMPDIR:-/tmp}/toolbench-server.log" 2>&1 &
pid=$!
for _ in $(seq 150); do curl -sf "$url/ready" >/dev/null && break; sleep 0.2; done
token=$(curl -sf -X POST -H 'Content-Type: application/json' -H 'X-Client: app' "$url/v1/users/register" \
	-d '{"email":"wrk@bench.example.com","password":"Bench-Horse-42-battery"}' | sed -E 's/.*"token":"([^"]+)".*/\1/')
tool() { # label, binary
	echo "$1:"
	"$2" run -url "$url" -scenario read -c 64 -d 5s -pid "$pid" | head -2 | sed 's/^/    /'
}
for round in 1 2; do
	echo "round $round"
	tool "bin/load" bin/load
	[ -n "$old" ] && tool "$old" "$old"
	echo "wrk -t2 -c64 -d5s:"
	TIMEFORMAT='%U %S %R'
	{ time wrk -t2 -c64 -d5s -H "Authorization: jwt-user $token" "$url/v1/users/read" >"${TMPDIR:-/tmp}/toolbench-wrk.txt"; } 2>"${TMPDIR:-/tmp}/toolbench-time.txt"
	grep -E "Requests/sec|Non-2xx" "${TMPDIR:-/tmp}/toolbench-wrk.txt" | sed 's/^/    /'
	awk '{printf "    wrk CPU: %.2f cores\n", ($1 + $2) / $3}' "${TMPDIR:-/tmp}/toolbench-time.txt"
done
