# GPUnex: the README's two commands are `make run` and `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := build

GO        ?= go
NPM       ?= npm
BIN       := bin
FRONTEND  := frontend
GO_FILES  := $(shell find . -name '*.go' -not -path './frontend/node_modules/*' 2>/dev/null)
SPA_FILES := $(shell find $(FRONTEND)/src $(FRONTEND)/index.html $(FRONTEND)/graphiql.html $(FRONTEND)/vite.config.ts $(FRONTEND)/package.json schema -type f 2>/dev/null)

# The Node.js the SPA's tools need (frontend/package.json "engines": Vite 8
# and rolldown need 20.19 on Node 20, Inquirer 22.13 on Node 22); every
# target that runs npm checks it first (node-version), and says which it
# found.
NODE_NEEDED := ^20.19.0 || ^22.13.0 || >=24.0.0

# The tests run every backend. scripts/test-env.sh (run first by make test
# and make bench) installs the Debian packages the tests need when absent,
# finds or starts the local PostgreSQL and Redis and makes a fresh database,
# and writes GPUNEX_TEST_DATABASE_URL and GPUNEX_TEST_REDIS_URL to this file;
# set them yourself to use other servers (the script then keeps them).
TEST_ENV  := $(BIN)/test.env
BENCH_ENV := $(BIN)/bench.env

# golangci-lint (.golangci.yml), pinned, built from the Go module proxy when
# missing, into a folder per version under the user's cache: every clone of
# the machine (CI's fresh one included) reuses it instead of building it again.
GOLANGCI_LINT_VERSION := 2.15.0
GOLANGCI_LINT_DIR     ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/gpunex/golangci-lint-$(GOLANGCI_LINT_VERSION)
GOLANGCI_LINT         := $(GOLANGCI_LINT_DIR)/golangci-lint
# go-nvml (the agent) is cgo; its header marks old NVML calls deprecated.
export CGO_CFLAGS ?= -O2 -g -Wno-deprecated-declarations

.PHONY: node-version build image run test test-env test-all test-setup test-go test-bench fuzz test-unit test-spa e2e static lint lint-tool generate pgo bench soak gpu-bench deps clean

## node-version: fail early, naming both versions, when Node.js is missing or older than the SPA needs
node-version:
	@found=$$(node --version 2>/dev/null) || { echo "make: Node.js not found; the SPA needs Node.js $(NODE_NEEDED) with npm (frontend/package.json engines)" >&2; exit 1; }; \
	v=$${found#v}; major=$${v%%.*}; minor=$${v#*.}; minor=$${minor%%.*}; \
	case $$major in 20) ok=$$((minor >= 19));; 22) ok=$$((minor >= 13));; *) ok=$$((major >= 24));; esac; \
	if [ "$$ok" != 1 ]; then echo "make: found Node.js $$found; the SPA needs Node.js $(NODE_NEEDED) (frontend/package.json engines)" >&2; exit 1; fi

## deps: install the SPA's npm packages from the lock file
deps: $(FRONTEND)/node_modules/.package-lock.json
$(FRONTEND)/node_modules/.package-lock.json: $(FRONTEND)/package-lock.json | node-version
	cd $(FRONTEND) && $(NPM) ci --no-audit --no-fund
	@touch $@

## spa: build the SPA into frontend/dist and GraphiQL into frontend/dist/graphiql (both embedded by the Go build)
$(FRONTEND)/dist/index.html: $(FRONTEND)/node_modules/.package-lock.json $(SPA_FILES) | node-version
	cd $(FRONTEND) && $(NPM) run build

## build: the SPA, then bin/gpunex (SPA embedded) and bin/gpunex-agent
build: $(FRONTEND)/dist/index.html
	$(GO) build -o $(BIN)/gpunex ./cmd/gpunex
	$(GO) build -o $(BIN)/gpunex-agent ./cmd/gpunex-agent

## image: the server's container image gpunex/server:dev (deploy/server/Dockerfile,
## FROM scratch) from a static build of this tree; deploy/compose.yaml runs it
image: $(FRONTEND)/dist/index.html
	rm -rf $(BIN)/image && mkdir -p $(BIN)/image
	CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN)/image/gpunex ./cmd/gpunex
	cp /etc/ssl/certs/ca-certificates.crt $(BIN)/image/
	docker build -f deploy/server/Dockerfile -t gpunex/server:dev $(BIN)/image

## run: the platform on the embedded default (SQLite in ./data, in-process events) with the demo world
run: build
	$(BIN)/gpunex serve --demo

## generate: regenerate gqlgen's code and the SPA's typed operations
generate: deps
	$(GO) tool gqlgen generate
	cd $(FRONTEND) && $(NPM) run codegen

