#!/usr/bin/env bash
# Sets up .venv if needed, then runs the test suite on TEST_WORKERS parallel
# workers (default: one per core, at most 4). Extra arguments go to pytest:
#   ./test.sh -m "not slow"             the fast tier (docs/testing.md)
#   ./test.sh tests/agents/ppo_test.py  one module (-n 0: in this process)
set -euo pipefail
cd "$(dirname "$0")"
source scripts/setup_venv.sh
scripts/setup_flex_env.sh; export REQUIRE_FLEX=1  # Flex checks never skip.
cores="$(nproc)"
workers="${TEST_WORKERS:-$(( cores < 4 ? cores : 4 ))}"
exec .venv/bin/python -m pytest -n "$workers" --dist loadfile "$@"
