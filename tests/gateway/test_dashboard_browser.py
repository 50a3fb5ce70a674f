"""The dashboard in a real browser (headless Chromium through Playwright) against a real
embedded stack: every page, a suite created and edited in the browser (a new version), its
diff, a run submitted from the page and watched live until it completes, a transcript, a
comparison, the empty states and error pages, and the login of a server with tokens.

Screenshots go to AGENTEVAL_SCREENSHOTS (default: the test's tmp dir)."""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agenteval.contracts.suite import Suite
from agenteval.runtime.auth import TokenEntry, TokensFile, digest, write_tokens_file
from agenteval.sdk import Client
from tests.gateway.web_stack import SUITE_YAML, web_stack
from tests.required import missing

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:  # .ci/run installs it; a developer machine may lack it
    missing("chromium (apt-get install chromium)")


@pytest.fixture
async def browser() -> AsyncIterator[object]:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        b = await pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield b
        finally:
            await b.close()


def shots(tmp_path: Path) -> Path:
    where = Path(os.environ.get("AGENTEVAL_SCREENSHOTS") or tmp_path / "screenshots")
    where.mkdir(parents=True, exist_ok=True)
    return where


async def test_every_page_editing_a_suite_and_watching_a_run(browser: object, tmp_path: Path) -> None:
    out = shots(tmp_path)
    async with web_stack(tmp_path / "data") as (stack, base):
        page = await browser.new_page(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))

        # Empty states.
        await page.goto(base + "/")
        assert "No runs yet" in await page.inner_text("main")
        await page.goto(base + "/evals")
        assert "No eval function yet" in await page.inner_text("main")

        # A suite created in the browser, then edited: a new version, and the diff shows the change.
        await page.goto(base + "/suites")
        await page.fill("textarea[name=suite_yaml]", SUITE_YAML)
        await page.click("text=Create suite")
        await page.wait_for_url(base + "/suites/web_suite")
        assert "v1" in await page.inner_text("h1")
        edited = SUITE_YAML.replace("input: flip again", "input: flip once more")
        await page.fill("textarea[name=suite_yaml]", edited)
        await page.click("text=Save as a new version")
        await page.wait_for_url(base + "/suites/web_suite")
        assert "v2" in await page.inner_text("h1")
        await page.select_option("select[name=base]", "1")
        await page.select_option("select[name=target]", "2")
        await page.click("text=Show the diff")
        diff = await page.inner_text("#diff")
        assert "modified" in diff and "says_tails" in diff and "flip once more" in diff
        await page.screenshot(path=str(out / "suite.png"), full_page=True)
        # A broken edit is refused with the reason, and the text is kept.
        await page.goto(base + "/suites/web_suite")
        await page.fill("textarea[name=suite_yaml]", "name: web_suite\ncases: 3\n")
        await page.click("text=Save as a new version")
        assert "cases" in await page.inner_text("#form-error")
        assert "cases: 3" in await page.input_value("textarea[name=suite_yaml]")

        # Run version 2 from its page, one trial at a time, and watch it progress to the end.
        await page.goto(base + "/suites/web_suite")
        await page.fill("input[name=k]", "6")
        await page.fill("input[name=agent_version]", "v2")
        await page.click("text=Run v2")
        await page.wait_for_url(f"{base}/runs/run-*")
        run_id = page.url.rsplit("/", 1)[1]
        if await page.locator("#live").count():
            await page.wait_for_function(
                "document.getElementById('progress') === null || document.getElementById('progress').value > 0"
            )
        await page.wait_for_selector("#run-status .status.completed", timeout=120_000)
        text = await page.inner_text("main")
        assert "12 trials passed" not in text or "pass rate" in text
        assert "says_heads" in text and "pass@1" in text and "pass@6" in text and "pass^6" in text
        assert await page.locator("svg.chart").count() >= 2  # pass-rate bars, latency
        await page.screenshot(path=str(out / "run.png"), full_page=True)

        # Live progress: a run one trial at a time, watched from its page until it ends.
        async with Client(stack.target) as client:
            slow = await client.submit_stored("web_suite", k=15, concurrency=1, agent_version="live")
        await page.goto(f"{base}/runs/{slow.run_id}")
        assert await page.locator("#live").count() == 1
        first = int(await page.get_attribute("#progress", "value") or 0)
        await page.wait_for_function(
            f"document.getElementById('progress') && document.getElementById('progress').value > {first}"
        )  # the bar moved without a reload
        await page.screenshot(path=str(out / "live.png"))
        await page.wait_for_selector("#run-status .status.completed", timeout=120_000)  # reloaded at the end
        assert "/30 trials passed" in await page.inner_text("main")  # 15 trials of each of 2 cases
        await page.goto(f"{base}/runs/{run_id}")

        # A trial's transcript: the input, the answer, the grader's verdict and explanation.
        await page.click("table.trials a >> nth=0")
        await page.wait_for_url(f"{base}/trials/**")
        transcript = await page.inner_text("main")
        assert "final answer" in transcript and "output_contains" in transcript
        assert "flip" in transcript

        # Tool calls in a transcript: the tool, its arguments and its result, and the LLM call.
        tools_suite = Suite.model_validate(
            {
                "name": "tools",
                "agent": "python:tests.agents:echo_tool",
                "cases": [{"id": "ask", "input": "hello"}],
            }
        )
        async with Client(stack.target) as client:
            tool_run = await client.wait((await client.submit(tools_suite, k=1)).run_id)
            [tool_trial] = await client.trials(tool_run.run_id, with_traces=False)
        await page.goto(f"{base}/trials/{tool_trial.trial_id}")
        steps = await page.inner_text(".transcript")
        assert "tool call" in steps and "lookup" in steps and '"query": "hello"' in steps and "HELLO" in steps
        assert "LLM call" in steps and "claude-haiku-4-5" in steps
        await page.screenshot(path=str(out / "transcript.png"), full_page=True)

        # A second run, then the comparison with its verdict and Markdown report.
        await page.goto(base + "/suites/web_suite")
        await page.fill("input[name=agent_version]", "v3")
        await page.click("text=Run v2")
        await page.wait_for_selector("#run-status .status.completed", timeout=120_000)
        other = page.url.rsplit("/", 1)[1]
        await page.goto(base + "/compare")
        await page.fill("input[name=baseline]", run_id)
        await page.fill("input[name=candidate]", other)
        await page.click("button:has-text('Compare')")
        report = await page.inner_text("main")
        assert ("PASSED" in report or "FAILED" in report) and "Unchanged" in report
        assert "says_heads" in await page.input_value("#markdown")
        await page.screenshot(path=str(out / "compare.png"), full_page=True)

        # Overview and runs list with filters; full ids and a copy button.
        await page.goto(base + "/")
        assert await page.locator("svg.chart").count() == 1
        assert run_id in await page.inner_text("table.runs")
        await page.screenshot(path=str(out / "overview.png"), full_page=True)
        await page.goto(base + "/runs?agent_version=v3")
        rows = await page.locator("table.runs tbody tr").count()
        assert rows == 1 and other in await page.inner_text("table.runs")
        assert await page.locator(f"button.copy[data-copy='{other}']").count() == 1
        await page.goto(base + "/runs?status=failed")
        assert "No run matches" in await page.inner_text("main")

        # Error pages.
        response = await page.goto(base + "/runs/run-does-not-exist")
        assert response is not None and response.status == 404
        assert "no run" in await page.inner_text("main")
        response = await page.goto(base + "/no/such/page")
        assert response is not None and response.status == 404
        assert errors == [], errors


async def test_login_on_a_server_with_tokens(
    browser: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tokens = tmp_path / "tokens.yaml"
    write_tokens_file(
        tokens, TokensFile(tokens=[TokenEntry(name="a", sha256=digest("aev_a"), projects=["alpha"])])
    )
    monkeypatch.setenv("AGENTEVAL_TOKENS_FILE", str(tokens))
    async with web_stack(tmp_path / "data") as (_, base):
        page = await browser.new_page()  # type: ignore[attr-defined]
        await page.goto(base + "/runs")
        assert page.url.startswith(base + "/login")
        await page.fill("input[name=token]", "aev_wrong")
        await page.click("button:has-text('Log in')")
        assert "not known" in await page.inner_text("#form-error")
        await page.fill("input[name=token]", "aev_a")
        await page.click("button:has-text('Log in')")
        await page.wait_for_url(base + "/runs")
        assert "Runs" in await page.inner_text("h1")
        await page.click("button:has-text('Log out')")
        await page.goto(base + "/suites")
        assert page.url.startswith(base + "/login")
