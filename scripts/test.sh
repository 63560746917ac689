#!/usr/bin/env bash
# Installs everything (scripts/setup.sh) and runs the test suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
.venv/bin/python -m pytest "$@"
# One style, the layers and the types (issue 13): each names what failed and how to see it.
check() { "$@" >&2 || { echo "test.sh: '$*' failed; run it to see why (fixes: ruff format / ruff check --fix)." >&2; exit 1; }; }
check .venv/bin/ruff format --check --quiet src tests benchmarks scripts
check .venv/bin/ruff check --quiet src tests benchmarks scripts
PYTHONPATH="$PWD/src" check .venv/bin/lint-imports --no-cache
check .venv/bin/mypy
