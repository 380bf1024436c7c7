# Sourced by run.sh and test.sh: creates .venv if missing and installs the
# package (editable, with every extra: export, report, suites, control,
# test, ray, wandb) when setup.py changed since last time.
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
  echo "Installing dependencies into .venv (first time: a few minutes)..."
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e '.[export,report,suites,control,test,ray,wandb]'
  rm -f .venv/.installed-*
  touch "$stamp"
fi
