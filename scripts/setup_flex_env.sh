#!/usr/bin/env bash
# Creates .venv-flex, a side env whose only project is an interpreter with the
# Flex delegate: tensorflow-cpu 2.18.1's tf.lite.Interpreter links it, and
# runs the trainable model's save/restore (TF Save/Restore ops), which the pip
# LiteRT interpreter in .venv cannot. TF 2.18 cannot run our jax2tf
# conversion, hence a second env (experiments/export/flex_check.py uses it).
# Once per pin set (stamp file, as setup_venv.sh); silent when up to date.
# Installs with .venv's uv (scripts/setup_venv.sh), pip where .venv has none.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
# TF 2.18 wants numpy >= 1.26, < 2.1; pinned so every env checks the same.
requirements=(tensorflow-cpu==2.18.1 numpy==2.0.2)
pins="$(echo "${requirements[*]}" | sha1sum | cut -c1-12)"
stamp=".venv-flex/.installed-$pins"
if [ -f "$stamp" ] && [ -x .venv-flex/bin/python ]; then
  exit 0
fi
if ! "$PYTHON" -c 'import sys
sys.exit(not (3, 9) <= sys.version_info[:2] <= (3, 12))'; then
  echo "tensorflow-cpu 2.18.1 needs Python 3.9 to 3.12; $PYTHON is" \
       "$("$PYTHON" --version 2>&1). Set PYTHON=/path/to/python3.11." >&2
  exit 1
fi
if [ ! -x .venv-flex/bin/python ]; then
  echo "Creating .venv-flex with $("$PYTHON" --version)..."
  "$PYTHON" -m venv .venv-flex
fi
echo "Installing ${requirements[*]} into .venv-flex" \
     "(first time: under a minute with uv; 1.4 GB)..."
if [ -x .venv/bin/uv ]; then
  .venv/bin/uv pip install --quiet --compile-bytecode \
    --python .venv-flex/bin/python \
    "${requirements[@]}"
else
  .venv-flex/bin/python -m pip install --quiet --disable-pip-version-check \
    "${requirements[@]}"
fi
rm -f .venv-flex/.installed-*
touch "$stamp"