## test: the set-up (scripts/test-env.sh, the pinned linter, the SPA's npm packages,
## side by side: the first two wait mostly on the network, the linter's build on the
## CPU), then the whole suite: the set-up's own test, the linter, Go on both backends
## (the static build among them) with every benchmark once, Vitest, SPA checks, Chromium end-to-end,
## GraphQL-over-HTTP audit. Every check runs even after one fails; make test fails
## if any did.
## The tests build without profile-guided optimisation (-pgo=off): it changes
## how the server is compiled, not what it does, and compiling the whole tree a
## second time with cmd/gpunex/default.pgo would add minutes to every CI run
## for nothing the tests check (test-setup checks the profile reads).
test:
	@mkdir -p $(BIN)
	$(MAKE) --no-print-directory -j3 test-env lint-tool deps
	. ./$(TEST_ENV) && GOFLAGS="$${GOFLAGS:+$$GOFLAGS }-pgo=off" $(MAKE) --no-print-directory --keep-going test-all

## test-env: scripts/test-env.sh alone (Debian packages, PostgreSQL, Redis, Docker, a
## fresh test database), writing bin/test.env
test-env:
	@mkdir -p $(BIN)
	bash scripts/test-env.sh $(TEST_ENV)

test-all: test-setup lint test-go test-unit test-spa e2e

