"""Generate the protobuf/gRPC Python code from proto/ (``make proto``).

The generated modules are committed under libs/contracts/src/agenteval/v1/ so a fresh install can
import them without grpcio-tools; tests regenerate into a temp dir and compare, so the
committed code always matches the .proto files.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]
PROTO_DIR = ROOT / "proto"
OUT_DIR = ROOT / "libs" / "contracts" / "src"


def proto_files() -> list[Path]:
    return sorted((PROTO_DIR / "agenteval" / "v1").glob("*.proto"))


def generate(out_dir: Path = OUT_DIR) -> list[Path]:
    """Run protoc on every .proto file; return the generated files."""
    import grpc_tools
    from grpc_tools import protoc

    include = Path(grpc_tools.__file__).parent / "_proto"
    target = out_dir / "agenteval" / "v1"
    target.mkdir(parents=True, exist_ok=True)
    args = [
        "protoc",
        f"-I{PROTO_DIR}",
        f"-I{include}",
        f"--python_out={out_dir}",
        f"--pyi_out={out_dir}",
        f"--grpc_python_out={out_dir}",
        *[str(p.relative_to(PROTO_DIR)) for p in proto_files()],
    ]
    code = protoc.main(args)
    if code != 0:
        raise SystemExit(f"protoc failed with exit code {code}")
    init = target / "__init__.py"
    if not init.exists():
        init.write_text('"""Generated protobuf and gRPC code (make proto). Do not edit."""\n')
    return sorted(p for p in target.iterdir() if p.name.endswith((".py", ".pyi")) and p.name != "__init__.py")


if __name__ == "__main__":
    files = generate()
    print(f"generated {len(files)} files in {OUT_DIR / 'agenteval' / 'v1'}", file=sys.stderr)
