# GPUnex: the README's two commands are `make run` and `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := build

GO        ?= go
NPM       ?= npm
BIN       := bin
FRONTEND  := frontend
GO_FILES  := $(shell find . -name '*.go' -not -path './frontend/node_modules/*' 2>/dev/null)
SPA_FILES := $(shell find $(FRONTEND)/src $(FRONTEND)/index.html $(FRONTEND)/vite.config.ts $(FRONTEND)/package.json schema -type f 2>/dev/null)

# The tests run every backend: the local PostgreSQL and Redis by default
# (override to point elsewhere; .ci/run sets a fresh database).
export GPUNEX_TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/test?sslmode=disable
export GPUNEX_TEST_REDIS_URL    ?= redis://127.0.0.1:6379/0
# go-nvml (the agent) is cgo; its header marks old NVML calls deprecated.
export CGO_CFLAGS ?= -O2 -g -Wno-deprecated-declarations

.PHONY: build run test test-go test-spa e2e generate bench deps clean lint

## deps: install the SPA's npm packages from the lock file
deps: $(FRONTEND)/node_modules/.package-lock.json
$(FRONTEND)/node_modules/.package-lock.json: $(FRONTEND)/package-lock.json
	cd $(FRONTEND) && $(NPM) ci --no-audit --no-fund
	@touch $@

## spa: build the SPA into frontend/dist (embedded by the Go build)
$(FRONTEND)/dist/index.html: $(FRONTEND)/node_modules/.package-lock.json $(SPA_FILES)
	cd $(FRONTEND) && $(NPM) run build

## build: the SPA, then bin/gpunex (SPA embedded) and bin/gpunex-agent
build: $(FRONTEND)/dist/index.html
	$(GO) build -o $(BIN)/gpunex ./cmd/gpunex
	$(GO) build -o $(BIN)/gpunex-agent ./cmd/gpunex-agent

## run: the platform on the embedded default (SQLite in ./data, in-process events) with the demo world
run: build
	$(BIN)/gpunex serve --demo

## generate: regenerate gqlgen's code and the SPA's typed operations
generate: deps
	$(GO) tool gqlgen generate
	cd $(FRONTEND) && $(NPM) run codegen

## test: the whole suite (Go on both backends, SPA checks, Chromium end-to-end, GraphQL-over-HTTP audit)
test: test-go test-spa e2e

test-go:
	$(GO) vet ./...
	$(GO) test -count=1 ./...

test-spa: deps
	cd $(FRONTEND) && $(NPM) run check:i18n && $(NPM) run check:codegen && $(NPM) run typecheck

e2e: build
	cd $(FRONTEND) && GPUNEX_BIN=$(CURDIR)/$(BIN)/gpunex GPUNEX_ARTIFACTS=$(CURDIR)/artifacts $(NPM) run e2e
	cd $(FRONTEND) && GPUNEX_BIN=$(CURDIR)/$(BIN)/gpunex $(NPM) run audit

## bench: the full stack against bare net/http handlers in the same run, as ratios
bench:
	{ $(GO) test -run '^$$' -bench . -benchtime 3s -benchmem ./internal/platform/ && \
	  $(GO) test -run '^$$' -bench AgentResources -benchtime 1x ./internal/e2e/; } | tee /dev/stderr | \
	  awk '{ for (i = 2; i <= NF; i++) m[$$i] = $$(i-1) } \
	    /x_bare/ && !/throughput/ { printf "\n%s: %s x the time of the bare handler per request", $$1, m["x_bare"] } \
	    /throughput_x_bare/ && /generic/ { printf "\n%s: throughput %s x bare, p99 %s x bare (gqlgen generic executor, for comparison)", $$1, m["throughput_x_bare"], m["p99_x_bare"]; next } \
	    /throughput_x_bare/ { printf "\n%s: throughput %s x bare (target >= 0.8), p99 %s x bare (target <= 1.3), %s SQL writes and %s publishes per heartbeat (target <= 0.02)", \
	      $$1, m["throughput_x_bare"], m["p99_x_bare"], m["sql_writes/hb"], m["publishes/hb"] } \
	    /rss_MiB/ { printf "\n%s: agent RSS %s MiB (target < 30), peak %s MiB, CPU %s%% of a core", $$1, m["rss_MiB"], m["peak_rss_MiB"], m["cpu_%_of_a_core"] } \
	    END { print "" }'

clean:
	rm -rf $(BIN) $(FRONTEND)/dist/assets $(FRONTEND)/dist/index.html artifacts
