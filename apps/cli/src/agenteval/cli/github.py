"""``agent-eval github comment``: post or update one pull request comment (the GitHub Action's).

Talks to the GitHub REST API with the standard library. Where it posts comes from the
environment a workflow has (``GITHUB_REPOSITORY``, ``GITHUB_EVENT_PATH``, ``GITHUB_API_URL``,
``GITHUB_TOKEN``) unless options say otherwise. The comment is found again by a hidden
marker line, so each push updates it instead of adding another.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from pathlib import Path
from typing import Annotated, Any

import typer

from agenteval.cli import app, err, fail, out

github_app = typer.Typer(help="GitHub pull requests: the report as one comment, updated on every push.")
app.add_typer(github_app, name="github")

_PER_PAGE = 100
_MAX_PAGES = 50


class GitHubError(Exception):
    """The API answered with an error, or could not be reached."""


def pr_number_from_event(event_path: str) -> int | None:
    """The pull request number of a workflow's event payload (pull_request or issue_comment)."""
    try:
        event = json.loads(Path(event_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    for key in ("pull_request", "issue"):
        number = (event.get(key) or {}).get("number") if isinstance(event, dict) else None
        if isinstance(number, int):
            return number
    return None


class GitHub:
    """The few REST calls the comment needs."""

    def __init__(self, api_url: str, token: str, timeout_s: float = 30.0) -> None:
        self.api_url = api_url.rstrip("/")
        self.token = token
        self.timeout_s = timeout_s

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(f"{self.api_url}{path}", data=data, method=method)
        req.add_header("Accept", "application/vnd.github+json")
        req.add_header("X-GitHub-Api-Version", "2022-11-28")
        req.add_header("User-Agent", "agenteval-action")
        if self.token:
            req.add_header("Authorization", f"Bearer {self.token}")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode(errors="replace")[:300]
            raise GitHubError(f"{method} {path}: HTTP {exc.code}: {detail}") from None
        except (urllib.error.URLError, OSError) as exc:
            raise GitHubError(f"{method} {path}: cannot reach {self.api_url}: {exc}") from None
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            raise GitHubError(f"{method} {path}: the answer is not JSON") from None

    def find_comment(self, repo: str, number: int, marker: str) -> dict[str, Any] | None:
        for page in range(1, _MAX_PAGES + 1):
            found = self.call(
                "GET", f"/repos/{repo}/issues/{number}/comments?per_page={_PER_PAGE}&page={page}"
            )
            if not isinstance(found, list):
                raise GitHubError("listing the comments did not give a list")
            for comment in found:
                if isinstance(comment, dict) and marker in str(comment.get("body") or ""):
                    return comment
            if len(found) < _PER_PAGE:
                return None
        return None

    def upsert_comment(self, repo: str, number: int, marker: str, body: str) -> tuple[str, dict[str, Any]]:
        """Update the comment carrying ``marker``, or create it; ('updated' | 'created', comment)."""
        text = body if marker in body else f"{marker}\n{body}"
        existing = self.find_comment(repo, number, marker)
        if existing is not None:
            return "updated", self.call(
                "PATCH", f"/repos/{repo}/issues/comments/{existing['id']}", {"body": text}
            )
        return "created", self.call("POST", f"/repos/{repo}/issues/{number}/comments", {"body": text})


@github_app.command()
def comment(
    body_file: Annotated[Path, typer.Option("--body-file", help="Markdown of the comment.")],
    marker: Annotated[
        str, typer.Option(help="Hidden marker that finds the comment again (an HTML comment is made of it).")
    ] = "agenteval-report",
    pr: Annotated[
        int | None, typer.Option("--pr", help="Pull request number (default: from GITHUB_EVENT_PATH).")
    ] = None,
    repo: Annotated[
        str | None, typer.Option(help="owner/name (default: GITHUB_REPOSITORY).", envvar="GITHUB_REPOSITORY")
    ] = None,
    api_url: Annotated[
        str, typer.Option(help="REST API base URL (default: GITHUB_API_URL).", envvar="GITHUB_API_URL")
    ] = "https://api.github.com",
) -> None:
    """Post the report as a pull request comment, or update the one posted before."""
    token = os.environ.get("GITHUB_TOKEN", "")
    if not token:
        fail("GITHUB_TOKEN is not set: the comment needs a token with pull-requests: write", 2)
    if not repo or "/" not in repo:
        fail("no repository: set GITHUB_REPOSITORY or --repo owner/name", 2)
    number = pr if pr is not None else pr_number_from_event(os.environ.get("GITHUB_EVENT_PATH", ""))
    if number is None:
        fail("no pull request: this event has none (give --pr N)", 2)
    assert number is not None and repo is not None
    try:
        body = body_file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"cannot read {body_file}: {exc}", 2)
    tag = f"<!-- {marker} -->"
    try:
        action, made = GitHub(api_url, token).upsert_comment(repo, number, tag, body)
    except GitHubError as exc:
        fail(str(exc))
    url = made.get("html_url", "") if isinstance(made, dict) else ""
    err.print(f"{action} the comment on {repo}#{number} {url}".rstrip(), highlight=False, markup=False)
    out.print(action, highlight=False, markup=False)
