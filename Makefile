# Climate projection service. `make run` and `make test` are all a new user needs; see README.md.
SHELL := /bin/bash
.DEFAULT_GOAL := help
DATA_DIR ?= data/build
STAMP := node_modules/.npm-ci-stamp
PID_FILE ?= .run/server.pid
TSX := node_modules/.bin/tsx
# The server's Node options. A capped V8 heap collects sooner, which also frees the native memory of
# DuckDB results (released by their finalizers only): peak RSS under make bench 550-620 -> 380 MB.
SERVER_NODE_OPTIONS ?= --max-old-space-size=256

.PHONY: help setup build run reload test test-fast data summaries map-files user migrate bench bench-layout typecheck ingest bench-ingest bench-first-run bench-build bench-budget bench-soak bench-explorer bench-catalog archive-model fetch ingest-enqueue ingest-worker ingest-status bench-queue export-worker bench-export

help:
	@echo "make run    - npm ci when needed, then serve on PORT (default 8080), building the default data meanwhile if missing"
	@echo "make reload - make the server started by make run serve the build DATA_DIR names now (SIGHUP)"
	@echo "make test   - type-check and run the test suite"
	@echo "make test-fast [FILES=test/areas] - the suite without the browser and multi-process files, no type-check (docs/development.md)"
	@echo "make setup  - npm ci and build the default data if missing (idempotent)"
	@echo "make build  - compile src/ into dist/ (make run does it when needed)"
	@echo "make data   - (re)build the default data; DATA_CITIES=50 DATA_SEED=1 DATA_DIR=data/build"
	@echo "make summaries - rewrite the per-cell summaries of DATA_DIR (after upgrading the service)"
	@echo "make map-files - rewrite only the map files of DATA_DIR (after an upgrade changed their layout; much faster than make summaries)"
	@echo "make user EMAIL=... PASSWORD=...  - create or reset an account; prints its API token last"
	@echo "make migrate - create or upgrade the accounts schema in PostgreSQL (ACCOUNTS_URL)"
	@echo "make bench  - load benchmark on the default data (docs/benchmarks.md)"
	@echo "make bench-layout - the storage-layout comparison that chose one file per cell"
	@echo "make bench-soak - 10 minutes of mixed traffic at 32 clients: 5xx, errors, p99, memory growth"
	@echo "make bench-budget - where one indicator and one raw request spend their time"
	@echo "make bench-explorer - the explorer page's weight and time from sign-in to first chart (Chromium)"
	@echo "make bench-first-run - time a new user's make run from a fresh clone (BENCH_FIRST_RUNS=3)"
	@echo "make bench-catalog - start-up, RSS, lat/lon lookups and reload with 2,000 to 200,000 map cells with data (BENCH_CATALOG_SIZES)"
	@echo "make bench-build - CPU time of the default build's stages, one cell per dataset (BENCH_BUILD_RUNS=3)"
	@echo "make ingest DATASET=NEX-GDDP|LOCA|NEX-GDDP-CMIP6|LOCA2 SRC=<file or folder> [POINTS=\"lat,lon;lat,lon\"] [BBOX=west,south,east,north] - read NetCDF files into DATA_DIR"
	@echo "make fetch DATASET=NEX-GDDP-CMIP6 BBOX=west,south,east,north|POINTS=... [SCENARIOS=...] [MODELS=...] [VARIABLES=...] [YEARS=1950:2100] [VIA=s3|ncss] [DRY_RUN=1] [FORCE=1] [QUEUE_URL=...] - download a region from the publisher's archive and ingest it into DATA_DIR"
	@echo "make ingest-enqueue DATASET=... SRC=... [BBOX=...] [POINTS=...] [RANGE_CELLS=512] QUEUE_URL=redis://... - plan an ingest as tasks on a queue (DATA_DIR a symlink; one reduce task per RANGE_CELLS target cells); prints the job id"
	@echo "make ingest-worker QUEUE_URL=redis://... [EXIT_WHEN_IDLE=1] - work queued ingest tasks (any number, on any machines seeing SRC and DATA_DIR)"
	@echo "make ingest-status QUEUE_URL=redis://... JOB=<id> [WAIT=1] - a queued ingest's progress; exits 0 once it is published"
	@echo "make export-worker QUEUE_URL=redis://... - run the export jobs servers with QUEUE_URL put on the queue (EXPORT_DIR and DATA_DIR shared)"
	@echo "make bench-export - exports of New York City's century (43.8 M values) per format: values/s, CPU, peak RSS, file sizes; BENCH_BASELINE=<checkout> beside it, BENCH_EXPORT_QUEUE=1 with 1 and 2 workers (docs/benchmarks.md)"
	@echo "make bench-queue - the queued ingest with 1 and 2 workers on full-size scale-model files (BENCH_QUEUE_RUNS=3)"
	@echo "make archive-model DATASET=NEX-GDDP-CMIP6|LOCA2 MODELS=... SCENARIOS=... YEARS=2050-2051 [BBOX=...] - write files shaped as the publishers' into ARCHIVE_DIR"

