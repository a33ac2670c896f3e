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

## bench: the full stack against bare net/http handlers in the same run, as ratios;
## three runs of each (the machines are noisy), summed up by scripts/benchsummary.awk
bench:
	{ $(GO) test -run '^$$' -bench . -benchtime 3s -count 3 -benchmem ./internal/platform/ && \
	  $(GO) test -run '^$$' -bench AgentResources -benchtime 1x ./internal/e2e/; } | tee /dev/stderr | \
	  awk -f scripts/benchsummary.awk

clean:
	rm -rf $(BIN) $(FRONTEND)/dist/assets $(FRONTEND)/dist/index.html artifacts
