"""Loading a Python function named ``module:function`` (or ``path/to/file.py:function``): the
agent of a ``python:`` spec, and a ``{"python": ...}`` tool mock.

The working directory is on ``sys.path``, so a module next to the suite is found as it is by
``python -m``. Nothing here decides whether a module may be loaded: the runner's policy does
that before a run is accepted (``AGENTEVAL_RUNNER_AGENT_MODULES``).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agenteval.contracts.suite import parse_function_spec


class FunctionNotLoaded(ValueError):
    """The function cannot be loaded; the message says why (without the spec)."""


def load_function(spec: str) -> Callable[..., Any]:
    """The callable named by ``spec``; FunctionNotLoaded (a ValueError) saying why not."""
    module_name, attr = parse_function_spec(spec)
    if module_name.endswith(".py") or "/" in module_name or os.sep in module_name:
        path = Path(module_name).resolve()
        if not path.exists():
            raise FunctionNotLoaded(f"file {module_name} does not exist")
        mod_spec = importlib.util.spec_from_file_location(f"agenteval_agent_{abs(hash(path))}", path)
        if mod_spec is None or mod_spec.loader is None:
            raise FunctionNotLoaded(f"cannot load {module_name}")
        module = importlib.util.module_from_spec(mod_spec)
        mod_spec.loader.exec_module(module)
    else:
        cwd = os.getcwd()
        if cwd not in sys.path:
            sys.path.insert(0, cwd)
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            hint = ""
            if isinstance(exc, ModuleNotFoundError) and exc.name and module_name.startswith(exc.name):
                # The module itself is missing (not one it imports): where was it looked for?
                hint = (
                    f" (looked in {cwd} and the Python path; run from the directory that holds "
                    f"{module_name.split('.')[0]!r}, add that directory to PYTHONPATH, or name a file: "
                    f"python:path/to/{module_name.replace('.', '/')}.py:{attr})"
                )
            raise FunctionNotLoaded(f"cannot import module {module_name!r}: {exc}{hint}") from None
        except Exception as exc:
            raise FunctionNotLoaded(
                f"importing {module_name!r} failed: {type(exc).__name__}: {exc}"
            ) from None
    fn: object = module
    for part in attr.split("."):
        fn = getattr(fn, part, None)
        if fn is None:
            raise FunctionNotLoaded(f"{module_name!r} has no attribute {attr!r}")
    if not callable(fn):
        raise FunctionNotLoaded(f"{attr!r} is not callable")
    return fn
