#!/usr/bin/env bash
# The global limiter's cost on the read action, with the load tool (which
# reads with wrk): one server (production settings) restarted with the
# limiter off and on, the read scenario run against each in turn, twice, in
# one script run.
#   bash bench/limiter.sh [old-server-binary]
# With an old server binary (say, built from main), it is measured with its
# limiter on in the same rounds. Loopback only; about 2 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
"$GO" build -o bin/server ./server
(cd bench && "$GO" build -o ../bin/load ./load) # the load tool is a module of its own
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 1; }
old=${1:-}
db="limiterbench$$"
ns="limiterbench$$"
dburl="postgres://postgres@127.0.0.1:5432/$db?sslmode=disable"
port=18411
secret=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
datakey=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
	psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
	redis-cli --scan --pattern "$ns:*" | xargs -r redis-cli del >/dev/null || true
}
trap cleanup EXIT
start() { # binary, RATE_LIMIT_MAX
	env -i PATH="$PATH" APP_ENV=production ACCESS_TOKEN_SECRET="$secret" DATA_ENCRYPTION_KEY="$datakey" PORT=$port DATABASE_URL="$dburl" \
		REDIS_URL=redis://127.0.0.1:6379/0 JOBS_NAMESPACE="$ns" RATE_LIMIT_MAX="$2" AUTH_RATE_LIMIT_MAX=0 \
		LOG_LEVEL=warn SHUTDOWN_DRAIN=0s ACCESS_TOKEN_EXPIRES_IN=1h "$1" api >>"${TMPDIR:-/tmp}/limiterbench-server.log" 2>&1 &
	pid=$!
	for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && return; sleep 0.2; done
	echo "server did not start" >&2; exit 1
}
stop() { kill "$pid"; wait "$pid" || true; pid=; }
measure() { # label, binary, RATE_LIMIT_MAX; sets rps
	start "$2" "$3"
	out=$(bin/load run -url "http://127.0.0.1:$port" -scenario read -c 64 -d 10s)
	stop
	echo "$1:"
	echo "$out" | sed 's/^/    /'
	rps=$(echo "$out" | awk '{for (i = 2; i <= NF; i++) if ($i == "req/s") {print $(i-1); exit}}')
}
for round in 1 2; do
	echo "round $round"
	measure "limiter off (RATE_LIMIT_MAX=0)" bin/server 0
	off=$rps
	measure "limiter on (RATE_LIMIT_MAX=1000000000)" bin/server 1000000000
	echo "  on/off = $(awk -v a="$rps" -v b="$off" 'BEGIN {printf "%.2f", a / b}')"
	if [ -n "$old" ]; then
		measure "old server, limiter on" "$old" 1000000000
		echo "  old on/off = $(awk -v a="$rps" -v b="$off" 'BEGIN {printf "%.2f", a / b}')"
	fi
done
