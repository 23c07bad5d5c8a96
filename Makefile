# ledger-context: every job a person or CI runs. Needs only Python 3.11+ and make.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
DEMO := ledger_fixtures/demo

.PHONY: demo test lint typecheck pytest pytest-pure-yaml bench golden fixtures inspector clean

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

pytest: $(STAMP)
	$(BIN)/pytest

## pytest-pure-yaml: the test suite again with PyYAML's pure-Python loader instead of libyaml
pytest-pure-yaml: $(STAMP)
	LEDGER_CONTEXT_YAML=python $(BIN)/pytest

## bench: the speed and memory benchmark; prints a table, writes bench/RESULTS.md
bench: $(STAMP)
	$(BIN)/python bench/run.py

## golden: regenerate tests/golden/*.pack from the fixtures (review the diff!)
golden: $(STAMP)
	$(BIN)/python tests/golden/regenerate.py

## fixtures: regenerate ledger_fixtures/ from ledger_fixtures/generate.py
fixtures:
	$(PYTHON) ledger_fixtures/generate.py

## inspector: drive the server with the MCP Inspector CLI (needs Node 20+; not part of CI)
inspector: $(STAMP)
	PATH="$(abspath $(BIN)):$$PATH" bash .ci/inspector.sh

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
