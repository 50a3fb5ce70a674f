# agenteval: the README's two commands are `make demo` and `make test`.
# The tree is a uv workspace (pyproject.toml + uv.lock): `make install` puts uv into .venv
# with pip, then `uv sync` installs every service and library, editable, from the lock.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
UV := $(VENV)/bin/uv
AGENT_EVAL := $(VENV)/bin/agent-eval
STAMP := $(VENV)/.installed
UV_VERSION := 0.13.8
MEMBERS := $(wildcard libs/*/pyproject.toml services/*/pyproject.toml apps/*/pyproject.toml)

.PHONY: install bytecode demo test lint typecheck layers check proto lock bench clean

$(STAMP): pyproject.toml uv.lock $(MEMBERS)
	test -x $(UV) || ($(PYTHON) -m venv $(VENV) && $(VENV)/bin/pip install -q uv==$(UV_VERSION))
	UV_PROJECT_ENVIRONMENT=$(VENV) UV_PYTHON=$(PY) $(UV) sync -q --frozen --all-packages --compile-bytecode
	touch $(STAMP)

install: $(STAMP)

## Bytecode for the tree's own sources. Python writes it on first import, unless
## PYTHONDONTWRITEBYTECODE is set (as on CI machines): then every process (each CLI
## command, service and sandbox the tests start) compiles ~1,000 modules again, about 5 s.
## compileall only rewrites what changed, and names a file that does not compile.
bytecode: install
	$(PY) -m compileall -q -j 0 apps libs services tests

## The main job: the example suite through all five services on the embedded stack.
demo: bytecode
	$(AGENT_EVAL) run examples/support_suite.yaml -k 5 --seed 2

## The tests (real NATS, SQLite, PostgreSQL, gRPC on loopback, subprocess sandboxes).
test: bytecode
	$(PY) -m pytest -q -n 2

## Style, types and layering: what CI checks besides the tests.
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: install
	$(VENV)/bin/mypy

layers: install
	$(VENV)/bin/lint-imports

check: lint typecheck layers

## Regenerate the gRPC/protobuf code from proto/ into libs/contracts/src/agenteval/v1/.
proto: install
	$(PY) -m agenteval.contracts.protogen

## Re-resolve uv.lock after changing a pyproject.toml.
lock: install
	$(UV) lock

bench: install
	$(PY) bench/run.py

clean:
	rm -rf $(VENV) .agenteval build dist
