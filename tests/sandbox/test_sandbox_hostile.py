"""The hostile corpus: each attempt is stopped with an error naming the rule, and the same
pool (2 workers) serves a normal call right after.

Process-creation attempts fork or spawn at most once and the child exits at once, so even
if every wall failed the damage would be one short-lived process; each such test first
checks that the audit wall is up with a harmless probe.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import NamedTuple

import pytest
import pytest_asyncio

from agenteval.sandbox import SandboxLimits, SandboxPool

pytestmark = pytest.mark.asyncio(loop_scope="module")

LIMITS = SandboxLimits(memory_mb=256, max_error_chars=500)
NORMAL = "def eval_normal(trace):\n    return trace['n'] / 10, 'normal ' + str(trace['n'])"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def pool() -> AsyncIterator[SandboxPool]:
    async with SandboxPool(workers=2, limits=LIMITS) as p:
        yield p


async def assert_still_serving(pool: SandboxPool) -> None:
    results = await pool.run_batch(NORMAL, [{"n": n} for n in range(4)])
    assert [(r.score, r.explanation, r.error) for r in results] == [
        (n / 10, f"normal {n}", None) for n in range(4)
    ]


class Hostile(NamedTuple):
    code: str
    rule: str
    fragment: str
    allowed: tuple[str, ...] = ()


def fn(body: str, header: str = "") -> str:
    """Eval code whose function body is ``body`` (4-space indented lines)."""
    lines = "\n".join("    " + line for line in body.strip("\n").splitlines())
    return f"{header}\ndef eval_hostile(trace, ctx=None):\n{lines}\n"


CORPUS = {
    # imports
    "import_os": Hostile(fn("return 1.0, ''", "import os"), "import_not_allowed", "import of 'os'"),
    "import_subprocess": Hostile(
        fn("return 1.0, ''", "import subprocess"), "import_not_allowed", "import of 'subprocess'"
    ),
    "import_socket": Hostile(
        fn("from socket import socket\nreturn 1.0, ''"), "import_not_allowed", "import of 'socket'"
    ),
    "dunder_import": Hostile(fn("__import__('os')\nreturn 1.0, ''"), "forbidden_builtin", "'__import__'"),
    "builtins_dict": Hostile(
        fn("return 1.0, __builtins__['open']('/etc/passwd').read()"), "forbidden_builtin", "'__builtins__'"
    ),
    "module_proxy_has_no_sys": Hostile(
        fn("return 1.0, str(typing.sys.modules['os'])", "import typing"), "exception", "no attribute 'sys'"
    ),
    # files
    "open_read_passwd": Hostile(fn("return 1.0, open('/etc/passwd').read()"), "forbidden_builtin", "'open'"),
    "open_write": Hostile(
        fn("open('/tmp/pwned', 'w').write('x')\nreturn 1.0, ''"), "forbidden_builtin", "'open'"
    ),
    "pathlib_read_passwd": Hostile(
        fn("return 1.0, pathlib.Path('/etc/passwd').read_text()", "import pathlib"),
        "forbidden_operation",
        "open('/etc/passwd', 'r')",
        ("pathlib",),
    ),
    "io_open_passwd": Hostile(
        fn("return 1.0, io.open('/etc/passwd', 'rb').read().decode()", "import io"),
        "forbidden_operation",
        "open('/etc/passwd'",
        ("io",),
    ),
    "os_remove": Hostile(
        fn("os.remove('/tmp/agenteval-nothing-here')\nreturn 1.0, ''", "import os"),
        "forbidden_operation",
        "os.remove",
        ("os",),
    ),
    "os_listdir": Hostile(
        fn("return 1.0, str(os.listdir('/'))", "import os"), "forbidden_operation", "os.listdir('/')", ("os",)
    ),
    # attribute walks
    "subclasses_walk": Hostile(
        fn("return 1.0, str(().__class__.__bases__[0].__subclasses__())"),
        "forbidden_attribute",
        "'__class__'",
    ),
    "type_subclasses": Hostile(
        fn("return 1.0, str(type.__subclasses__(object))"), "forbidden_attribute", "'__subclasses__'"
    ),
    "getattr_concat": Hostile(
        fn("c = getattr((), '__cla' + 'ss__')\nreturn 1.0, str(c)"), "forbidden_attribute", "'__class__'"
    ),
    "getattr_alias_walk": Hostile(
        fn(
            "g = getattr\n"
            "base = g(g((), '_' + '_class__'), '__base' + '__')\n"
            "return 1.0, str(g(base, '__subclass' + 'es__')())"
        ),
        "forbidden_attribute",
        "'__class__'",
    ),
    "getattr_type_subclasses": Hostile(
        fn("return 1.0, str(getattr(type, '__subclas' + 'ses__')(object))"),
        "forbidden_attribute",
        "'__subclasses__'",
    ),
    "getattr_str_subclass": Hostile(
        fn(
            "class S(str):\n"
            "    def startswith(self, *a):\n"
            "        return False\n"
            "    def endswith(self, *a):\n"
            "        return False\n"
            "return 1.0, str(getattr((), S('__cl' + 'ass__')))"
        ),
        "forbidden_attribute",
        "'__class__'",
    ),
    "getattr_globals": Hostile(
        fn("return 1.0, str(getattr(eval_hostile, '__glo' + 'bals__'))"),
        "forbidden_attribute",
        "'__globals__'",
    ),
    "generator_frame": Hostile(
        fn("gen = (x for x in [1])\nreturn 1.0, str(getattr(gen, 'gi_' + 'frame'))"),
        "forbidden_attribute",
        "'gi_frame'",
    ),
    "vars_globals_locals": Hostile(
        fn("return 1.0, str(vars()) + str(globals())"), "forbidden_builtin", "'vars'"
    ),
    "setattr_library_class": Hostile(
        fn("setattr(json.JSONDecoder, 'decode', None)\nreturn 1.0, ''", "import json"),
        "forbidden_attribute",
        "library class 'JSONDecoder'",
    ),
    "caught_violation_still_counts": Hostile(
        fn(
            "try:\n    getattr((), '__cla' + 'ss__')\nexcept BaseException:\n    pass\nreturn 1.0, 'got away'"
        ),
        "forbidden_attribute",
        "'__class__'",
    ),
    # dynamic code
    "eval_builtin": Hostile(fn("return 1.0, str(eval('1 + 1'))"), "forbidden_builtin", "'eval'"),
    "type_hints_compile": Hostile(
        fn(
            "def f(x: \"__import__('os').system('id')\"):\n"
            "    pass\n"
            "return 1.0, str(typing.get_type_hints(f, {}, {}))",
            "import typing",
        ),
        "forbidden_operation",
        "dynamic code",
    ),
    # limits
    "memory_bomb_at_once": Hostile(
        fn("return 1.0, str(len(bytearray(2 ** 36)))"), "memory_limit", "out of memory"
    ),
    "memory_bomb_growing": Hostile(
        fn("blocks = []\nwhile True:\n    blocks.append(bytearray(32 * 2 ** 20))"),
        "memory_limit",
        "out of memory",
    ),
    "recursion_bomb": Hostile(
        fn("def down(n):\n    return down(n + 1)\nreturn 1.0, str(down(0))"), "recursion_limit", "recursion"
    ),
    "recursion_in_repr": Hostile(
        fn("a = []\nfor _ in range(200000):\n    a = [a]\nreturn 1.0, repr(a)"),
        "recursion_limit",
        "recursion",
    ),
    "huge_output": Hostile(fn("return 1.0, 'x' * 10_000_000"), "output_too_large", "limit 8192"),
    "exit": Hostile(fn("raise SystemExit(0)"), "exception", "SystemExit"),
    "keyboard_interrupt": Hostile(fn("raise KeyboardInterrupt"), "exception", "KeyboardInterrupt"),
}


@pytest.mark.parametrize("case", CORPUS.values(), ids=CORPUS.keys())
async def test_hostile_code_is_stopped_with_its_rule(pool: SandboxPool, case: Hostile) -> None:
    result = await pool.run(case.code, {"n": 1}, allowed_imports=case.allowed)
    assert result.error is not None, f"not stopped: {result}"
    assert result.error.rule == case.rule, result.error
    assert case.fragment in result.error.message, result.error
    assert result.score is None
    await assert_still_serving(pool)


async def test_infinite_loop_times_out(pool: SandboxPool) -> None:
    result = await pool.run(fn("while True:\n    pass"), {}, timeout_s=0.5)
    assert result.error is not None and result.error.rule == "timeout"
    await assert_still_serving(pool)


async def test_exception_with_a_huge_message_is_truncated(pool: SandboxPool) -> None:
    result = await pool.run(fn("raise ValueError('A' * 5_000_000)"), {})
    assert result.error is not None and result.error.rule == "exception"
    assert result.error.message.startswith("ValueError (line 3): AAAA")
    assert "truncated, 5000021 characters" in result.error.message
    assert len(result.error.message) < LIMITS.max_error_chars + 100
    await assert_still_serving(pool)


async def test_recursion_bombs_leave_the_worker_alive(pool: SandboxPool) -> None:
    await assert_still_serving(pool)
    before = set(pool.worker_pids())
    code = fn("def down(n):\n    return down(n + 1)\nreturn 1.0, str(down(0))")
    results = await pool.run_batch(code, [{}] * 8)
    assert {r.error.rule for r in results if r.error} == {"recursion_limit"}
    assert set(pool.worker_pids()) == before


async def test_write_attempts_leave_no_file(pool: SandboxPool, tmp_path: Path) -> None:
    target = tmp_path / "pwned.txt"
    for code, allowed in [
        (
            fn(f"pathlib.Path({str(target)!r}).write_text('x')\nreturn 1.0, ''", "import pathlib"),
            ("pathlib",),
        ),
        (fn(f"os.open({str(target)!r}, os.O_WRONLY | os.O_CREAT)\nreturn 1.0, ''", "import os"), ("os",)),
    ]:
        result = await pool.run(code, {}, allowed_imports=allowed)
        assert result.error is not None and result.error.rule == "forbidden_operation", result.error
        assert str(target) in result.error.message
    assert not target.exists()
    await assert_still_serving(pool)


async def test_workers_see_no_secrets_from_the_environment(pool: SandboxPool) -> None:
    result = await pool.run(
        fn("return 1.0, ','.join(sorted(os.environ))", "import os"), {}, allowed_imports=["os"]
    )
    assert result.error is None, result.error
    assert set(result.explanation.split(",")) <= {"LANG", "LC_ALL"}


async def assert_audit_wall_is_up(pool: SandboxPool) -> None:
    probe = await pool.run(fn("return 1.0, str(os.listdir('/'))", "import os"), {}, allowed_imports=["os"])
    assert probe.error is not None and probe.error.rule == "forbidden_operation", "audit wall is down"


PROCESS_ATTEMPTS = {
    "os_fork": (
        "import os",
        "pid = os.fork()\nif pid == 0:\n    os._exit(0)\nos.waitpid(pid, 0)\nreturn 1.0, 'forked'",
        ("os",),
        "os.fork",
    ),
    "os_posix_spawn": (
        "import os",
        "pid = os.posix_spawn('/bin/true', ['true'], {})\nos.waitpid(pid, 0)\nreturn 1.0, 'spawned'",
        ("os",),
        "os.posix_spawn",
    ),
    "os_system": ("import os", "return 1.0, str(os.system('true'))", ("os",), "os.system"),
    "os_execv": ("import os", "os.execv('/bin/true', ['true'])", ("os",), "os.exec"),
    "os_kill": ("import os", "os.kill(os.getpid(), 9)", ("os",), "os.kill"),
    "subprocess_run": (
        "import subprocess",
        "return 1.0, str(subprocess.run(['true']).returncode)",
        ("subprocess",),
        "subprocess.Popen",
    ),
    "socket_connect": (
        "import socket",
        "s = socket.socket()\ns.connect(('127.0.0.1', 9))\nreturn 1.0, ''",
        ("socket",),
        "socket.",
    ),
    "ctypes": ("import ctypes", "return 1.0, str(ctypes.CDLL(None))", ("ctypes",), "ctypes."),
    "fork_caught_and_ignored": (
        "import os",
        "try:\n    os.fork()\nexcept BaseException:\n    pass\nreturn 1.0, 'carried on'",
        ("os",),
        "os.fork",
    ),
}


@pytest.mark.parametrize("attempt", PROCESS_ATTEMPTS.values(), ids=PROCESS_ATTEMPTS.keys())
async def test_process_creation_and_escape_routes_are_blocked_by_the_audit_hook(
    pool: SandboxPool, attempt: tuple[str, str, tuple[str, ...], str]
) -> None:
    await assert_audit_wall_is_up(pool)
    header, body, allowed, fragment = attempt
    result = await pool.run(fn(body, header), {}, allowed_imports=allowed)
    assert result.error is not None and result.error.rule == "forbidden_operation", result.error
    assert fragment in result.error.message
    await assert_still_serving(pool)
