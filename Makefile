# actionkit: make run starts the server, make test runs every test.
GO ?= go
FUZZTIME ?= 15s

.PHONY: run test build services vet fuzz clean

## run: start PostgreSQL and Redis if needed, then the server (all roles)
run: services
	$(GO) run ./server

## test: go vet, then every test with the race detector, then a short fuzz run
test: services
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...
	$(GO) test -run '^$$' -fuzz FuzzPipeline -fuzztime $(FUZZTIME) ./framework

## build: the server as one binary
build:
	$(GO) build -o bin/server ./server

services:
	@bash scripts/services.sh

clean:
	rm -rf bin
