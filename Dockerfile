FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY libs libs
COPY services services
COPY proto proto
COPY examples examples
RUN pip install --no-cache-dir .
ENV PYTHONUNBUFFERED=1
CMD ["agent-eval", "--help"]
