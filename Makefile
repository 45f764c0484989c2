# The two commands that matter: `make demo` and `make test`.
# Each builds the virtual environment from the lock file when it is missing
# or out of date, so both work on a fresh clone.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test dist bench bench-ingest bench-search bench-context bench-offline bench-chat bench-embed bench-citus clean lock

$(STAMP): pyproject.toml requirements.lock
	rm -rf $(VENV)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements.lock
	$(BIN)/pip install --quiet --disable-pip-version-check --no-deps -e .
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/kronograph demo

test: $(STAMP)
	bash tests/system_packages.sh
	$(BIN)/ruff check src tests tools
	$(BIN)/mypy
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q

# The sdist and the wheel (a standard PEP 517 build, the wheel made from the sdist) into dist/.
dist: $(STAMP)
	rm -rf dist
	$(BIN)/python -m build --outdir dist .

bench: $(STAMP)
	$(BIN)/python bench/core.py

bench-ingest: $(STAMP)
	$(BIN)/python bench/ingest.py

bench-search: $(STAMP)
	$(BIN)/python bench/search.py

bench-context: $(STAMP)
	$(BIN)/python bench/context.py

bench-offline: $(STAMP)
	$(BIN)/python bench/offline_eval.py

bench-chat: $(STAMP)
	$(BIN)/python bench/chat_eval.py

bench-embed: $(STAMP)
	$(BIN)/python bench/embed.py

bench-citus: $(STAMP)
	$(BIN)/python bench/citus.py

# Regenerate the lock file (needs `uv` on PATH; not part of the normal flow).
lock:
	uv pip compile pyproject.toml --extra dev -o requirements.lock --python-version 3.11

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .mypy_cache .ruff_cache build dist src/*.egg-info
