#!/usr/bin/env bash
# The agenteval pull request gate (the steps of action.yml, runnable anywhere):
#   install agenteval -> run the suite for this commit -> compare with the baseline ->
#   Markdown report -> post or update one PR comment -> outputs -> fail on regression if asked.
# Inputs come as INPUT_* variables (see action.yml); GitHub's own variables say where to post
# (GITHUB_REPOSITORY, GITHUB_EVENT_PATH, GITHUB_API_URL, GITHUB_TOKEN) and where outputs go
# (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY). Without them it still runs, compares and reports.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
: "${INPUT_SUITE:?the suite input is required}"
work="${RUNNER_TEMP:-$(mktemp -d)}/agenteval"
mkdir -p "$work"
py="${PYTHON:-python3}"

note() { printf '%s\n' "$*" >&2; }
json_get() {  # json_get FILE KEY: a top-level value of a JSON document
  "$py" -c 'import json,sys; v=json.load(open(sys.argv[1]))[sys.argv[2]]; print(json.dumps(v) if isinstance(v,(dict,list)) else v)' "$1" "$2"
}
set_output() {
  if [[ -n "${GITHUB_OUTPUT:-}" ]]; then printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"; fi
  note "output $1=$2"
}

# --- install ----------------------------------------------------------------------------------
install="${INPUT_INSTALL:-workspace}"
agent_eval="agent-eval"
if [[ "$install" != "skip" ]]; then
  venv="$work/venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --upgrade pip
  if [[ "$install" == "workspace" ]]; then
    # The repository this action lives in, at the versions of its lock file.
    root="$(cd "$here/../../.." && pwd)"
    "$venv/bin/pip" install -q "uv==0.13.8"
    (cd "$root" && UV_PROJECT_ENVIRONMENT="$venv" "$venv/bin/uv" sync -q --frozen --all-packages --no-dev)
  else
    "$venv/bin/pip" install -q "$install"
  fi
  agent_eval="$venv/bin/agent-eval"
  py="$venv/bin/python"
fi

# Every step talks to one agenteval: the given server, or an embedded stack kept up for this
# script (started once, not once per command), stopped on exit.
if [[ -n "${INPUT_SERVER:-}" ]]; then
  server="$INPUT_SERVER"
else
  port="$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  server="127.0.0.1:$port"
  "$agent_eval" up --data-dir "${INPUT_DATA_DIR:-.agenteval}" --address "$server" 2>"$work/up.log" &
  up_pid=$!
  trap 'kill -INT "$up_pid" 2>/dev/null; wait "$up_pid" 2>/dev/null || true' EXIT
  if ! "$py" - "$port" "$up_pid" <<'PY'
import os, socket, sys, time
port, pid = int(sys.argv[1]), int(sys.argv[2])
deadline = time.monotonic() + 120
while time.monotonic() < deadline:
    try:
        os.kill(pid, 0)
    except OSError:
        sys.exit(1)  # agent-eval up ended
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.2)
sys.exit(1)
PY
  then
    cat "$work/up.log" >&2
    note "::error::the embedded agenteval did not start"
    exit 1
  fi
fi
conn=(--server "$server")

# --- the version under test: the PR's head commit --------------------------------------------
version="${INPUT_AGENT_VERSION:-}"
if [[ -z "$version" ]]; then
  head_sha=""
  if [[ -n "${GITHUB_EVENT_PATH:-}" && -f "${GITHUB_EVENT_PATH}" ]]; then
    head_sha="$("$py" -c 'import json,sys; e=json.load(open(sys.argv[1])); print(((e.get("pull_request") or {}).get("head") or {}).get("sha") or "")' "$GITHUB_EVENT_PATH")"
  fi
  head_sha="${head_sha:-${GITHUB_SHA:-$(git rev-parse HEAD 2>/dev/null || echo local)}}"
  version="${head_sha:0:12}"
fi

# --- run ----------------------------------------------------------------------------------------
summary="$work/summary.json"
run_args=(run "$INPUT_SUITE" --agent-version "$version" --seed "${INPUT_SEED:-0}" --json "${conn[@]}")
[[ -n "${INPUT_AGENT:-}" ]] && run_args+=(--agent "$INPUT_AGENT")
[[ -n "${INPUT_K:-}" ]] && run_args+=(-k "$INPUT_K")
note "agenteval: running $INPUT_SUITE as version $version"
if ! "$agent_eval" "${run_args[@]}" >"$summary"; then
  set_output passed false
  note "::error::agent-eval run failed (see above)"
  exit 1
