#!/usr/bin/env bash
# Makes .venv-peers: the peers' own environment for the peers_* suites of
# benchmarks.suites (PureJaxRL's and purejaxql's needs, rejax, SBX),
# with our JAX
# version, so that speeds compare programs, not JAX releases. Never part of
# the project's dependencies. PureJaxRL and purejaxql are not packages:
# clone github.com/luchris429/purejaxrl and github.com/mttga/purejaxql and
# pass --purejaxrl_source and --purejaxql_source.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
jax_version="$(.venv/bin/python -c 'import jax; print(jax.__version__)')"
[ -x .venv-peers/bin/python ] || "$PYTHON" -m venv .venv-peers
# gymnax 0.0.9: the step API PureJaxRL and rejax 0.1.3 are written for.
.venv-peers/bin/python -m pip install --quiet \
  "jax==$jax_version" "jaxlib==$jax_version" flax distrax optax \
  gymnax==0.0.9 brax navix rejax==0.1.3 sbx-rl gymnasium hydra-core wandb
echo "Made .venv-peers (jax $jax_version)."
