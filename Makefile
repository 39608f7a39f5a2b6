# `make test` and `make run` set everything up on a fresh machine: they create .venv/ and install
# the project with its dependencies (again only when pyproject.toml changed).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
HOST   ?= 127.0.0.1
PORT   ?= 4566

.PHONY: setup test run bench peer clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

test: $(STAMP)
	$(PY) -m pytest -q

run: $(STAMP)
	$(VENV)/bin/eddy serve --host $(HOST) --port $(PORT) --state-dir .eddy

bench: $(STAMP)
	$(PY) bench/put_item.py
	$(PY) bench/get_records.py
	$(PY) bench/triggers.py

# moto's own dynamodb and dynamodbstreams tests in server mode, against plain moto and against Eddy
peer: $(STAMP)
	$(PY) tools/peer_suite.py $(PEER_ARGS)

clean:
	rm -rf $(VENV) build *.egg-info