## test-setup: scripts/test-env.sh against stub commands (packages absent or present,
## services down or up); shellcheck on the CI and set-up scripts
test-setup:
	bash scripts/test-env.test.sh
	shellcheck .ci/run scripts/*.sh
	$(GO) tool pprof -top -nodecount 1 $(PGO_PROFILE) >/dev/null

## static: gpunex builds without cgo, as a static binary
static:
	CGO_ENABLED=0 $(GO) build -o /dev/null ./cmd/gpunex

## test-go: every Go package, in parallel by package (go vet's checks run in lint),
## and every benchmark once at its smallest size (GPUNEX_BENCH=smallest, package
## internal/benchtest: a few thousand rows, a handful of dashboards, both databases
## where it has both; no target asserted) on the same test binaries, so a benchmark
## a change breaks (it does not build, panics, its SQL fails) fails make test;
## make bench measures them at full size.
## scripts/test-go.sh runs the packages with a benchmark each in a go test of its
## own beside one go test of the others: given -bench, go test runs its packages one
## after the other (one go test with -bench for all ran the 50 packages in turn).
## Without GPUNEX_TEST_DATABASE_URL / GPUNEX_TEST_REDIS_URL (make test sets them;
## or `. bin/test.env` after one make test) the PostgreSQL and Redis cases skip.
## -timeout is a hang's backstop, not a speed target: go test's 10-minute default
## is a wall-clock deadline the end-to-end package (its soak runs a minute of
## load through drills) can pass on a busy 2-core machine with nothing wrong.
test-go:
	bash scripts/test-go.sh -timeout 45m

## test-bench: only the benchmarks, once each at their smallest size, in the
## packages that have one (test-go runs them too, after the tests)
BENCH_PKGS = $(sort $(dir $(shell grep -rl --include='*_test.go' --exclude-dir=node_modules --exclude-dir=.git '^func Benchmark' .)))
test-bench:
	GPUNEX_BENCH=smallest $(GO) test -count=1 -run '^$$' -bench . -benchtime 1x $(BENCH_PKGS)

## fuzz: each fuzz target further than its corpus, one go test -fuzz per target
## (go test fuzzes one at a time): a count of executions each, because a
## -fuzztime in seconds can fail at its deadline with no input at fault
## ("context deadline exceeded", go.dev/issue/75804, fixed in Go 1.27). Not part
## of make test: test-go already runs every target's seeds and committed corpus
## (testdata/fuzz/) as unit tests, and a fuzzing binary is the whole dependency
## tree compiled again with coverage instrumentation (3.5 of its 4 minutes on the
## 2-core CI machine, for a few seconds of fuzzing). Longer: make fuzz FUZZTIME=5m.
## A failure writes its input under the package's testdata/fuzz/<target>/: commit
## it, and test-go runs it from then on.
FUZZTIME ?=
FUZZ_TARGETS := \
	./internal/api:FuzzPreparedVariables:5000 \
	./internal/api:FuzzRequestDecoder:20000 \
	./internal/api:FuzzOperationLimits:20000 \
	./models:FuzzUSDC:200000 \
	./internal/onboarding:FuzzAvailability:50000 \
	./internal/fleet:FuzzHeartbeatTelemetry:20000
fuzz:
	@status=0; for t in $(FUZZ_TARGETS); do \
	  pkg=$${t%%:*}; rest=$${t#*:}; name=$${rest%%:*}; budget="$(FUZZTIME)"; \
	  [ -n "$$budget" ] || budget=$${rest#*:}x; \
	  echo "==> $$name ($$pkg, $$budget)"; \
	  $(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime "$$budget" "$$pkg" || status=1; \
	done; exit $$status

## test-unit: the SPA's unit tests (Vitest)
test-unit: deps node-version
	cd $(FRONTEND) && $(NPM) run test:unit

test-spa: deps node-version
	cd $(FRONTEND) && $(NPM) run check:i18n && $(NPM) run check:codegen && $(NPM) run typecheck

## e2e: Chromium end to end on bin/gpunex, with bin/solana-double (a test-only
## Solana node, internal/e2e/cmd/solana-double) for the deposit test
e2e: node-version build
	$(GO) build -o $(BIN)/solana-double ./internal/e2e/cmd/solana-double
	cd $(FRONTEND) && GPUNEX_BIN=$(CURDIR)/$(BIN)/gpunex GPUNEX_SOLANA_DOUBLE_BIN=$(CURDIR)/$(BIN)/solana-double GPUNEX_ARTIFACTS=$(CURDIR)/artifacts $(NPM) run e2e
	cd $(FRONTEND) && GPUNEX_BIN=$(CURDIR)/$(BIN)/gpunex $(NPM) run audit

## gpu-bench: on a host with an NVIDIA GPU and PyTorch, the agent's GPU benchmark
## against PyTorch on the same GPU, as ratios against the targets (not in make test)
gpu-bench: build
	bash scripts/gpu-bench-compare.sh

## pgo: cmd/gpunex/default.pgo, the CPU profile go build optimises the server with
## (profile-guided optimisation), from the platform's request mix through the whole
## stack (scripts/pgo-profile.sh); run it again after a large change of the request path
PGO_PROFILE := cmd/gpunex/default.pgo
pgo:
	@mkdir -p $(BIN)
	bash scripts/test-env.sh --services-only $(BENCH_ENV)
	. ./$(BENCH_ENV) && bash scripts/pgo-profile.sh $(PGO_PROFILE)

## bench: the full stack against bare net/http handlers in the same run, as ratios;
## three runs of each platform benchmark (the machines are noisy). Every command
## runs even after one fails; scripts/benchsummary.awk then prints a line per
## benchmark with its figures and targets, FAILED and why for each that failed,
## and make bench fails if any did. The benchmarks are compiled with the server's
## profile (-pgo=$(PGO_PROFILE)): they measure the server as go build ships it.
BENCH_RUNS := \
	'-bench . -benchtime 3s -count 3 -benchmem ./internal/platform/' \
	'-bench ConcurrentSignInMemory -benchtime 1x ./internal/auth/' \
	'-bench Market -benchtime 1x -timeout 30m ./internal/market/' \
	'-bench Billing -benchtime 1x ./internal/billing/' \
	'-bench Reliability -benchtime 1x ./internal/reliability/' \
	'-bench AgentResources -benchtime 1x ./internal/e2e/'
bench:
	@mkdir -p $(BIN)
	bash scripts/test-env.sh --services-only $(BENCH_ENV)
	set -o pipefail; . ./$(BENCH_ENV) && { status=0; for run in $(BENCH_RUNS); do \
	    echo "==> go test -run '^$$' $$run"; \
	    $(GO) test -pgo=$(CURDIR)/$(PGO_PROFILE) -run '^$$' $$run 2>&1 || status=1; \
	  done; exit $$status; } | tee /dev/stderr | awk -f scripts/benchsummary.awk

## soak: the fleet soak at full size (internal/e2e's soak test with GPUNEX_SOAK=full:
## 10,000 simulated GPUs, 1,000 dashboards, 100 customers, two replicas on PostgreSQL
## and Redis, ten minutes through every drill), its report in artifacts/soak-report.json;
## GPUNEX_SOAK_AGENTS, _GPUS, _DASHBOARDS, _CUSTOMERS and _MINUTES scale it (not in make test)
soak:
	@mkdir -p $(BIN) artifacts
	bash scripts/test-env.sh --services-only $(BENCH_ENV)
	. ./$(BENCH_ENV) && GPUNEX_SOAK=full GPUNEX_SOAK_REPORT=$(CURDIR)/artifacts/soak-report.json \
	  $(GO) test -count=1 -timeout 60m -run TestTheFleetSoaksThroughFaultsAndTheMoneyComesOutRight -v ./internal/e2e/

## lint: golangci-lint with .golangci.yml (goimports, depguard's layering rules,
## errcheck, staticcheck, govet, unused, ineffassign); a second checkout's make test
## on the same machine waits for the first's lint instead of failing on its lock
lint: lint-tool
	$(GOLANGCI_LINT) run --allow-serial-runners ./...

lint-tool:
	@if [ "$$($(GOLANGCI_LINT) version --short 2>/dev/null)" = "$(GOLANGCI_LINT_VERSION)" ]; then \
	  echo "==> golangci-lint $(GOLANGCI_LINT_VERSION): found in $(GOLANGCI_LINT_DIR)"; \
	else \
	  echo "==> golangci-lint $(GOLANGCI_LINT_VERSION): go install from the Go module proxy into $(GOLANGCI_LINT_DIR) (minutes, once per machine)"; \
	  GOBIN=$(GOLANGCI_LINT_DIR) $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v$(GOLANGCI_LINT_VERSION); \
	fi

clean:
	rm -rf $(BIN) $(FRONTEND)/dist/assets $(FRONTEND)/dist/index.html $(FRONTEND)/dist/graphiql artifacts