fi
run_id="$(json_get "$summary" run_id)"
pass_rate="$(json_get "$summary" pass_rate)"
suite_name="$(json_get "$summary" suite)"
"$agent_eval" report "$run_id" --format markdown --output "$work/run.md" "${conn[@]}"

# --- compare with the baseline -----------------------------------------------------------------
baseline=""
baseline_note=""
if [[ -n "${INPUT_BASELINE_SUMMARY:-}" ]]; then
  if [[ -f "$INPUT_BASELINE_SUMMARY" ]]; then
    baseline="$INPUT_BASELINE_SUMMARY"
  else
    baseline_note="No baseline: the summary \`$INPUT_BASELINE_SUMMARY\` from an earlier run was not found, so this run is not compared (it can be the next one's baseline)."
  fi
fi
if [[ -z "$baseline" && -z "$baseline_note" && -n "${INPUT_BASELINE:-}" ]]; then baseline="$INPUT_BASELINE"; fi
[[ -z "$baseline" && -z "$baseline_note" ]] && baseline_note="No baseline was given (inputs baseline or baseline-summary), so this run is not compared."

passed=true
regressions=0
compare_md=""
if [[ -n "$baseline" ]]; then
  cmp_args=(compare "$baseline" "$run_id" --threshold "${INPUT_THRESHOLD:-0.05}" --alpha "${INPUT_ALPHA:-0.05}" "${conn[@]}")
  if "$agent_eval" "${cmp_args[@]}" --format json --output "$work/compare.json" 2>"$work/compare.err"; then
    "$agent_eval" "${cmp_args[@]}" --format markdown --output "$work/compare.md" 2>/dev/null
    compare_md="$(cat "$work/compare.md")"
    passed="$(json_get "$work/compare.json" passed | tr '[:upper:]' '[:lower:]')"
    regressions="$("$py" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["regressions"]))' "$work/compare.json")"
  else
    # A baseline that does not exist yet (the first run of a version) is a note, not a failure.
    cat "$work/compare.err" >&2
    baseline_note="No comparison with baseline \`$baseline\`: $(sed -e 's/^error: //' "$work/compare.err" | tr '\n' ' ')"
  fi
fi

# --- the report: the comment's body ----------------------------------------------------------
marker="agenteval-report:${INPUT_COMMENT_MARKER:-$INPUT_SUITE}"
report="$work/report.md"
if [[ -n "$compare_md" ]]; then
  verdict="$([[ "$passed" == "true" ]] && echo "passed" || echo "regressed")"
else
  verdict="ran (no comparison)"
fi
{
  printf '<!-- %s -->\n' "$marker"
  printf '## agenteval · %s · %s\n\n' "$suite_name" "$verdict"
  printf 'Version `%s`, run `%s`, pass rate %s.\n\n' "$version" "$run_id" \
    "$("$py" -c 'import sys; print(f"{float(sys.argv[1])*100:.1f}%")' "$pass_rate")"
  if [[ -n "$compare_md" ]]; then printf '%s\n\n' "$compare_md"; else printf '%s\n\n' "$baseline_note"; fi
  printf '<details><summary>This run</summary>\n\n%s\n\n</details>\n' "$(cat "$work/run.md")"
} >"$report"
if [[ -n "${GITHUB_STEP_SUMMARY:-}" ]]; then cat "$report" >>"$GITHUB_STEP_SUMMARY"; fi

# --- the pull request comment: one per suite, updated on every push ------------------------------
if [[ "${INPUT_COMMENT:-true}" == "true" ]]; then
  if [[ -n "${GITHUB_TOKEN:-}" && -n "${GITHUB_REPOSITORY:-}" ]]; then
    if ! "$agent_eval" github comment --body-file "$report" --marker "$marker" >/dev/null; then
      # A fork's token may not comment: the verdict still stands, and says so.
      note "::warning::the report could not be posted as a pull request comment (see above)"
    fi
  else
    note "not commenting: GITHUB_TOKEN or GITHUB_REPOSITORY is not set"
  fi
fi

set_output run-id "$run_id"
set_output pass-rate "$pass_rate"
set_output passed "$passed"
set_output regressions "$regressions"
set_output report-path "$report"
set_output summary-path "$summary"

if [[ "$passed" != "true" && "${INPUT_FAIL_ON_REGRESSION:-true}" == "true" ]]; then
  note "::error::agenteval: $suite_name regressed against $baseline ($regressions case(s))"
  exit 1
fi
