# agenteval: the README's two commands are `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
AGENT_EVAL := $(VENV)/bin/agent-eval
STAMP := $(VENV)/.installed

.PHONY: install demo test lint proto bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

## The main job: the example suite through all five services on the embedded stack.
demo: install
	$(AGENT_EVAL) run examples/support_suite.yaml -k 5 --seed 2

## The tests (real NATS, SQLite, PostgreSQL, gRPC on loopback, subprocess sandboxes).
test: install
	$(PY) -m pytest -q

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

## Regenerate the gRPC/protobuf code from proto/ into libs/agenteval/v1/.
proto: install
	$(PY) -m agenteval.protogen

bench: install
	$(PY) bench/run.py

clean:
	rm -rf $(VENV) .agenteval build *.egg-info
