"""The HTTP API (``/api/v1``, OpenAPI at ``/openapi.json``) and the web dashboard, in front of the
gRPC services: FastAPI over the typed SDK client. Every page and asset ships in this package
(no CDN, no build step): pages are rendered by Jinja2, charts are inline SVG."""

from agenteval.gateway.web.app import create_app

__all__ = ["create_app"]