# npm ci only when the lockfile changed since the last install.
$(STAMP): package-lock.json
	npm ci
	@touch $(STAMP)

# The compiled server and command-line tools (scripts/build-dist.ts; under tsx a tool that reads
# NetCDF spent 5 s translating h5wasm at each start), rebuilt when a source, sql/, the explorer page's
# web/, the lockfile, the tsconfig esbuild reads or a build script changed. The folders are
# listed too: a removed or renamed file changes its folder's time only.
DIST := dist/server.js
$(DIST): $(STAMP) $(shell find src sql web) package-lock.json tsconfig.json scripts/build-dist.ts scripts/build-explorer.ts
	$(TSX) scripts/build-dist.ts

build: $(DIST)

$(DATA_DIR)/manifest.json: | $(STAMP)
	DATA_DIR="$(DATA_DIR)" $(TSX) scripts/build-data.ts

setup: $(STAMP) $(DATA_DIR)/manifest.json

# Serves at once; a missing default data build is written while serving (DATA_AUTOBUILD), resumed
# where an interrupted one stopped.
run: $(DIST)
	NODE_OPTIONS="$(SERVER_NODE_OPTIONS)" DATA_DIR="$(DATA_DIR)" DATA_AUTOBUILD=on PID_FILE="$(PID_FILE)" node dist/server.js

# Serve the build DATA_DIR names now (after repointing a symlink): SIGHUP to the server make run started.
reload:
	@test -s "$(PID_FILE)" || { echo "No $(PID_FILE): is a server started with make run (or PID_FILE=$(PID_FILE)) running?"; exit 1; }
	kill -HUP "$$(cat "$(PID_FILE)")"

typecheck: $(STAMP)
	node_modules/.bin/tsc -p tsconfig.json
	node_modules/.bin/tsc -p web/tsconfig.json

test: typecheck
	node_modules/.bin/vitest run

# The edit-test loop: no type-check, and without the files that drive Chromium or start processes,
# Redis or PostgreSQL (vitest.config.ts, BROWSER_AND_PROCESS_FILES). FILES narrows it further.
test-fast: $(STAMP)
	TEST_FAST=1 node_modules/.bin/vitest run $(FILES)

data: $(STAMP)
	DATA_DIR="$(DATA_DIR)" $(TSX) scripts/build-data.ts

summaries: $(DIST)
	DATA_DIR="$(DATA_DIR)" node dist/cli/summaries.js

map-files: $(DIST)
	DATA_DIR="$(DATA_DIR)" node dist/cli/mapFiles.js

user: $(DIST)
	@EMAIL="$(EMAIL)" PASSWORD="$(PASSWORD)" node dist/cli/user.js

# The accounts schema in PostgreSQL (ACCOUNTS_URL); servers also do it at start.
migrate: $(DIST)
	node dist/cli/migrate.js

bench: setup $(DIST)
	SERVER_NODE_OPTIONS="$(SERVER_NODE_OPTIONS)" DATA_DIR="$(DATA_DIR)" $(TSX) bench/run.ts
	$(TSX) bench/ingest.ts

bench-layout: setup
	DATA_DIR="$(DATA_DIR)" $(TSX) bench/layout.ts

ingest: setup $(DIST)
	@DATA_DIR="$(DATA_DIR)" node dist/cli/ingest.js --dataset="$(DATASET)" --src="$(SRC)" --points="$(POINTS)" --bbox="$(BBOX)" --range-cells="$(RANGE_CELLS)"

