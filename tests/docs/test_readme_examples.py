"""The README's client examples run as written against a real embedded stack."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agenteval.cli.stack import EmbeddedStack

ROOT = Path(__file__).resolve().parents[2]


def readme_example(name: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(rf"<!-- readme-example: {name} -->\n```python\n(.*?)```", text, re.S)
    assert found, f"README.md has no example marked {name!r}"
    return found.group(1)


@pytest.mark.timeout(180)
async def test_the_stream_client_example_prints_every_verdict(tmp_path: Path) -> None:
    script = tmp_path / "client.py"
    script.write_text(readme_example("stream-client"))
    async with EmbeddedStack(tmp_path / "data") as stack:
        proc = await asyncio_subprocess(script, stack.target)
    out = proc.stdout.splitlines()
    assert proc.returncode == 0, proc.stderr
    verdicts = [line for line in out if " #" in line]
    assert sorted(line.split()[1] + line.split()[2] for line in verdicts) == sorted(
        f"greet-{i}#{t}" for i in range(4) for t in range(3)
    ), out
    assert out[-1].startswith("done: ") and out[-1].endswith("/12 passed")


async def asyncio_subprocess(script: Path, target: str) -> subprocess.CompletedProcess[str]:
    import asyncio

    env = {**os.environ, "AGENTEVAL_SERVER": target, "PYTHONPATH": str(ROOT)}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(script), cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout=150)
    return subprocess.CompletedProcess([], proc.returncode or 0, out.decode(), err.decode())
