"""What eval code may do, and the static (AST) check that enforces it before anything runs.

Stdlib-only on purpose: the worker process imports this module as a top-level module
(it runs with ``-I -S``, so the ``agenteval`` package is not importable there).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import NamedTuple

DEFAULT_ALLOWED_IMPORTS: tuple[str, ...] = (
    "json",
    "re",
    "typing",
    "math",
    "datetime",
    "difflib",
    # Pure computation with no I/O, and nothing that reads attributes by a string name.
    "collections",
    "itertools",
    "functools",
    "statistics",
)
"""Modules eval code may import without the caller allowing more.

``string`` is left out on purpose: ``string.Formatter().get_field("0.__class__", ...)``
resolves dunder attributes by string and hands back the object. ``operator`` is left out
for ``attrgetter``. ``__future__`` is always importable (it only sets compiler flags).
"""

ALWAYS_ALLOWED_IMPORTS = frozenset({"__future__"})

SAFE_DUNDERS = frozenset(
    {
        "__name__",
        "__qualname__",
        "__doc__",
        "__init__",
        "__post_init__",
        "__str__",
        "__repr__",
        "__len__",
        "__iter__",
        "__next__",
        "__contains__",
        "__getitem__",
        "__setitem__",
        "__eq__",
        "__ne__",
        "__lt__",
        "__le__",
        "__gt__",
        "__ge__",
        "__hash__",
        "__enter__",
        "__exit__",
    }
)
"""Dunder attributes that only give back strings or bound methods of the same object."""

FRAME_ATTRIBUTES = frozenset(
    {
        "gi_frame",
        "gi_code",
        "gi_yieldfrom",
        "cr_frame",
        "cr_code",
        "cr_await",
        "ag_frame",
        "ag_code",
        "ag_await",
        "f_globals",
        "f_locals",
        "f_builtins",
        "f_back",
        "f_code",
        "f_trace",
        "tb_frame",
        "tb_next",
        "func_globals",
        "func_code",
    }
)
"""Non-dunder attributes that reach frames, code objects or another module's globals."""

FORBIDDEN_BUILTINS = frozenset(
    {
        "open",
        "exec",
        "eval",
        "compile",
        "__import__",
        "input",
        "breakpoint",
        "globals",
        "locals",
        "vars",
        "help",
        "exit",
        "quit",
        "copyright",
        "credits",
        "license",
        "__loader__",
        "__spec__",
        "__builtins__",
    }
)
"""Builtins eval code cannot use (absent from its ``__builtins__``)."""

SAFE_DUNDER_NAMES = frozenset({"__name__", "__doc__"})
"""Dunder *names* (not attributes) eval code may read."""

MAX_CODE_CHARS = 200_000


class Problem(NamedTuple):
    """One reason code may not run: a rule name and a message naming what was blocked."""

    rule: str
    message: str
    line: int = 0
    column: int = 0


class Analysis(NamedTuple):
    """The outcome of :func:`analyze`: problems (empty when the code may run) and the tree."""

    problems: list[Problem]
    function: str | None
    tree: ast.Module | None


def is_forbidden_attribute(name: str) -> bool:
    """Whether eval code may not read, write or delete an attribute of this name."""
    if name in FRAME_ATTRIBUTES:
        return True
    return name.startswith("__") and name.endswith("__") and name not in SAFE_DUNDERS


def import_allowed(name: str, allowed: frozenset[str]) -> bool:
    """Whether ``import name`` is allowed: its top-level package must be allowed."""
    return name.partition(".")[0] in allowed or name in ALWAYS_ALLOWED_IMPORTS


def allowed_set(extra: Iterable[str] | str = ()) -> frozenset[str]:
    """The import allowlist for one call: the defaults plus the caller's extra modules."""
    names = [extra] if isinstance(extra, str) else list(extra)
    for name in names:
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"allowed_imports takes top-level module names, got {name!r}")
    return frozenset(DEFAULT_ALLOWED_IMPORTS) | frozenset(names)


def describe_allowed(allowed: frozenset[str]) -> str:
    return ", ".join(sorted(allowed))


def import_message(name: str, allowed: frozenset[str]) -> str:
    return f"import of {name!r} is not allowed (allowed: {describe_allowed(allowed)})"


def find_eval_function(tree: ast.Module, function: str | None) -> tuple[str | None, Problem | None]:
    """The function to call: ``function`` if given, else the single top-level ``eval_*`` def."""
    defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    if function is not None:
        node = defs.get(function)
        if node is None:
            return None, Problem("no_eval_function", f"no top-level function named {function!r}")
    else:
        names = [name for name in defs if name.startswith("eval_")]
        if not names:
            return None, Problem(
                "no_eval_function", "no top-level function named eval_* (def eval_NAME(trace, ctx=None))"
            )
        if len(names) > 1:
            return None, Problem(
                "no_eval_function",
                f"more than one eval_* function ({', '.join(names)}); name the one to call",
            )
        node = defs[names[0]]
    if isinstance(node, ast.AsyncFunctionDef):
        return None, Problem("no_eval_function", f"{node.name} must be a plain def, not async def")
    return node.name, None


