# ioleval: `make run` sets everything up and serves; `make test` runs the whole suite.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   ?= .venv
PY     := $(VENV)/bin/python
PORT   ?= 8000
HOST   ?= 127.0.0.1
PYTEST_ARGS ?=

.PHONY: install js run serve migrate demo test lint format bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

install: $(VENV)/.installed

# Test-only JavaScript (axe-core for tests/e2e/test_accessibility.py), pinned by
# package-lock.json; `npm ci` reinstalls it whenever the lock file changes.
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

js: node_modules/.installed

migrate: install
	$(PY) manage.py migrate --noinput

demo: migrate
	$(PY) manage.py demo

run: demo
	@echo ""
	@echo "  ioleval is at http://$(HOST):$(PORT)/"
	@echo "  demo logins (password ioleval-demo): organizer, chair, juror1 .. juror4"
	@echo ""
	$(PY) manage.py runserver $(HOST):$(PORT)

test: install js
	$(PY) -m pytest $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: install
	$(PY) benchmarks/score_board.py

clean:
	rm -rf $(VENV) node_modules db.sqlite3 staticfiles .pytest_cache
