# PrettyScore. On a fresh machine: `make run` or `make test`; each does its own set-up,
# and a second run installs nothing (stamp files in .venv/ remember what was installed).

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

PYTHON ?= python3
PORT ?= 3000
# The browser tests drive Chromium's headless shell (Debian's chromium-headless-shell: the
# same engine without the desktop browser around it, what Playwright uses headless; a
# third less CPU per test than the full browser here). Lighthouse, under `make bench`,
# measures pages in the full browser, as a visitor's.
CHROMIUM ?= /usr/bin/chromium-headless-shell
BENCH_CHROMIUM ?= /usr/bin/chromium
PYTEST_ARGS ?=

VENV := .venv
BIN := $(VENV)/bin
APP_STAMP := $(VENV)/.installed-requirements
DEV_STAMP := $(VENV)/.installed-requirements-dev

# Lighthouse (npm) for the page-speed benchmark: about 180 MB, so only `make bench`
# installs it, once, into .tools/lighthouse/.
LIGHTHOUSE_VERSION := 13.5.0
LIGHTHOUSE_DIR := .tools/lighthouse
LIGHTHOUSE_STAMP := $(LIGHTHOUSE_DIR)/.installed-lighthouse-$(LIGHTHOUSE_VERSION)

# axe-core (npm, MPL-2.0) for the accessibility browser test (tests/e2e/test_accessibility.py):
# one script of about 650 kB, installed once into .tools/axe-core/ by `make test` or
# `make axe-core`.
AXE_VERSION := 4.14.1
AXE_DIR := .tools/axe-core
AXE_STAMP := $(AXE_DIR)/.installed-axe-core-$(AXE_VERSION)

# Nothing leaves this machine at run or test time: no telemetry, no version check.
export PORT
export REFLEX_TELEMETRY_ENABLED := false
export REFLEX_CHECK_LATEST_VERSION := false
export PIP_DISABLE_PIP_VERSION_CHECK := 1

# Sets PATH (Node >= 22 from .tools/ when the system's is older) and REFLEX_USE_NPM.
JS_ENV = js_env="$$(scripts/js-env)"; eval "$$js_env"

.PHONY: help run worker test lint format bench clean setup setup-dev migrate chromium bench-chromium \
	lighthouse axe-core openblas

help:
	@echo "make run     set up, apply migrations, start PrettyScore on http://localhost:$(PORT)"
	@echo "make worker  set up, apply migrations, run a job worker (needs REDIS_URL)"
	@echo "make test    set up (plus Chromium for the browser tests), run the whole test suite"
	@echo "make lint    ruff check and ruff format --check"
	@echo "make format  fix imports and format the code with ruff"
	@echo "make bench   run the benchmarks in tests/perf/ and print their figures"
	@echo "             (one: make bench PYTEST_ARGS='-k lighthouse')"
	@echo "make clean   remove build output and local data (.web, .states, data)"

# --- Set-up -------------------------------------------------------------------------

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(not (3, 11) <= sys.version_info[:2] <= (3, 12))' \
		2>/dev/null || { \
		echo "PrettyScore needs Python 3.11 or 3.12 as $(PYTHON), found:" \
			"$$($(PYTHON) --version 2>&1 || echo none)."; \
		echo "(The photo analysis uses MediaPipe 0.10.21, the last release that ships its" \
			"models, and its wheels exist only for CPython 3.9-3.12.)"; \
		echo "Run with another one: make PYTHON=/path/to/python3.12 ..."; \
		exit 1; }
	@if ! $(PYTHON) -c 'import ensurepip' 2>/dev/null && command -v apt-get >/dev/null; then \
		echo "Installing python3-venv (apt-get), needed to create $(VENV)/..."; \
		sudo=""; [ "$$(id -u)" = 0 ] || sudo="sudo"; \
		$$sudo apt-get update; \
		DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y python3-venv; \
	fi
	$(PYTHON) -m venv $(VENV) || { rm -rf $(VENV); exit 1; }

# MediaPipe goes in after the rest, without its declared dependencies (see
# requirements-mediapipe.txt: requirements.txt pins what it really imports).
INSTALL_MEDIAPIPE = $(BIN)/python -m pip install --quiet --no-deps -r requirements-mediapipe.txt

$(APP_STAMP): requirements.txt requirements-mediapipe.txt | $(BIN)/python openblas
	@echo "Installing the Python packages of requirements.txt into $(VENV)/..."
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(INSTALL_MEDIAPIPE)
	touch $@

# requirements-dev.txt includes requirements.txt, so this also satisfies the app stamp.
$(DEV_STAMP): requirements-dev.txt requirements.txt requirements-mediapipe.txt | $(BIN)/python openblas
	@echo "Installing the Python packages of requirements-dev.txt into $(VENV)/..."
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	$(INSTALL_MEDIAPIPE)
	touch $@ $(APP_STAMP)

setup: $(APP_STAMP)
	@$(JS_ENV)

setup-dev: $(DEV_STAMP)
	@$(JS_ENV)

migrate: $(APP_STAMP)
	$(BIN)/alembic upgrade head

# dlib (the face descriptor) is built from source on the first set-up; with Debian's
# OpenBLAS and CMake it finds BLAS and runs its network four times as fast.
openblas:
	@if ! ldconfig -p 2>/dev/null | grep -q 'libopenblas.so ' || ! command -v cmake >/dev/null; then \
		if command -v apt-get >/dev/null; then \
			echo "Installing OpenBLAS and CMake (apt-get), to build dlib's face descriptor..."; \
			sudo=""; [ "$$(id -u)" = 0 ] || sudo="sudo"; \
			$$sudo apt-get update; \
			DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y --no-install-recommends \
				libopenblas-dev cmake; \
		fi; \
	fi

