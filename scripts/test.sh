#!/usr/bin/env bash
# Installs everything (scripts/setup.sh --engine --test: the triage tool, the memory engine,
# pytest and the static checks) into ./.venv and runs the test suite, the wheel tests
# included. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh --engine --test
exec .venv/bin/python -m pytest "$@"
