"""The walls around eval code inside the worker: the audit hook and the restricted namespace.

Imported by :mod:`_worker` as a top-level module (stdlib only, like :mod:`_policy`).

- The restricted namespace: a ``__builtins__`` without open/exec/eval/compile/globals/
  vars/..., an ``__import__`` that enforces the allowlist and hands out read-only module
  proxies without private names or foreign modules, and ``getattr``/``setattr``/
  ``delattr`` that refuse forbidden attribute names given as strings.
- The audit hook (fail-closed: unknown events are refused) blocks process creation,
  signals, sockets, ctypes, file writes, reads outside the stdlib, exec/compile and
  reads of frame/code attributes, whatever route eval code found to them.
"""

from __future__ import annotations

import builtins
import gc
import importlib
import os
import sys
import types
from typing import Any

import _policy  # type: ignore[import-not-found]  # a top-level module inside the worker

USER_MODULE = "__eval__"
"""``__name__`` of the module eval code runs in (and ``__module__`` of its classes)."""

SAFE_BUILTINS = (
    "abs all any ascii bin bool bytearray bytes callable chr classmethod complex dict dir divmod "
    "enumerate filter float format frozenset hasattr hash hex id int isinstance issubclass iter "
    "len list map max min next object oct ord pow print property range repr reversed round set "
    "slice sorted staticmethod str sum super tuple type zip aiter anext memoryview "
    "True False None NotImplemented Ellipsis __build_class__"
).split()

# Events the audit hook lets through as they are; everything not named here or handled in
# the hook itself is refused, so a new dangerous event in some module fails closed.
HARMLESS_EVENTS = frozenset({"builtins.id", "sys._getframe", "time.sleep", "random.seed", "array.__new__"})
# Modules whose own frames may compile/exec: importlib runs module code on import;
# collections.namedtuple evals a lambda built only from validated identifiers (and sets
# __defaults__; typing.NamedTuple then sets __bases__ on the new class). dataclasses is
# not trusted: it also needs inspect to read __code__.
TRUSTED_EXEC_CALLERS = frozenset(
    {
        "importlib._bootstrap",
        "importlib._bootstrap_external",
        "_frozen_importlib",
        "_frozen_importlib_external",
        "collections",
    }
)
TRUSTED_SETATTR_CALLERS = TRUSTED_EXEC_CALLERS | {"typing"}
# typing compiles string annotations into ForwardRefs (NamedTuple fields under
# ``from __future__ import annotations``); evaluating them stays refused.
TRUSTED_COMPILE_CALLERS = TRUSTED_EXEC_CALLERS | {"typing"}
# Type attributes whose assignment would rewire classes; __module__/__name__ are harmless
# and set by namedtuple and typing.
DANGEROUS_SETATTR = frozenset(
    {
        "__class__",
        "__bases__",
        "__code__",
        "__globals__",
        "__dict__",
        "__builtins__",
        "__closure__",
        "__defaults__",
        "__kwdefaults__",
        "__mro__",
    }
)
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


class Violation(BaseException):
    """Raised when eval code tries something the sandbox forbids."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message


class LLMError(RuntimeError):
    """An LLM call from eval code failed (or no LLM is configured)."""


class _Guard:
    """Per-process sandbox state; unreachable from eval code (no globals, no frames)."""

    def __init__(self) -> None:
        self.trusted = 0
        self.exec_code: types.CodeType | None = None
        self.violation: Violation | None = None
        self.read_roots: tuple[str, ...] = ()

    def refuse(self, rule: str, message: str) -> Violation:
        violation = Violation(rule, message)
        if self.violation is None:
            self.violation = violation
        return violation


GUARD = _Guard()


class _Trusted:
    """Run the worker's own audited calls; GC off so no user ``__del__`` runs inside."""

    def __enter__(self) -> None:
        gc.disable()
        GUARD.trusted += 1

    def __exit__(self, *exc: object) -> None:
        GUARD.trusted -= 1
        gc.enable()