# A region straight from the publisher's archive (src/archive/, src/ingest/fetchRegion.ts): listed from its index, downloaded a few files at a time, ingested.
fetch: setup $(DIST)
	@DATA_DIR="$(DATA_DIR)" QUEUE_URL="$(QUEUE_URL)" node dist/cli/fetch.js --dataset="$(DATASET)" --bbox="$(BBOX)" --points="$(POINTS)" --scenarios="$(SCENARIOS)" --models="$(MODELS)" --variables="$(VARIABLES)" --years="$(YEARS)" --dry-run="$(DRY_RUN)" --via="$(VIA)" --range-cells="$(RANGE_CELLS)" --force="$(FORCE)"

# The ingest on a queue (BullMQ on Redis; src/ingest/queue/): any number of workers, a new build published when done.
ingest-enqueue: $(DIST)
	@DATA_DIR="$(DATA_DIR)" QUEUE_URL="$(QUEUE_URL)" node dist/cli/ingestEnqueue.js --dataset="$(DATASET)" --src="$(SRC)" --points="$(POINTS)" --bbox="$(BBOX)" --range-cells="$(RANGE_CELLS)"

ingest-worker: $(DIST)
	@DATA_DIR="$(DATA_DIR)" QUEUE_URL="$(QUEUE_URL)" EXIT_WHEN_IDLE="$(EXIT_WHEN_IDLE)" INGEST_LOCK_MS="$(INGEST_LOCK_MS)" node dist/cli/ingestWorker.js

# Export jobs on the queue (src/export/exportQueue.ts): servers with QUEUE_URL add them, these workers run them.
export-worker: $(DIST)
	@DATA_DIR="$(DATA_DIR)" QUEUE_URL="$(QUEUE_URL)" node dist/cli/exportWorker.js

# Exports of New York City's century per format, on the compiled server as make run starts it (bench/export.ts; docs/benchmarks.md).
bench-export: setup $(DIST)
	$(TSX) bench/export.ts

ingest-status: $(DIST)
	@QUEUE_URL="$(QUEUE_URL)" node dist/cli/ingestStatus.js --job="$(JOB)" --wait="$(WAIT)"

# A scale model of the publishers' archives (scripts/archiveModel/archive.ts), for make ingest and the benchmarks.
ARCHIVE_DIR ?= .tmp/archive
archive-model: $(STAMP)
	$(TSX) scripts/archive-model.ts --dir="$(ARCHIVE_DIR)" --dataset="$(DATASET)" --models="$(MODELS)" --scenarios="$(SCENARIOS)" --years="$(YEARS)" --variables="$(VARIABLES)" --bbox="$(BBOX)" --chunks="$(CHUNKS)"

bench-ingest: $(STAMP)
	$(TSX) bench/ingest.ts

# The queued ingest with 1 and 2 workers (bench/queue.ts; README, Ingesting a region).
bench-queue: $(STAMP)
	$(TSX) bench/queue.ts

bench-first-run: $(STAMP)
	$(TSX) bench/first-run.ts

# Where the default build's CPU time goes (docs/data.md, The default build): one cell per dataset, by stage.
bench-build: $(STAMP)
	$(TSX) bench/build-stages.ts

# Mixed traffic for BENCH_SOAK_SECONDS (600) at BENCH_SOAK_CLIENTS (32): 5xx, errors, p99, RSS growth.
bench-soak: setup $(DIST)
	SERVER_NODE_OPTIONS="$(SERVER_NODE_OPTIONS)" DATA_DIR="$(DATA_DIR)" $(TSX) bench/soak.ts

# Where one request's time goes (docs/benchmarks.md, Latency budget): in one process, each step timed alone.
bench-budget: setup
	DATA_DIR="$(DATA_DIR)" $(TSX) bench/budget.ts

# The explorer page (docs/explorer.md): compressed JS+CSS and sign-in to first chart in Chromium.
bench-explorer: setup $(DIST)
	SERVER_NODE_OPTIONS="$(SERVER_NODE_OPTIONS)" DATA_DIR="$(DATA_DIR)" $(TSX) bench/explorer.ts

# The serving side as the catalog grows (docs/benchmarks.md): builds with 2,000, 20,000 and 200,000
# map cells with data (kept in .tmp/bench-catalog), the compiled server started on each.
bench-catalog: $(STAMP) $(DIST)
	SERVER_NODE_OPTIONS="$(SERVER_NODE_OPTIONS)" $(TSX) bench/catalog.ts
