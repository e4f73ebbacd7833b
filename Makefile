# The two commands a newcomer needs: `make run` and `make test`. See README.md.
SHELL := /bin/bash
.DEFAULT_GOAL := help

.PHONY: help deps deps-browser tracker dashboard generate build run stop clean services-up services-down migrate nats-setup check typecheck lint format test test-unit test-integration bench cluster cluster-stop

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-18s %s\n", $$1, $$2}'

deps: ## Install what is missing: nats-server, PostgreSQL 15 (Debian packages), npm packages (npm ci)
	@bash infra/local/install-deps.sh

deps-browser: ## Also Debian's chromium, for the tracker's browser tests (make test does it)
	@bash infra/local/install-deps.sh --browser

# The tracker is rebuilt only when one of its sources is newer than its build.
TRACKER_INPUTS := $(shell find tracker/src tracker/shopify -type f 2>/dev/null) tracker/tsconfig.json \
	contracts/src/tracker.ts scripts/build-tracker.ts package.json

tracker/dist/manifest.json: $(TRACKER_INPUTS)
	@node --import tsx scripts/build-tracker.ts

tracker: deps tracker/dist/manifest.json ## Build the store-side tracker (t.js, Shopify pixels) into tracker/dist

# The dashboard likewise (and reports its bundle size when it builds).
DASHBOARD_INPUTS := $(shell find dashboard/src -type f 2>/dev/null) dashboard/index.html dashboard/tsconfig.json \
	contracts/src/attribution.ts contracts/src/channels.ts contracts/src/settings.ts scripts/build-dashboard.ts package.json

dashboard/dist/manifest.json: $(DASHBOARD_INPUTS)
	@node --import tsx scripts/build-dashboard.ts

dashboard: deps dashboard/dist/manifest.json ## Build the dashboard (served at /dashboard) into dashboard/dist

generate: deps tracker/dist/manifest.json dashboard/dist/manifest.json ## Build the tracker and the dashboard; generate the tsoa routes and the OpenAPI document
	@npx tsoa spec-and-routes -c query-api/tsoa.json >/dev/null

# The daemons as plain JavaScript (scripts/build-daemons.ts), rebuilt when a source changed.
DAEMON_INPUTS := $(shell find contracts/src runtime storage infra pipeline/src query-api/src webhook-worker/src mcp/src \
	-type f \( -name '*.ts' -o -name '*.json' \) -not -name '*.test.ts' 2>/dev/null) scripts/build-daemons.ts tsconfig.json package.json

dist/build.json: $(DAEMON_INPUTS)
	@node --import tsx scripts/build-daemons.ts

build: generate dist/build.json ## The operator's build: the daemons as JavaScript with source maps under dist/ (make run uses it)

run: build ## Start everything in the foreground (local NATS + PostgreSQL unless NATS_URL / DATABASE_URL are set)
	@bash infra/local/run.sh

stop: ## Stop the local nats-server and PostgreSQL started by `make run`
	@bash infra/local/stop-all.sh

clean: ## Stop the local services and delete their data (./.data); asks first unless FORCE=1
	@FORCE=$(FORCE) bash infra/local/clean.sh

services-up: deps ## Start only the local nats-server and PostgreSQL under ./.data
	@bash infra/local/start-nats.sh >/dev/null && bash infra/local/start-postgres.sh >/dev/null

services-down: stop ## Same as `make stop`

migrate: deps ## Apply SQL migrations to DATABASE_URL (or to the local PostgreSQL)
	@bash infra/local/run.sh --migrate-only

check: generate ## Type check, lint, format check, and OpenAPI drift check
	@npx tsc --noEmit -p tsconfig.json
	@npx tsc --noEmit -p tracker/tsconfig.json
	@npx tsc --noEmit -p dashboard/tsconfig.json
	@npx eslint --max-warnings 0 .
	@npx prettier --check . >/dev/null || (npx prettier --check . ; exit 1)
	@git diff --quiet -- query-api/openapi/openapi.json || (echo "openapi.json changed: regenerate and commit it (git diff query-api/openapi)"; exit 1)

typecheck: generate
	@npx tsc --noEmit -p tsconfig.json
	@npx tsc --noEmit -p tracker/tsconfig.json
	@npx tsc --noEmit -p dashboard/tsconfig.json

lint: generate
	@npx eslint --max-warnings 0 .

format:
	@npx prettier --log-level warn --write .

# Test files run two at a time (jest's default is one worker less than the cores). Integration test workers
# each get a nats-server and a PostgreSQL of their own (see test/support/env.ts): most of their time is spent
# waiting on daemons, servers and the browser.
TEST_WORKERS ?= 2

test: deps-browser generate ## Run the whole suite (unit + integration against throwaway nats-server, PostgreSQL and Chromium)
	@npx tsc --noEmit -p tsconfig.json
	@npx tsc --noEmit -p tracker/tsconfig.json
	@npx tsc --noEmit -p dashboard/tsconfig.json
	@npx eslint --max-warnings 0 .
	@npx prettier --check . >/dev/null || (npx prettier --check . ; exit 1)
	@npx jest --selectProjects unit --silent --maxWorkers=$(TEST_WORKERS)
	@npx jest --selectProjects integration --maxWorkers=$(TEST_WORKERS) --forceExit

test-unit: generate
	@npx jest --selectProjects unit --maxWorkers=$(TEST_WORKERS)

test-integration: deps-browser generate
	@npx jest --selectProjects integration --maxWorkers=$(TEST_WORKERS) --forceExit

cluster: build ## Three-node JetStream cluster, two pipeline workers, API and webhook worker (foreground)
	@bash infra/local/cluster.sh

cluster-stop: ## Stop the cluster's NATS nodes (and the local PostgreSQL: make stop)
	@bash infra/local/stop-cluster.sh

bench: generate ## Benchmarks: make bench ARGS=ingest|pipeline|api
	@npm run --silent bench -- $(ARGS)
