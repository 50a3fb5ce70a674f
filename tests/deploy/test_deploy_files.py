"""Static checks of the deploy files: compose, Prometheus scrape config, Grafana provisioning.

There is no Docker engine in CI, so these read the files and check that they agree with each
other and with the metric names the services export.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from agenteval.cli.stack import settings_class_of

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
PROMETHEUS = ROOT / "deploy/prometheus/prometheus.yml"
GRAFANA = ROOT / "deploy/grafana"
DASHBOARD = GRAFANA / "dashboards/agenteval.json"
METRICS_PORT = 9464
KNOWN_SERVICES = {"runner", "grader", "metrics", "transcript_store", "eval_generator", "suite_store"}

# The contract between the services' instruments and the dashboard: the only metric names a
# panel may query. Histograms also expose <name>_bucket, _sum and _count.
COUNTERS_AND_GAUGES = {
    "agenteval_runner_trials_total",
    "agenteval_runner_trials_in_flight",
    "agenteval_runner_oversized_traces_total",
    "agenteval_grader_grades_total",
    "agenteval_metrics_runs_completed_total",
    "agenteval_run_pass_rate",
    "agenteval_case_pass_rate",
    "agenteval_run_pass_at_k",
    "agenteval_run_pass_pow_k",
    "agenteval_run_cost_usd",
    "agenteval_case_flaky",
}
HISTOGRAMS = {"agenteval_runner_trial_duration_seconds", "agenteval_grader_grading_duration_seconds"}
CONTRACT = COUNTERS_AND_GAUGES | HISTOGRAMS
ALLOWED_SERIES = COUNTERS_AND_GAUGES | {
    f"{h}{s}" for h in HISTOGRAMS for s in ("", "_bucket", "_sum", "_count")
}

_PROMQL_WORDS = {
    "by",
    "without",
    "on",
    "ignoring",
    "group_left",
    "group_right",
    "bool",
    "offset",
    "and",
    "or",
}
_PROMQL_WORDS |= {"unless", "atan2", "inf", "nan"}
_IDENT = re.compile(r"[A-Za-z_:][A-Za-z0-9_:]*")


def metric_names(expr: str) -> set[str]:
    """Metric names a PromQL expression selects: every bare identifier that is not a function,
    keyword, label in a grouping clause, label matcher, string or range duration."""
    s = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)  # strings (label values, may hold $vars)
    s = re.sub(r"\{[^}]*\}", "", s)  # label matchers
    s = re.sub(r"\[[^\]]*\]", "", s)  # range / subquery durations
    s = re.sub(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", s)
    s = re.sub(r"(?<![\w:])\d[\w.]*", "", s)  # numbers and durations (0.95, 1e3, 5m30s)
    names = set()
    for m in _IDENT.finditer(s):
        if m.group().lower() in _PROMQL_WORDS or s[m.end() :].lstrip().startswith("("):
            continue
        names.add(m.group())
    return names


def _load_yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text())


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return _load_yaml(COMPOSE)


@pytest.fixture(scope="module")
def dashboard() -> dict[str, Any]:
    return json.loads(DASHBOARD.read_text())


def _agenteval_services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Compose services that run an agenteval service process (`agent-eval serve ...`)."""
    out = {}
    for name, svc in compose["services"].items():
        cmd = svc.get("command") or []
        if isinstance(cmd, str):
            cmd = cmd.split()
        if cmd[:2] == ["agent-eval", "serve"]:
            out[name] = svc
    return out


