# The two commands a newcomer needs: `make run` and `make test`. See README.md.
SHELL := /bin/bash
.DEFAULT_GOAL := help

.PHONY: help deps generate run stop clean services-up services-down migrate nats-setup check typecheck lint format test test-unit test-integration bench cluster cluster-stop

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-18s %s\n", $$1, $$2}'

deps: ## Install what is missing: nats-server, PostgreSQL 15 (Debian packages), npm packages (npm ci)
	@bash infra/local/install-deps.sh

generate: deps ## Generate the tsoa routes and the OpenAPI document from the controllers
	@npx tsoa spec-and-routes -c query-api/tsoa.json >/dev/null

run: generate ## Start everything in the foreground (local NATS + PostgreSQL unless NATS_URL / DATABASE_URL are set)
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
	@npx eslint --max-warnings 0 .
	@npx prettier --check . >/dev/null || (npx prettier --check . ; exit 1)
	@git diff --quiet -- query-api/openapi/openapi.json || (echo "openapi.json changed: regenerate and commit it (git diff query-api/openapi)"; exit 1)

typecheck: generate
	@npx tsc --noEmit -p tsconfig.json

lint: generate
	@npx eslint --max-warnings 0 .

format:
	@npx prettier --log-level warn --write .

test: generate ## Run the whole suite (unit + integration against throwaway nats-server and PostgreSQL)
	@npx tsc --noEmit -p tsconfig.json
	@npx eslint --max-warnings 0 .
	@npx prettier --check . >/dev/null || (npx prettier --check . ; exit 1)
	@npx jest --selectProjects unit --silent
	@npx jest --selectProjects integration --runInBand --detectOpenHandles --forceExit

test-unit: generate
	@npx jest --selectProjects unit

test-integration: generate
	@npx jest --selectProjects integration --runInBand --detectOpenHandles --forceExit

cluster: generate ## Three-node JetStream cluster, two pipeline workers, API and webhook worker (foreground)
	@bash infra/local/cluster.sh

cluster-stop: ## Stop the cluster's NATS nodes (and the local PostgreSQL: make stop)
	@bash infra/local/stop-cluster.sh

bench: generate ## Benchmarks: make bench ARGS=ingest|pipeline|api
	@npm run --silent bench -- $(ARGS)
