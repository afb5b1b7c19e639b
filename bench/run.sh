#!/usr/bin/env bash
# make bench: builds the server and the load tool (bench/load, a module of
# its own), then runs every scenario against a fresh server on a fresh
# database and writes BENCHMARKS.md.
# Extra arguments go to `load bench` (try: bin/load bench -h), for example
#   bash bench/run.sh -d 3s -plan 'read:64 sockets:500'
# (-mcp-slices 0 leaves out the read's MCP cross-check: the same read as an
# MCP tool call, on a second server with the OAuth provider on).
# Debian's wrk (installed here when missing) measures the read and the
# baselines; vegeta, built into the tool, the open loop. The read at 64 is
# followed by its cross-checks: this tool's own client against wrk, the
# server against a second one with the global limiter off, against the
# session baseline, and HS256 against EdDSA tokens on one server, each in
# alternating slices, and the open loop. Leave them out with
# -wrk-slices 0 -limiter-slices 0 -session-slices 0 -alg-slices 0 -open 0.
# The plan's last refresh step is followed by the server's refresh beside
# the rotate baseline (the same rotation, cookie and headers by hand) at 8 and 32 virtual users
# in alternating slices (-rotate-c, -rotate-slices; 0 leaves it out):
#   bash bench/run.sh -d 2s -plan 'refresh:8 refresh:32' -check-c 16 -wrk-slices 0
# The token endpoint's scenarios (oauthcode, oauthrefresh) run on a second
# server with the OAuth provider on, followed by the read on both servers
# in alternating slices (-provider-slices 0 leaves it out); for example
#   bash bench/run.sh -d 3s -plan 'oauthcode:16 oauthrefresh:16' -check-c 16
# Before each step and each comparison the tool runs ANALYZE on its database,
# as autovacuum would have by then, so that the server and the baselines
# plan their statements from the same statistics.
# The whole run is bounded: `load bench` skips the steps still to run 11
# minutes (-deadline) after this script started, and this script interrupts
# it at 12 minutes; either way the database and Redis keys are removed.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
GO=${GO:-go}
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
# Debian's wrk measures the read and the baselines (load bench -wrk).
if ! command -v wrk >/dev/null; then
	echo "make bench: installing wrk" >&2
	if ! (as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null); then
		echo "make bench: could not install wrk, which measures the read and the baselines (apt-get install wrk)" >&2
		exit 1
	fi
fi
"$GO" build -o bin/server ./server
(cd bench && "$GO" build -o ../bin/load ./load) # the load tool is a module of its own
mkdir -p bench/out
# What is left of the 12 minutes after the builds; load bench itself skips
# the steps left 11 minutes after $started and then cleans up.
left=$((720 - ($(date +%s) - started)))
status=0
timeout --signal=INT --kill-after=20s "$left" bin/load bench -server bin/server -out BENCHMARKS.md \
	-results bench/out/results.jsonl -logs bench/out -started "$started" "$@" || status=$?
echo "make bench: $(($(date +%s) - started)) s of wall time"
exit "$status"
