# Two commands do everything: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
EXTRAS ?= all,frameworks

.PHONY: demo test venv lint types unit bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# vulture: the dead-code check of `make lint` (MIT, pure Python, no dependencies, under 300 KB installed).
# LangMem, which the LangGraph store's tests drive, comes with the frameworks extra.
venv: $(BIN)/python
	$(BIN)/pip install --quiet -e ".[$(EXTRAS)]" pytest pytest-timeout hypothesis mypy ruff vulture types-PyYAML playwright

# The README's tour uses the web view, the MCP server, team sync and hybrid recall: their extras too.
DEMO_EXTRAS := ui,mcp,server,team,embed
demo: $(BIN)/python
	$(BIN)/pip install --quiet -e '.[$(DEMO_EXTRAS)]'
	$(BIN)/python -m memdir.demo
	@echo
	@echo "memdir is installed in $(VENV): run $(BIN)/memdir --help,"
	@echo "or 'source $(BIN)/activate' once and then plain 'memdir' (as in the README)."

LINT_DIRS := $(wildcard src tests bench examples scripts)

# Dead code (vulture, configured in pyproject.toml) and code written twice (scripts/check_duplicates.py)
# fail the lint as a style error does.
lint: venv
	$(BIN)/ruff check $(LINT_DIRS)
	$(BIN)/ruff format --check $(LINT_DIRS)
	$(BIN)/vulture
	$(BIN)/python scripts/check_duplicates.py --min-lines 10 src scripts examples

types: venv
	$(BIN)/mypy

unit: venv
	$(BIN)/pytest

test: lint types unit

bench: venv
	$(BIN)/python bench/recall_scale.py

clean:
	rm -rf $(VENV) build dist .mypy_cache .ruff_cache
