#!/usr/bin/env bash
# What the load tool's own client costs and whether its figures agree with
# wrk's and with an older build's: one server (production settings, the
# limiters on as make bench runs them), measured in turn, two rounds:
#   - the read at 64 connections for 5 s by wrk (bin/load run, as make bench
#     measures the read), by this tool's own client (-client go, the one the
#     refresh, login, publish and mixed scenarios go through) and, if given,
#     by an older build of the tool (say, built from an earlier commit);
#   - the refresh at 16 for 5 s by bin/load and by the older build.
# Prints each one's figure and CPU cores (from the tool's report).
#   bash bench/tool.sh [old-load-binary]
# Loopback only; about two minutes.
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
datakey=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
	psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
	redis-cli --scan --pattern "$ns:*" | xargs -r redis-cli del >/dev/null || true
}
trap cleanup EXIT
env -i PATH="$PATH" APP_ENV=production ACCESS_TOKEN_SECRET="$secret" DATA_ENCRYPTION_KEY="$datakey" PORT=$port DATABASE_URL="$dburl" \
	REDIS_URL=redis://127.0.0.1:6379/0 JOBS_NAMESPACE="$ns" RATE_LIMIT_MAX=1000000000 AUTH_RATE_LIMIT_MAX=1000000000 \
	LOG_LEVEL=warn SHUTDOWN_DRAIN=0s ACCESS_TOKEN_EXPIRES_IN=1h bin/server all >>"${TMPDIR:-/tmp}/toolbench-server.log" 2>&1 &
pid=$!
for _ in $(seq 150); do curl -sf "$url/ready" >/dev/null && break; sleep 0.2; done
tool() { # label, binary, arguments of run
	echo "$1:"
	"${@:2}" -url "$url" -d 5s -pid "$pid" | head -2 | sed 's/^/    /'
}
for round in 1 2; do
	echo "round $round"
	tool "read by wrk (bin/load run)" bin/load run -scenario read -c 64
	tool "read by this tool's client (bin/load run -client go)" bin/load run -scenario read -c 64 -client go
	if [ -n "$old" ]; then tool "read by $old" "$old" run -scenario read -c 64; fi
	tool "refresh by bin/load" bin/load run -scenario refresh -c 16
	if [ -n "$old" ]; then tool "refresh by $old" "$old" run -scenario refresh -c 16; fi
done