TRUSTED = _Trusted()


def _under_roots(path: object) -> bool:
    if not isinstance(path, str):
        return False
    path = os.path.normpath(path)
    return any(path == root or path.startswith(root + os.sep) for root in GUARD.read_roots)


def _caller_module() -> str | None:
    frame = sys._getframe(2)  # 0: this function, 1: the hook, 2: the code that raised the event
    return frame.f_globals.get("__name__")


def audit_hook(event: str, args: tuple[Any, ...]) -> None:
    if GUARD.trusted or event in HARMLESS_EVENTS:
        return
    if event == "import":
        return  # which modules may be imported is the job of the restricted __import__
    if event == "open":
        path, mode, flags = args
        if mode in ("r", "rb") and not (flags or 0) & _WRITE_FLAGS and _under_roots(path):
            return
        raise GUARD.refuse("forbidden_operation", f"open({path!r}, {mode!r}) is not allowed")
    if event in ("os.listdir", "os.scandir"):
        if _under_roots(args[0]):
            return
        raise GUARD.refuse("forbidden_operation", f"{event}({args[0]!r}) is not allowed")
    if event == "exec":
        if args[0] is GUARD.exec_code or _caller_module() in TRUSTED_EXEC_CALLERS:
            return
        raise GUARD.refuse("forbidden_operation", "executing dynamic code (exec/eval) is not allowed")
    if event == "compile":
        if _caller_module() in TRUSTED_COMPILE_CALLERS:
            return
        raise GUARD.refuse("forbidden_operation", "compiling dynamic code (compile/eval) is not allowed")
    if event == "marshal.loads":  # importlib loading a .pyc; marshal could carry code objects
        if _caller_module() in TRUSTED_EXEC_CALLERS:
            return
        raise GUARD.refuse("forbidden_operation", "marshal.loads is not allowed")
    if event == "object.__getattr__":
        raise GUARD.refuse("forbidden_attribute", f"access to attribute {args[1]!r} is not allowed")
    if event in ("object.__setattr__", "object.__delattr__"):
        if args[1] not in DANGEROUS_SETATTR or _caller_module() in TRUSTED_SETATTR_CALLERS:
            return
        raise GUARD.refuse("forbidden_attribute", f"changing attribute {args[1]!r} is not allowed")
    raise GUARD.refuse("forbidden_operation", f"{event} is not allowed in eval functions")


# --- the restricted namespace -------------------------------------------------------------


class ReadOnlyModule(types.ModuleType):
    """What ``import json`` gives eval code: the module's public names, read-only."""

    def __getattr__(self, name: str) -> Any:
        # Submodules imported after the proxy was built (``import collections.abc``).
        real = _PROXIED.get(self.__name__)
        if real is not None and not name.startswith("_"):
            value = getattr(real, name, None)
            if isinstance(value, types.ModuleType) and _is_submodule(real, name, value):
                return module_proxy(value)
        raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"module {self.__name__!r} is read-only in eval functions")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"module {self.__name__!r} is read-only in eval functions")


_PROXIED: dict[str, types.ModuleType] = {}
_PROXIES: dict[str, ReadOnlyModule] = {}


def _is_submodule(module: types.ModuleType, name: str, value: types.ModuleType) -> bool:
    return sys.modules.get(f"{module.__name__}.{name}") is value


def module_proxy(module: types.ModuleType) -> ReadOnlyModule:
    name = module.__name__
    proxy = _PROXIES.get(name)
    if proxy is not None and _PROXIED.get(name) is module:
        return proxy
    proxy = ReadOnlyModule(name, module.__doc__)
    _PROXIES[name] = proxy
    _PROXIED[name] = module
    namespace = proxy.__dict__
    for attr, value in list(vars(module).items()):
        if attr.startswith("_"):
            continue
        if isinstance(value, types.ModuleType):
            if _is_submodule(module, attr, value):
                namespace[attr] = module_proxy(value)
            continue  # a module it imported (datetime.sys, typing.sys, ...)
        namespace[attr] = value
    public = getattr(module, "__all__", None)
    if isinstance(public, list | tuple):
        namespace["__all__"] = [n for n in public if isinstance(n, str) and n in namespace]
    return proxy


