# ledger-context: every job a person or CI runs. Needs only Python 3.11+, make and git;
# `make browser` and `make node` install the optional parts some tests need (they skip without).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
DEMO := ledger_fixtures/demo
VERSION := $(shell sed -n 's/^version = "\(.*\)"$$/\1/p' pyproject.toml)
MCPB_VERSION := 2.1.2
MCPB := npx --yes @anthropic-ai/mcpb@$(MCPB_VERSION)
BUNDLE_DIR ?= dist

CHROMIUM := /usr/bin/chromium

.PHONY: demo test quick lint typecheck pytest pytest-pure-yaml browser node screenshot bench bench-index golden fixtures inspector ts-client bundle clean

# Setting up the venv talks on stderr, so `make demo` prints only the pack on stdout.
$(STAMP): pyproject.toml
	@echo "Creating $(VENV) and installing ledger-context (first run only)..." >&2
	@$(PYTHON) -m venv $(VENV) >&2
	@$(BIN)/python -m pip install --quiet --upgrade pip >&2
	@$(BIN)/python -m pip install --quiet -e '.[dev]' >&2
	@touch $(STAMP)

## demo: print the demo ledger's context pack, then its size in bytes and tokens
demo: $(STAMP)
	@$(BIN)/ledger-context pack --space $(DEMO) --stats

## test: lint (ruff), types (mypy, strict), then the test suite (pytest)
test: lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check server tests bench ledger_fixtures
	$(BIN)/ruff format --check server tests bench ledger_fixtures

typecheck: $(STAMP)
	$(BIN)/mypy

# A private --basetemp: pytest's shared numbered temp folders race when several runs share a
# machine (and its clean-up then leaks a folder listing, which filterwarnings=error fails).
# Removed when the run ends, whatever its status: a full run leaves about 400 MB there.
PYTEST_TMP := tmp=$$(mktemp -d "$${TMPDIR:-/tmp}/ledger-context-pytest.XXXXXX") && trap 'rm -rf "$$tmp"' EXIT
PYTEST := $(BIN)/pytest --basetemp="$$tmp"

# Never installs anything but the venv: a test needing chromium or Node skips, naming the
# target below that installs it (under CI it fails instead; .ci/run installs both first).
# One worker per core (pytest-xdist): most of the suite's time is real servers and clients
# started as processes, which one core cannot overlap.
pytest: $(STAMP)
	$(PYTEST_TMP) && $(PYTEST) -n auto

## quick: the working loop: the suite without the slow tests (marker slow), no lint, one
## worker per core (pytest-xdist)
quick: $(STAMP)
	$(PYTEST_TMP) && $(PYTEST) -m "not slow" -n auto

## browser: Debian's chromium for the budget page tests and make screenshot (never a Playwright download)
browser:
	@$(call apt_install,$(CHROMIUM),chromium,chromium)

## node: Node.js and npx for make bundle, make inspector and the bundle test
node:
	@$(call apt_install,npx,nodejs npm,npx (Node.js))

# $(call apt_install,COMMAND,PACKAGES,WHAT): install PACKAGES with apt-get when COMMAND is
# missing (as root), else say which command to run.
define apt_install
if ! command -v $(1) >/dev/null; then \
  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
    echo "Installing $(3) (apt-get install $(2))..." >&2; \
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 && \
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(2) >&2; \
  else \
    echo "$(3) is missing: run 'sudo apt-get install -y $(2)' (or your system's equivalent)" >&2; \
    exit 1; \
  fi; \
fi
endef

## screenshot: docs/explain-budget.png, the demo ledger's budget page (README)
screenshot: $(STAMP) browser
	$(BIN)/python tests/screenshot.py

## pytest-pure-yaml: the test suite again with PyYAML's pure-Python loader instead of libyaml
# Only the tests that read frontmatter: the channel, HTTP, audit and client tests would
# measure the same code twice, and CI's time is bounded.
PURE_YAML_TESTS := tests/model tests/reader tests/pack tests/explain tests/search tests/test_golden.py \
	tests/test_reference.py tests/test_properties.py tests/test_yaml_loaders.py tests/test_search_determinism.py

pytest-pure-yaml: $(STAMP)
	$(PYTEST_TMP) && LEDGER_CONTEXT_YAML=python $(PYTEST) -n auto $(PURE_YAML_TESTS)

## bench: the speed and memory benchmark; prints a table, writes bench/RESULTS.md
bench: $(STAMP)
	$(BIN)/python bench/run.py

## bench-index: the ledger index measured (issue 26); prints a table, appends it to bench/RESULTS.md
bench-index: $(STAMP)
	$(BIN)/python bench/index.py --ledgers findings-2500,experiments-2500,docs-10000 --write

## golden: regenerate tests/golden/*.pack from the fixtures (review the diff!)
golden: $(STAMP)
	$(BIN)/python tests/golden/regenerate.py

## fixtures: regenerate ledger_fixtures/ from ledger_fixtures/generate.py (checked with the package)
fixtures: $(STAMP)
	$(BIN)/python ledger_fixtures/generate.py

## inspector: drive the server with the MCP Inspector CLI (needs Node 20+; not part of CI)
inspector: $(STAMP)
	PATH="$(abspath $(BIN)):$$PATH" bash .ci/inspector.sh

## ts-client: the TypeScript SDK client against the demo ledger (needs Node 18+ and npm)
ts-client: $(STAMP)
	PATH="$(abspath $(BIN)):$$PATH" bash .ci/ts_client.sh

## bundle: the MCP Bundle for Claude Desktop, dist/ledger-context-<version>.mcpb (needs Node 18+ and npx)
bundle:
	@command -v npx >/dev/null || { echo "make bundle needs Node.js 18+ and npx: run 'make node'" >&2; exit 1; }
	$(MCPB) validate manifest.json
	@mkdir -p $(BUNDLE_DIR)
	$(MCPB) pack . $(BUNDLE_DIR)/ledger-context-$(VERSION).mcpb

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
