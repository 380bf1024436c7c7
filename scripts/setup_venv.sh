# Sourced by run.sh and test.sh: creates .venv if missing and installs the
# package (editable, with every extra: export, report, suites, control,
# envpool, test, ray, wandb) when setup.py changed since last time. It
# installs with uv (from PyPI, into .venv): the same packages pip resolves,
# bytecode compiled as pip does (PYTHONDONTWRITEBYTECODE may be set, and
# every test process imports JAX), in under a minute rather than ~3 on 2
# cores.
set -euo pipefail
PYTHON="${PYTHON:-python3}"
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "Python >= 3.11 is needed; $PYTHON is $("$PYTHON" --version 2>&1)." \
       "Set PYTHON=/path/to/python3.11." >&2
  exit 1
fi
if [ ! -x .venv/bin/python ]; then
  echo "Creating .venv with $("$PYTHON" --version)..."
  "$PYTHON" -m venv .venv
fi
stamp=".venv/.installed-$(sha1sum setup.py | cut -c1-12)"
if [ ! -f "$stamp" ]; then
  echo "Installing dependencies into .venv (first time: under a minute)..."
  .venv/bin/python -m pip install --quiet --disable-pip-version-check uv
  .venv/bin/uv pip install --quiet --compile-bytecode \
    --python .venv/bin/python \
    -e '.[export,report,suites,control,envpool,test,ray,wandb]'
  rm -f .venv/.installed-*
  touch "$stamp"
fi
