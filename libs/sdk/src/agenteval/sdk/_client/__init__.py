"""The typed client: agenteval's gRPC services, answered in contract models.

Every method returns pydantic models of ``agenteval.contracts`` (``RunInfo``, ``TrialRecord``,
``TraceInfo``, ``EvalInfo``, ...) and raises the contract errors (``NotFound``,
``InvalidArgument``, ``Conflict``, ``Unavailable``, ``PermissionDenied``) for the status codes
the servers map them to, so a script never handles protobuf messages or gRPC status codes.
"""

from __future__ import annotations

from agenteval.sdk._client._base import IMPORT_CHUNK_BYTES, RECONNECT_S
from agenteval.sdk._client._data import _Data
from agenteval.sdk._client._evals import _Evals
from agenteval.sdk._client._runs import _Runs


class Client(_Runs, _Data, _Evals):
    """A client of a running agenteval (``agent-eval up``, or a distributed deployment).

    One address serves every service in embedded mode; in a distributed deployment each
    service's address comes from ``AGENTEVAL_<SERVICE>_ADDR`` when set (RUNNER, TRANSCRIPTS,
    GRADER, METRICS, EVALGEN, SUITES). A server with tokens needs ``token`` (default:
    ``AGENTEVAL_TOKEN``); ``project`` (default: ``AGENTEVAL_PROJECT``, else the token's first
    project) is the project the calls act in; ``tls_ca`` (default: ``AGENTEVAL_TLS_CA``) is the
    PEM file of the CA that signed a TLS server's certificate. Use it as an async context
    manager::

        async with Client("127.0.0.1:50051") as client:
            run = await client.submit(suite, agent="python:my_agent:run", k=5)
            run = await client.wait(run.run_id)
    """


__all__ = ["IMPORT_CHUNK_BYTES", "RECONNECT_S", "Client"]
