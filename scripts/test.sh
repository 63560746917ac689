#!/usr/bin/env bash
# Installs everything (scripts/setup.sh --engine --test: the triage tool, the memory engine,
# pytest and the static checks) into ./.venv, runs the static checks (one style, the layers,
# the types) and then the test suite, the wheel tests included, on four xdist workers
# (pyproject's addopts; tests/README.md). Extra arguments go to pytest (`-n 0`: one process).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh --engine --test
# Each check names what failed and how to see it; the test summary stays the last line.
check() { "$@" >&2 || { echo "test.sh: '$*' failed; run it to see why (fixes: ruff format / ruff check --fix)." >&2; exit 1; }; }
check .venv/bin/ruff format --check --quiet src tests benchmarks scripts examples
check .venv/bin/ruff check --quiet src tests benchmarks scripts examples
# import-linter, mypy and ruff keep their caches in the checkout (.import_linter_cache,
# .mypy_cache, .ruff_cache): a second run checks only what changed.
PYTHONPATH="$PWD/src" check .venv/bin/lint-imports
check .venv/bin/mypy
# Where the environment sets PYTHONDONTWRITEBYTECODE (this project's machines do), every
# `memscope` process a test starts would compile memscope's ~400 modules again (about 0.5 s
# each, benchmarks/common.py's bytecode_env says the same): compile them once, and let the
# test processes keep what they compile (in __pycache__/, git-ignored).
unset PYTHONDONTWRITEBYTECODE
.venv/bin/python -m compileall -q src benchmarks >/dev/null
exec .venv/bin/python -m pytest "$@"