def _bound_names(tree: ast.Module) -> set[str]:
    """Every name the code binds anywhere (so a local ``input = ...`` is not a builtin use)."""
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            bound.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).partition(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            bound.add(node.rest)
    return bound


def _imported_names(tree: ast.Module) -> set[str]:
    """Names bound by import statements (modules and what was imported from them)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                names.add((alias.asname or alias.name).partition(".")[0])
    return names


def _root_name(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


class _Checker(ast.NodeVisitor):
    def __init__(self, allowed: frozenset[str], bound: set[str], imported: set[str]) -> None:
        self.allowed = allowed
        self.bound = bound
        self.imported = imported
        self.problems: list[Problem] = []

    def add(self, node: ast.AST, rule: str, message: str) -> None:
        line = getattr(node, "lineno", 0)
        # End column: in ``().__class__.__bases__`` the innermost (first read) ends first.
        column = getattr(node, "end_col_offset", 0) or 0
        self.problems.append(Problem(rule, f"line {line}: {message}", line, column))

    def attribute(self, node: ast.AST, name: str) -> None:
        if is_forbidden_attribute(name):
            self.add(node, "forbidden_attribute", f"access to attribute {name!r} is not allowed")

    def alias_name(self, node: ast.AST, alias: ast.alias) -> None:
        if alias.asname and alias.asname.startswith("__") and alias.asname.endswith("__"):
            self.add(node, "forbidden_builtin", f"use of the name {alias.asname!r} is not allowed")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.alias_name(node, alias)
            if not import_allowed(alias.name, self.allowed):
                self.add(node, "import_not_allowed", import_message(alias.name, self.allowed))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level:
            self.add(node, "import_not_allowed", f"relative import from {'.' * node.level}{module!r}")
        elif not import_allowed(module, self.allowed):
            self.add(node, "import_not_allowed", import_message(module, self.allowed))
        for alias in node.names:
            self.alias_name(node, alias)
            self.attribute(node, alias.name)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.attribute(node, node.attr)
        if isinstance(node.ctx, ast.Store | ast.Del):
            # Workers are shared by all eval code: patching a library (json.loads = ...,
            # JSONDecoder.decode = ...) would change how other evals run.
            root = _root_name(node.value)
            if root is not None and root in self.imported:
                self.add(
                    node,
                    "forbidden_attribute",
                    f"changing attribute {node.attr!r} of the imported {root!r} is not allowed",
                )
        self.generic_visit(node)

    def visit_MatchClass(self, node: ast.MatchClass) -> None:
        # ``case object(__class__=c)`` reads attributes by keyword name.
        for name in node.kwd_attrs:
            self.attribute(node, name)
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        name = node.id
        is_dunder = name.startswith("__") and name.endswith("__")
        if is_dunder and (name not in SAFE_DUNDER_NAMES or not isinstance(node.ctx, ast.Load)):
            self.add(node, "forbidden_builtin", f"use of the name {name!r} is not allowed")
        elif name in FORBIDDEN_BUILTINS and name not in self.bound:
            self.add(node, "forbidden_builtin", f"the builtin {name!r} is not available in eval functions")

    def visit_Global(self, node: ast.Global) -> None:
        for name in node.names:
            if name.startswith("__") and name.endswith("__"):
                self.add(node, "forbidden_builtin", f"use of the name {name!r} is not allowed")

    visit_Nonlocal = visit_Global  # type: ignore[assignment]


def analyze(code: str, allowed: frozenset[str], function: str | None = None) -> Analysis:
    """Parse ``code`` and check it against the policy; never raises on bad code."""
    if not isinstance(code, str):
        return Analysis([Problem("syntax_error", "code must be a string")], None, None)
    if len(code) > MAX_CODE_CHARS:
        return Analysis(
            [Problem("syntax_error", f"code is {len(code)} characters (limit {MAX_CODE_CHARS})")], None, None
        )
    try:
        tree = ast.parse(code, filename="<eval>", mode="exec")
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", 0) or 0
        msg = getattr(exc, "msg", None) or str(exc)
        return Analysis([Problem("syntax_error", f"line {line}: {msg}", line)], None, None)
    except (RecursionError, MemoryError):
        return Analysis([Problem("syntax_error", "code is nested too deeply to parse")], None, None)
    checker = _Checker(allowed, _bound_names(tree), _imported_names(tree))
    try:
        checker.visit(tree)
    except RecursionError:
        return Analysis([Problem("syntax_error", "code is nested too deeply to check")], None, None)
    problems = sorted(checker.problems, key=lambda p: (p.line, p.column))
    name, missing = find_eval_function(tree, function)
    if missing is not None:
        problems.append(missing)
    return Analysis(problems, name, tree)
