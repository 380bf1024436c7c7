#!/usr/bin/env bash
# Sets up .venv if needed, then runs the test suite.
# Extra arguments go to pytest, e.g. ./test.sh -m "not slow".
set -euo pipefail
cd "$(dirname "$0")"
source scripts/setup_venv.sh
scripts/setup_flex_env.sh; export REQUIRE_FLEX=1  # Flex checks never skip.
exec .venv/bin/python -m pytest tests "$@"