def _as_name(name: object) -> object:
    # A str subclass could lie in startswith/__eq__; check the plain string value.
    return str.__str__(name) if isinstance(name, str) else name


def _make_import(allowed: frozenset[str]) -> Any:
    def restricted_import(
        name: str, globals: object = None, locals: object = None, fromlist: Any = (), level: int = 0
    ) -> ReadOnlyModule:
        name = _as_name(name)  # type: ignore[assignment]
        if not isinstance(name, str):
            raise TypeError("module name must be a string")
        if type(fromlist) is list:
            # Only C code passes a list (PyImport_Import, e.g. datetime.strptime importing
            # _strptime); it reads the module from sys.modules, eval code never sees it.
            importlib.import_module(name)
            return module_proxy(sys.modules[name.partition(".")[0]])
        if level:
            raise GUARD.refuse("import_not_allowed", f"relative import of {name!r} is not allowed")
        if not _policy.import_allowed(name, allowed):
            raise GUARD.refuse("import_not_allowed", _policy.import_message(name, allowed))
        module = importlib.import_module(name)
        if not fromlist:
            return module_proxy(sys.modules[name.partition(".")[0]])
        for item in fromlist:
            item = _as_name(item)
            if not isinstance(item, str) or item == "*":
                continue
            if _policy.is_forbidden_attribute(item) or item.startswith("_"):
                raise GUARD.refuse("import_not_allowed", f"importing {item!r} from {name!r} is not allowed")
            if not hasattr(module, item):
                try:
                    importlib.import_module(f"{name}.{item}")
                except ImportError:
                    pass  # the ImportFrom opcode reports the missing name
        return module_proxy(module)

    return restricted_import


_MISSING = object()


def safe_getattr(obj: object, name: str, default: object = _MISSING) -> object:
    name = _as_name(name)  # type: ignore[assignment]
    if isinstance(name, str) and _policy.is_forbidden_attribute(name):
        raise GUARD.refuse("forbidden_attribute", f"access to attribute {name!r} is not allowed")
    if default is _MISSING:
        return getattr(obj, name)
    return getattr(obj, name, default)


def _check_change(obj: object, name: object, verb: str) -> None:
    if isinstance(name, str) and _policy.is_forbidden_attribute(name):
        raise GUARD.refuse("forbidden_attribute", f"{verb} attribute {name!r} is not allowed")
    # Library classes are shared by every eval that runs in this worker.
    if isinstance(obj, type) and obj.__module__ != USER_MODULE:
        raise GUARD.refuse(
            "forbidden_attribute",
            f"{verb} attribute {name!r} of the library class {obj.__name__!r} is not allowed",
        )


def safe_setattr(obj: object, name: str, value: object) -> None:
    name = _as_name(name)  # type: ignore[assignment]
    _check_change(obj, name, "setting")
    setattr(obj, name, value)


def safe_delattr(obj: object, name: str) -> None:
    name = _as_name(name)  # type: ignore[assignment]
    _check_change(obj, name, "deleting")
    delattr(obj, name)


def make_builtins(allowed: frozenset[str]) -> dict[str, Any]:
    safe: dict[str, Any] = {name: getattr(builtins, name) for name in SAFE_BUILTINS}
    for name, value in vars(builtins).items():
        if isinstance(value, type) and issubclass(value, BaseException):
            safe[name] = value
    safe.update(
        __import__=_make_import(allowed),
        getattr=safe_getattr,
        setattr=safe_setattr,
        delattr=safe_delattr,
        LLMError=LLMError,
    )
    return safe