def _panels(dashboard: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for p in dashboard["panels"]:
        out.append(p)
        out.extend(p.get("panels", []))  # panels inside collapsed rows
    return [p for p in out if p["type"] != "row"]


def _exprs(dashboard: dict[str, Any]) -> list[tuple[str, str]]:
    return [(p["title"], t["expr"]) for p in _panels(dashboard) for t in p["targets"]]


# --- the PromQL name extractor itself ------------------------------------------------------


@pytest.mark.parametrize(
    ("expr", "names"),
    [
        (
            'sum by (status) (rate(agenteval_runner_trials_total{a="x y"}[1m]))',
            {"agenteval_runner_trials_total"},
        ),
        (
            "histogram_quantile(0.95, sum by (le) (rate(foo_bucket[$__rate_interval])))",
            {"foo_bucket"},
        ),
        ('a{suite=~"$suite"} == 1 and on (case) b offset 5m', {"a", "b"}),
        ("sum(up) / count(node_cpu_seconds_total)", {"up", "node_cpu_seconds_total"}),
        ("1e3 * bar_total offset 5m30s", {"bar_total"}),
        ("http_2xx_total", {"http_2xx_total"}),
    ],
)
def test_metric_names_extracts_selected_metrics_only(expr: str, names: set[str]) -> None:
    assert metric_names(expr) == names


# --- dashboard ------------------------------------------------------------------------------


def test_dashboard_is_a_provisionable_grafana_dashboard(dashboard: dict[str, Any]) -> None:
    assert dashboard["uid"] == "agenteval"
    assert 36 <= dashboard["schemaVersion"] <= 41
    ids = [p["id"] for p in dashboard["panels"]]
    assert len(ids) == len(set(ids)), "panel ids must be unique"
    for p in dashboard["panels"]:
        assert {"x", "y", "w", "h"} <= set(p["gridPos"]), f"panel {p['title']!r} has no full gridPos"
        assert p["gridPos"]["x"] + p["gridPos"]["w"] <= 24, f"panel {p['title']!r} is wider than the grid"


def test_every_panel_and_target_uses_the_prometheus_datasource_by_uid(dashboard: dict[str, Any]) -> None:
    for p in _panels(dashboard):
        assert p["datasource"] == {"type": "prometheus", "uid": "prometheus"}, p["title"]
        assert p["targets"], f"panel {p['title']!r} has no query"
        for t in p["targets"]:
            assert t["datasource"]["uid"] == "prometheus", p["title"]
            assert t["expr"].strip(), f"panel {p['title']!r} has an empty query"
    for var in dashboard["templating"]["list"]:
        assert var["datasource"]["uid"] == "prometheus", var["name"]


def test_panels_query_only_contract_metrics(dashboard: dict[str, Any]) -> None:
    for title, expr in _exprs(dashboard):
        names = metric_names(expr)
        assert names, f"panel {title!r}: no metric found in {expr!r}"
        unknown = names - ALLOWED_SERIES
        assert not unknown, f"panel {title!r} queries metrics outside the contract: {sorted(unknown)}"


def test_every_contract_metric_has_a_panel(dashboard: dict[str, Any]) -> None:
    used = set().union(*(metric_names(e) for _, e in _exprs(dashboard)))
    used_bases = {re.sub(r"_(bucket|sum|count)$", "", n) if n not in CONTRACT else n for n in used}
    assert CONTRACT - used_bases == set(), "metrics in the contract without a panel"


def test_latency_panel_shows_p50_p95_p99_from_the_trial_histogram(dashboard: dict[str, Any]) -> None:
    quantiles = {
        m.group(1)
        for _, e in _exprs(dashboard)
        if "agenteval_runner_trial_duration_seconds_bucket" in e
        for m in [re.match(r"\s*histogram_quantile\(\s*([0-9.]+)", e)]
        if m
    }
    assert quantiles == {"0.5", "0.95", "0.99"}


def test_pass_at_k_panels_select_only_exported_k(dashboard: dict[str, Any]) -> None:
    """The services export pass@k / pass^k for k = 1, 3, 5, 10 and n only: a panel pinned to
    another k (say k="2") would stay empty for most runs."""
    from agenteval.metrics.instruments import EXPORTED_K

    k_panels = [
        e
        for _, e in _exprs(dashboard)
        if {"agenteval_run_pass_at_k", "agenteval_run_pass_pow_k"} & metric_names(e)
    ]
    assert len(k_panels) >= 2, "no pass@k / pass^k panel"
    for expr in k_panels:
        for op, value in re.findall(r'\bk\s*(=~|!~|!=|=)\s*"([^"]*)"', expr):
            assert op == "=" and int(value) in EXPORTED_K, (
                f"k{op}{value!r} selects k values never exported: {expr}"
            )


def test_template_variables_suite_and_agent_version_come_from_label_values(
    dashboard: dict[str, Any],
) -> None:
    variables = {v["name"]: v for v in dashboard["templating"]["list"]}
    assert {"suite", "agent_version"} <= set(variables)
    for name in ("suite", "agent_version"):
        m = re.fullmatch(r"label_values\((\w+)(\{.*\})?,\s*(\w+)\)", variables[name]["definition"])
        assert m, f"variable {name} is not a label_values query"
        assert m.group(1) in ALLOWED_SERIES and m.group(3) == name
    quality = [e for _, e in _exprs(dashboard) if "agenteval_run_" in e or "agenteval_case_" in e]
    for expr in quality:
        assert '"$suite"' in expr and '"$agent_version"' in expr, f"not filtered by the variables: {expr}"


def test_every_contract_metric_is_declared_by_a_service() -> None:
    declared = set()
    for path in (ROOT / "services").glob("*/src/agenteval/*/instruments.py"):
        declared |= set(re.findall(r'"(agenteval_[a-z0-9_]+)"', path.read_text()))
    missing = CONTRACT - declared
    assert not missing, f"the dashboard expects metrics no service declares: {sorted(missing)}"


# --- Grafana provisioning --------------------------------------------------------------------


def _mounts(svc: dict[str, Any]) -> dict[str, str]:
    """Container path -> host path (resolved against the repo root) of a service's bind mounts."""
    out = {}
    for vol in svc.get("volumes", []):
        host, target = vol.split(":")[:2]
        if host.startswith("."):
            out[target] = str((ROOT / host).resolve())
    return out


def test_grafana_provisioning_matches_compose_mounts(compose: dict[str, Any]) -> None:
    mounts = _mounts(compose["services"]["grafana"])
    datasources = _load_yaml(GRAFANA / "provisioning/datasources/prometheus.yml")["datasources"]
    (ds,) = [d for d in datasources if d["uid"] == "prometheus"]
    assert ds["type"] == "prometheus" and ds["url"] == "http://prometheus:9090"
    assert "prometheus" in compose["services"]

    (provider,) = _load_yaml(GRAFANA / "provisioning/dashboards/agenteval.yml")["providers"]
    assert provider["type"] == "file"
    dash_dir = provider["options"]["path"]
    assert mounts.get(dash_dir) == str((GRAFANA / "dashboards").resolve()), "dashboards are not mounted there"
    assert mounts.get("/etc/grafana/provisioning") == str((GRAFANA / "provisioning").resolve())


# --- Prometheus ------------------------------------------------------------------------------


def _scrape_hosts(config: dict[str, Any]) -> dict[str, set[int]]:
    """Host -> ports Prometheus scrapes, from static targets and DNS service discovery."""
    hosts: dict[str, set[int]] = {}
    for job in config["scrape_configs"]:
        for sc in job.get("static_configs", []):
            for target in sc["targets"]:
                host, port = target.rsplit(":", 1)
                hosts.setdefault(host, set()).add(int(port))
        for dns in job.get("dns_sd_configs", []):
            for name in dns["names"]:
                hosts.setdefault(name, set()).add(int(dns["port"]))
    return hosts


def test_prometheus_scrapes_every_agenteval_service_and_itself(compose: dict[str, Any]) -> None:
    config = _load_yaml(PROMETHEUS)
    assert config["global"]["scrape_interval"] == "5s"
    jobs = [j["job_name"] for j in config["scrape_configs"]]
    assert len(jobs) == len(set(jobs)), "job names must be unique"
    hosts = _scrape_hosts(config)
    assert 9090 in hosts.get("localhost", set()), "Prometheus does not scrape itself"
    services = _agenteval_services(compose)
    assert services, "no agenteval service found in docker-compose.yml"
    for name in services:
        assert METRICS_PORT in hosts.get(name, set()), f"{name} is not scraped on :{METRICS_PORT}"
    assert set(hosts) - {"localhost"} <= set(services), "a scrape target is not a compose service"
    assert _mounts(compose["services"]["prometheus"]).get("/etc/prometheus/prometheus.yml") == str(PROMETHEUS)


def test_replicated_services_are_discovered_per_replica(compose: dict[str, Any]) -> None:
    config = _load_yaml(PROMETHEUS)
    dns_names = {n for j in config["scrape_configs"] for d in j.get("dns_sd_configs", []) for n in d["names"]}
    dns_types = {d.get("type") for j in config["scrape_configs"] for d in j.get("dns_sd_configs", [])}
    replicated = {
        name
        for name, svc in _agenteval_services(compose).items()
        if (svc.get("deploy") or {}).get("replicas", 1) > 1
    }
    assert "runner" in replicated
    assert replicated <= dns_names, "a replicated service is scraped by one static address"
    assert dns_types == {"A"}


# --- docker-compose --------------------------------------------------------------------------


def test_compose_agenteval_services_run_known_services_with_bus_and_database(
    compose: dict[str, Any],
) -> None:
    image_users = {
        name: svc for name, svc in compose["services"].items() if svc.get("image") == "agenteval:latest"
    }
    assert image_users.keys() == _agenteval_services(compose).keys(), (
        "every service built from the agenteval image must run `agent-eval serve`"
    )
    served = set()
    for name, svc in image_users.items():
        served.add(svc["command"][2])
        assert svc["command"][2] in KNOWN_SERVICES, f"{name} serves an unknown service"
        depends = svc.get("depends_on") or {}
        assert {*NATS_NODES, "postgres"} <= set(depends), (
            f"{name} does not wait for every NATS node and postgres"
        )
        env = svc.get("environment") or {}
        urls = env.get("AGENTEVAL_NATS_URL", "").split(",")
        assert {u.split("//")[1].split(":")[0] for u in urls} == set(NATS_NODES), f"{name} knows {urls}"
        assert env.get("AGENTEVAL_BUS_REPLICAS") == str(len(NATS_NODES)), (
            f"{name}: the stream is not replicated"
        )
        assert "@postgres:" in env.get("AGENTEVAL_DATABASE_URL", ""), name
        port = int(env.get("AGENTEVAL_METRICS_PORT", METRICS_PORT))
        assert port == METRICS_PORT, f"{name} serves /metrics on {port}, Prometheus scrapes {METRICS_PORT}"
    assert served == KNOWN_SERVICES, f"services never deployed: {sorted(KNOWN_SERVICES - served)}"
    for dep in (*NATS_NODES, "postgres"):
        assert dep in compose["services"]


NATS_NODES = ("nats-1", "nats-2", "nats-3")


def test_nats_is_a_3_node_jetstream_cluster_whose_routes_name_every_other_node(
    compose: dict[str, Any],
) -> None:
    for node in NATS_NODES:
        svc = compose["services"][node]
        args = svc["command"]
        flag = {args[i]: args[i + 1] for i in range(len(args) - 1) if args[i].startswith("-")}
        assert "-js" in args and flag["-sd"] == "/data", f"{node} runs without a JetStream store"
        assert flag["--server_name"] == node and flag["--cluster_name"] == "agenteval"
        routes = {r.split("//")[1].split(":")[0] for r in flag["--routes"].split(",")}
        assert routes == set(NATS_NODES) - {node}, f"{node} routes to {routes}"
        assert svc.get("healthcheck"), f"{node} has no healthcheck"
        assert any(v.endswith(":/data") for v in svc["volumes"]), f"{node} keeps its store in the container"
    stores = [compose["services"][n]["volumes"][0].split(":")[0] for n in NATS_NODES]
    assert len(set(stores)) == len(NATS_NODES), "two nodes share a JetStream store"


def test_every_service_is_told_where_the_services_it_calls_are(compose: dict[str, Any]) -> None:
    """A service left without another's address dials its own (right only in embedded mode):
    in compose the grader could not load saved evals, nor the eval generator read traces."""
    services = _agenteval_services(compose)
    served_port = {
        svc["command"][2]: (name, svc["command"][4].rsplit(":", 1)[1]) for name, svc in services.items()
    }
    target_of = {
        "evalgen": "eval_generator",
        "transcripts": "transcript_store",
        "grader": "grader",
        "suites": "suite_store",
    }
    for name, svc in services.items():
        service = svc["command"][2]
        settings = settings_class_of(service)
        prefix = settings.model_config["env_prefix"]
        env = svc.get("environment") or {}
        for field in settings.model_fields:
            if not field.endswith("_addr"):
                continue
            var = f"{prefix}{field.upper()}"
            assert var in env, f"compose service {name} ({service}) lacks {var}"
            host, port = env[var].rsplit(":", 1)
            other = target_of[field.removesuffix("_addr")]
            assert (host, port) == served_port[other], (
                f"{name}: {var}={env[var]} is not where {other} listens"
            )


def test_one_front_door_is_published_and_every_service_has_a_healthcheck(compose: dict[str, Any]) -> None:
    services = _agenteval_services(compose)
    for name, svc in services.items():
        port = svc["command"][4].rsplit(":", 1)[1]
        check = svc.get("healthcheck", {}).get("test", [])
        assert check[-1:] == [f"127.0.0.1:{port}"] and "agenteval.runtime.healthcheck" in check, (
            f"{name} has no gRPC healthcheck on its own port"
        )
        assert not svc.get("ports"), f"{name} publishes a port: clients go through the gateway"
    gateway = compose["services"]["gateway"]
    assert gateway["ports"] == ["50050:50050", "8080:8080"]  # gRPC, and the dashboard + HTTP API
    assert gateway["environment"]["AGENTEVAL_GATEWAY_HTTP_ADDRESS"] == "0.0.0.0:8080"
    assert gateway["build"]["args"] == {"PACKAGE": "agenteval-gateway", "MODULE": "agenteval.gateway"}
    routed = {k: v for k, v in gateway["environment"].items() if k.endswith("_ADDR")}
    for env, target in routed.items():
        host, port = target.rsplit(":", 1)
        assert host in compose["services"], f"{env} routes to {host}, which compose does not run"
        served = services[host]["command"][4].rsplit(":", 1)[1]
        assert served == port, f"{env} routes to {target}, but {host} listens on {served}"


def test_every_agenteval_service_and_the_front_door_require_tokens(compose: dict[str, Any]) -> None:
    """Services listen on 0.0.0.0 in their containers: without tokens they would refuse to start
    (and should), so each one reads the tokens file from a secret, and the services call each
    other with an admin token given from the environment."""
    assert compose["secrets"]["agenteval_tokens"]["file"] == "./deploy/tokens.yaml"
    agenteval = [
        name
        for name, svc in compose["services"].items()
        if "agenteval" in str(svc.get("image", "")) or "agent-eval" in str(svc.get("command", ""))
    ]
    assert {
        "gateway",
        "runner",
        "grader",
        "metrics",
        "transcript-store",
        "eval-generator",
        "suite-store",
    } <= set(agenteval)
    for name in agenteval:
        svc = compose["services"][name]
        env = svc.get("environment", {})
        assert env.get("AGENTEVAL_TOKENS_FILE") == "/run/secrets/agenteval_tokens", name
        assert "agenteval_tokens" in svc.get("secrets", []), name
        assert "AGENTEVAL_ALLOW_OPEN" not in env, name
        if name != "gateway":
            assert str(env.get("AGENTEVAL_SERVICE_TOKEN", "")).startswith("${AGENTEVAL_SERVICE_TOKEN:?"), name