# Debian's Chromium drives the browser tests (Playwright's own download cannot work here).
APT_INSTALL = sudo=""; [ "$$(id -u)" = 0 ] || sudo="sudo"; $$sudo apt-get update; \
	DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y --no-install-recommends

chromium:
	@if [ ! -x "$(CHROMIUM)" ]; then \
		echo "Installing Chromium's headless shell for the browser tests (apt-get)..."; \
		$(APT_INSTALL) chromium-headless-shell; \
	fi

bench-chromium:
	@if [ ! -x "$(BENCH_CHROMIUM)" ]; then \
		echo "Installing Chromium for the benchmarks (apt-get)..."; \
		$(APT_INSTALL) chromium; \
	fi

# Lighthouse runs on the Node that scripts/js-env provides (it needs Node >= 22.19).
$(LIGHTHOUSE_STAMP):
	@echo "Installing Lighthouse $(LIGHTHOUSE_VERSION) into $(LIGHTHOUSE_DIR)/ for make bench (npm)..."
	@$(JS_ENV); npm install --prefix $(LIGHTHOUSE_DIR) --no-audit --no-fund --loglevel=error \
		lighthouse@$(LIGHTHOUSE_VERSION)
	touch $@

lighthouse: $(LIGHTHOUSE_STAMP)

$(AXE_STAMP):
	@echo "Installing axe-core $(AXE_VERSION) into $(AXE_DIR)/ for the accessibility test (npm)..."
	@$(JS_ENV); npm install --prefix $(AXE_DIR) --no-audit --no-fund --loglevel=error \
		axe-core@$(AXE_VERSION)
	touch $@

axe-core: $(AXE_STAMP)

# --- Run ------------------------------------------------------------------------------

run: setup migrate
	@$(JS_ENV); exec scripts/serve

# A job worker for the queue on Redis (REDIS_URL): video renders and AI edits. `make run` starts one
# itself when REDIS_URL is set; run more, on any machine sharing the database, Redis and
# the media store, to render more at once.
worker: setup migrate
	@exec scripts/worker

# --- Checks ---------------------------------------------------------------------------

# Two steps, both on several test processes (pytest-xdist; each process has its own
# databases, ports and folders). The tests without a browser keep both cores busy; a
# third process fills the gaps while one waits on a server it started (460 s against
# 512 s on two). Then the browser tests, which wait on the app and Chromium more than
# they compute: 1,027 s one at a time, 681 s three at a time, 482 s with Chromium's
# headless shell. Their processes share one frontend build, and so does a last step
# (E2E_RUN_ID): the tests marked ``alone``, one at a time (Redis and PostgreSQL
# restarted under load, a tab moved between two app processes, a tab's state lost while
# typing), whose answers the other browser tests' load once delayed past their waits.
# Running the two steps at once starves both (the tests without a browser took twice as
# long, and a browser test timed out). Every step always runs; the run fails if any
# does. Each prints its 20 slowest tests, so a run that grows longer says where. Tests
# that share one slow set-up (the score's fit on the rated faces, a file's servers) name
# one xdist group, so one process pays for it. With PYTEST_ARGS, one plain pytest run
# with those arguments. Linear algebra runs on one thread per process: the processes
# already fill the cores (the fit's small products, spread over both cores by each of
# two processes at once, took three times as long).
TEST_PROCESSES ?= 3
BROWSER_TEST_PROCESSES ?= 3
test: setup-dev chromium axe-core
	@$(JS_ENV); export CHROMIUM="$(CHROMIUM)" OPENBLAS_NUM_THREADS=1; \
	if [ -n "$(PYTEST_ARGS)" ]; then exec $(BIN)/python -m pytest $(PYTEST_ARGS); fi; \
	without_browser=0; in_browser=0; \
	$(BIN)/python -m pytest -m "not e2e" --ignore=tests/perf -n $(TEST_PROCESSES) \
		--dist loadgroup --durations=20 || without_browser=$$?; \
	export E2E_RUN_ID="make-test-$$$$-$$(date +%s)"; \
	$(BIN)/python -m pytest tests/e2e -m "not alone" -n $(BROWSER_TEST_PROCESSES) \
		--dist loadgroup --durations=20 || in_browser=$$?; \
	$(BIN)/python -m pytest tests/e2e tests/security/test_service_restarts.py -m alone \
		--durations=20 || in_browser=$$?; \
	if [ $$without_browser -ne 0 ] || [ $$in_browser -ne 0 ]; then exit 1; fi

lint: $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(DEV_STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# Benchmarks print figures (-s); an empty tests/perf/ is not an error. PRETTYSCORE_LOAD=1
# adds the load and Lighthouse benchmarks (minutes long), PRETTYSCORE_SOAK=1 the soak
# (browser journeys through a worker crash and a Redis restart, about half an hour); the
# normal test run skips them. One of them: make bench PYTEST_ARGS="-k lighthouse"
bench: setup-dev chromium bench-chromium lighthouse
	@if [ -z "$$(find tests/perf \( -name 'test_*.py' -o -name '*_test.py' \) 2>/dev/null)" ]; then \
		echo "No benchmarks in tests/perf/ yet."; exit 0; \
	fi; \
	$(JS_ENV); export CHROMIUM="$(BENCH_CHROMIUM)" PRETTYSCORE_LOAD=1 PRETTYSCORE_SOAK=1; \
	$(BIN)/python -m pytest tests/perf -s $(PYTEST_ARGS)

clean:
	rm -rf .web .states data
