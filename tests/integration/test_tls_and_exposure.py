"""TLS by configuration, tokens managed with the CLI, and no open server beyond loopback.

Real processes: ``agent-eval up`` as a subprocess, its gRPC reached over TLS with the SDK
client; the tokens file edited with ``agent-eval tokens`` while the server runs.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import grpc
import pytest

from agenteval.contracts.errors import Unauthenticated
from agenteval.runtime.nats_server import free_port
from agenteval.sdk import Client

AGENT_EVAL = [sys.executable, "-m", "agenteval.cli"]


def self_signed(where: Path) -> tuple[Path, Path]:
    cert, key = where / "cert.pem", where / "key.pem"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
            "-keyout", str(key), "-out", str(cert),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


def cli(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*AGENT_EVAL, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=120)


def base_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTEVAL_")}
    env["AGENTEVAL_DATA_DIR"] = str(tmp_path / "data")
    return env


async def wait_up(proc: subprocess.Popen[str]) -> str:
    """The line `agent-eval up` prints once it serves (or its error when it exits)."""
    assert proc.stderr is not None
    loop = asyncio.get_running_loop()
    text = ""
    while "Ctrl-C stops" not in text.replace("\n", " "):
        line = await loop.run_in_executor(None, proc.stderr.readline)
        if not line:
            raise AssertionError(f"agent-eval up exited ({proc.wait()}): {text}")
        text += line
    return " ".join(text.split())


async def test_tls_and_tokens_created_while_the_server_runs(tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path)
    tokens = tmp_path / "tokens.yaml"
    env = base_env(tmp_path)
    created = cli(
        "tokens", "create", "ci", "--project", "checkout", "--file", str(tokens), env=env, cwd=tmp_path
    )
    assert created.returncode == 0, created.stderr
    ci_token = created.stdout.strip()
    assert ci_token.startswith("aev_") and ci_token not in tokens.read_text()  # only its digest is kept
    assert "shown only this once" in created.stderr

    port = free_port()
    env.update(AGENTEVAL_TOKENS_FILE=str(tokens), AGENTEVAL_TLS_CERT=str(cert), AGENTEVAL_TLS_KEY=str(key))
    proc = subprocess.Popen(
        [*AGENT_EVAL, "up", "--address", f"127.0.0.1:{port}"],
        env=env,
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        banner = await wait_up(proc)
        assert "callers need a token" in banner
        target = f"127.0.0.1:{port}"
        async with Client(target, token=ci_token, tls_ca=cert) as client:
            assert await client.list_runs() == []
        # Plaintext does not reach a TLS server.
        async with grpc.aio.insecure_channel(target) as ch:
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await ch.unary_unary("/agenteval.v1.RunService/ListRuns")(b"", timeout=5)
            assert info.value.code() == grpc.StatusCode.UNAVAILABLE
        # A token created now works at once; a revoked one stops working (the file is re-read).
        second = cli("tokens", "create", "ops", "--admin", "--file", str(tokens), env=env, cwd=tmp_path)
        ops_token = second.stdout.strip()
        async with Client(target, token=ops_token, tls_ca=cert) as ops:
            for _ in range(50):
                try:
                    await ops.list_runs()
                    break
                except Unauthenticated:
                    await asyncio.sleep(0.2)
            else:
                raise AssertionError("a token created while the server runs was never accepted")
            listed = cli("tokens", "list", "--json", "--file", str(tokens), env=env, cwd=tmp_path)
            assert [
                (t["name"], t["projects"], t["admin"]) for t in __import__("json").loads(listed.stdout)
            ] == [
                ("ci", ["checkout"], False),
                ("ops", [], True),
            ]
            assert cli("tokens", "revoke", "ci", "--file", str(tokens), env=env, cwd=tmp_path).returncode == 0
            async with Client(target, token=ci_token, tls_ca=cert) as gone:
                for _ in range(50):
                    try:
                        await gone.list_runs()
                        await asyncio.sleep(0.2)
                    except Unauthenticated:
                        break
                else:
                    raise AssertionError("a revoked token was still accepted")
        # The CLI reads the token, the project and the CA from the environment.
        env_cli = {**env, "AGENTEVAL_TOKEN": ops_token, "AGENTEVAL_TLS_CA": str(cert)}
        runs = cli("runs", "--server", target, "--json", env=env_cli, cwd=tmp_path)
        assert runs.returncode == 0, runs.stderr
        denied = cli("runs", "--server", target, env={**env_cli, "AGENTEVAL_TOKEN": "aev_nope"}, cwd=tmp_path)
        assert denied.returncode == 1 and "not known to this server" in denied.stderr
        assert "Traceback" not in denied.stderr
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def test_a_server_refuses_to_listen_open_beyond_loopback(tmp_path: Path) -> None:
    env = base_env(tmp_path)
    refused = cli("up", "--address", "0.0.0.0:0", env=env, cwd=tmp_path)
    assert refused.returncode == 2
    assert "refusing to serve 0.0.0.0:0 without tokens" in " ".join(refused.stderr.split())
    assert "Traceback" not in refused.stderr
    # One service alone refuses the same way.
    alone = subprocess.run(
        [sys.executable, "-m", "agenteval.suite_store"],
        env={**env, "AGENTEVAL_SUITES_GRPC_ADDRESS": "0.0.0.0:0"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert alone.returncode == 2 and "refusing to serve" in alone.stderr


def test_tokens_cli_refuses_bad_input(tmp_path: Path) -> None:
    env = base_env(tmp_path)
    tokens = str(tmp_path / "t.yaml")
    no_scope = cli("tokens", "create", "x", "--file", tokens, env=env, cwd=tmp_path)
    assert no_scope.returncode == 2 and "--project" in no_scope.stderr
    bad = cli("tokens", "create", "x", "--project", "has space", "--file", tokens, env=env, cwd=tmp_path)
    assert bad.returncode == 2 and "letters, digits" in bad.stderr
    assert cli("tokens", "create", "x", "-p", "a", "--file", tokens, env=env, cwd=tmp_path).returncode == 0
    again = cli("tokens", "create", "x", "-p", "a", "--file", tokens, env=env, cwd=tmp_path)
    assert again.returncode == 2 and "exists" in again.stderr
    assert cli("tokens", "revoke", "nobody", "--file", tokens, env=env, cwd=tmp_path).returncode == 2
    Path(tokens).write_text("tokens: [{name: a, sha256: short}]\n")
    broken = cli("tokens", "list", "--file", tokens, env=env, cwd=tmp_path)
    assert broken.returncode == 2 and "tokens.0.sha256" in broken.stderr
    # A server with a broken tokens file does not start.
    up = cli("up", "--address", "127.0.0.1:0", env={**env, "AGENTEVAL_TOKENS_FILE": tokens}, cwd=tmp_path)
    assert up.returncode == 2 and "tokens.0.sha256" in up.stderr
