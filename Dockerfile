# One image per distribution of the uv workspace. The default is the whole product (the
# agent-eval command, every service); a service alone is
#   docker build --build-arg PACKAGE=agenteval-runner --build-arg MODULE=agenteval.runner -t agenteval-runner .
# and holds only that service's dependencies (uv sync --package installs what it declares).
FROM python:3.11-slim AS build
ARG PACKAGE=agenteval
RUN pip install --no-cache-dir uv==0.13.8
WORKDIR /app
COPY pyproject.toml uv.lock ./
COPY libs libs
COPY services services
COPY apps apps
RUN uv sync --frozen --no-dev --no-editable --package "${PACKAGE}"

FROM python:3.11-slim
ARG MODULE=agenteval.cli
COPY --from=build /app/.venv /app/.venv
COPY examples /app/examples
WORKDIR /app
ENV PATH=/app/.venv/bin:$PATH PYTHONUNBUFFERED=1 AGENTEVAL_MODULE=${MODULE}
CMD ["sh", "-c", "exec python -m \"$AGENTEVAL_MODULE\""]
