#!/usr/bin/env bash
# Makes .venv-peers: the peers' own environment for the peers_* suites of
# benchmarks.suites (PureJaxRL's and purejaxql's needs, rejax, SBX, and
# what pgx's examples/alphazero/train.py imports, Craftax_Baselines' and
# XLand-MiniGrid's games, Jumanji's A2C with its RLax, POPGym Arcade's
# baselines), with our JAX
# version, and our pgx, mctx, Haiku, Craftax, XLand-MiniGrid, Navix and
# Jumanji versions, so that speeds compare
# programs, not releases. Never part of the project's dependencies. PureJaxRL,
# purejaxql and pgx's AlphaZero example are not packages: clone
# github.com/luchris429/purejaxrl, github.com/mttga/purejaxql and
# github.com/sotetsuk/pgx and pass --purejaxrl_source, --purejaxql_source
# and --pgx_source.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
jax_version="$(.venv/bin/python -c 'import jax; print(jax.__version__)')"
# pgx==…, mctx==…, dm-haiku==…, …: the versions in our .venv.
ours="$(.venv/bin/python -c 'from importlib import metadata
print(" ".join(f"{p}=={metadata.version(p)}"
               for p in ("pgx", "mctx", "dm-haiku", "craftax", "xminigrid",
                         "navix", "jumanji")))')"
[ -x .venv-peers/bin/python ] || "$PYTHON" -m venv .venv-peers
# gymnax 0.0.9: the step API PureJaxRL and rejax 0.1.3 are written for.
# omegaconf and pydantic: pgx's train.py reads its config with them.
# rlax: Jumanji's A2C (jumanji.training; its neptune-client pin is left
# out, benchmarks/jumanji_a2c_program.py says why).
# popgym-arcade[baselines] 0.0.5: its PPO (equinox), our version of it.
# shellcheck disable=SC2086  # $ours: one word per package.
.venv-peers/bin/python -m pip install --quiet \
  "jax==$jax_version" "jaxlib==$jax_version" flax distrax optax \
  gymnax==0.0.9 brax rejax==0.1.3 sbx-rl gymnasium hydra-core wandb \
  $ours omegaconf pydantic rlax "popgym-arcade[baselines]==0.0.5"
echo "Made .venv-peers (jax $jax_version; $ours)."
