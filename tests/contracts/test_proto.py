"""The committed generated code is what `make proto` produces from proto/."""

from __future__ import annotations

import filecmp
from pathlib import Path

from agenteval.contracts import protogen


def test_generated_code_matches_the_proto_files(tmp_path: Path) -> None:
    generated = protogen.generate(tmp_path)
    committed = protogen.OUT_DIR / "agenteval" / "v1"
    assert generated, "protoc generated nothing"
    for path in generated:
        twin = committed / path.name
        assert twin.exists(), f"{path.name} is generated but not committed: run make proto"
        assert filecmp.cmp(path, twin, shallow=False), f"{path.name} is stale: run make proto"


def test_every_service_of_the_design_is_declared() -> None:
    from agenteval.v1 import (
        agent_pb2,
        eval_generator_pb2,
        grader_pb2,
        metrics_pb2,
        runner_pb2,
        suites_pb2,
        transcripts_pb2,
    )

    services = {
        "RunService": (
            runner_pb2,
            {"SubmitRun", "GetRun", "ListRuns", "CancelRun", "WatchRun", "WatchRuns", "CompareRuns"},
        ),
        "GraderService": (grader_pb2, {"TestEvalCode"}),
        "MetricsService": (metrics_pb2, {"GetRunSummary"}),
        "TranscriptService": (
            transcripts_pb2,
            {"GetTrial", "ListTrials", "ListTraces", "GetTrace", "ImportTraces", "LabelTrace"},
        ),
        "EvalGeneratorService": (
            eval_generator_pb2,
            {
                "GenerateEval",
                "ListEvals",
                "GetEval",
                "StartGenerationJob",
                "WatchGenerationJob",
                "ListGenerationJobs",
                "GetGenerationJob",
                "CancelGenerationJob",
                "PromoteEval",
            },
        ),
        "AgentService": (agent_pb2, {"RunAgent"}),
        "SuiteService": (
            suites_pb2,
            {
                "CreateSuite",
                "GetSuite",
                "ListSuites",
                "UpdateSuite",
                "DeleteSuite",
                "ListSuiteVersions",
                "DiffSuites",
            },
        ),
    }
    for name, (module, methods) in services.items():
        desc = module.DESCRIPTOR.services_by_name[name]
        missing = methods - {m.name for m in desc.methods}
        assert not missing, f"{name} lacks {sorted(missing)}"
        assert desc.full_name == f"agenteval.v1.{name}"
