# actionkit: make run starts the server, make test runs every test, make check
# the fast loop (vet and every package but ./server).
GO ?= go
FUZZTIME ?= 15s

.PHONY: run test check build services browser vet fuzz clean bench

## run: start PostgreSQL and Redis if needed, then the server (all roles)
run: services
	$(GO) run ./server

## test: go vet, then every test with the race detector (the server package,
## the longest, first), then the load tool's (a module of its own, bench/),
## then a short fuzz run
test: services browser
	$(GO) vet -race ./...
	cd bench && $(GO) vet ./...
	$(GO) test -race -count=1 -timeout 30m ./server ./...
	cd bench && $(GO) test -race -count=1 -timeout 10m ./...
	$(GO) test -run '^$$' -fuzz FuzzPipeline -fuzztime $(FUZZTIME) -fuzzminimizetime 1s ./framework/fuzz

## check: the loop while working: go vet, then every package's tests except
## ./server (whose end-to-end tests take minutes), about 50 s on two cores with
## a warm build cache. The tests wait on PostgreSQL, Redis and node more than
## they compute, so four packages run at once and six tests of a package;
## -short runs the race tests' fewer rounds. The race detector is left to
## make test (it makes the loop about 40% slower); RACE=-race adds it here.
RACE ?=
check: services
	$(GO) vet ./...
	GORACE=atexit_sleep_ms=0 $(GO) test $(RACE) -count=1 -short -p 4 -parallel 6 $$($(GO) list ./... | grep -v '/server$$')

## build: the server as one binary
build:
	$(GO) build -o bin/server ./server

## bench: build the server and the load tool (bench/load), measure every scenario
## against a fresh server (limiters on) and database beside the baselines (the read
## and the baselines by wrk), cross-check the read with the tool's own client, an
## open loop (vegeta) and the limiter off, write BENCHMARKS.md (< 12 min)
bench: services
	@GO=$(GO) bash bench/run.sh

services:
	@bash scripts/services.sh

## browser: the programs only tests drive, Debian's Chromium and wrk (only make test needs them)
browser:
	@bash scripts/services.sh --browser

clean:
	rm -rf bin
