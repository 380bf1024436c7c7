"""The examples run as a user runs them: commands from the repository root
with --imports, in fresh processes (so their registrations never leak into
other tests)."""

import json
import os
import subprocess
import sys
from typing import Any, Dict

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def run(module: str, *args: str) -> subprocess.CompletedProcess:
  """`python -m <module> <args>` from the repository root."""
  return subprocess.run(
      [sys.executable, '-m', module, *args], capture_output=True, text=True,
      cwd=REPO, check=False, env=dict(os.environ, PYTHONPATH=REPO))


def output_json(process: subprocess.CompletedProcess) -> Dict[str, Any]:
  """The JSON a command printed last."""
  assert process.returncode == 0, process.stderr[-3000:]
  return json.loads(process.stdout[process.stdout.index('{'):])


def train_result(process: subprocess.CompletedProcess,
                 workdir: str) -> Dict[str, Any]:
  """The `result.json` a successful `experiments.train` wrote (it prints a
  one-line summary of it)."""
  assert process.returncode == 0, process.stderr[-3000:]
  assert process.stdout.startswith('Done: '), process.stdout
  with open(os.path.join(workdir, 'result.json')) as f:
    return json.load(f)


@pytest.fixture
def command():
  return run
