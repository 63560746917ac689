#!/usr/bin/env bash
# Installs everything (scripts/setup.sh) and runs the test suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
exec .venv/bin/python -m pytest "$@"
