"""The examples run as a user runs them: commands from the repository root
with --imports (in this process, `tests.commands`, which takes their
registrations back afterwards)."""

import json
import os
from typing import Any, Dict

import pytest

from tests import commands

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def run(module: str, *args: str) -> commands.Completed:
  """`python -m <module> <args>` from the repository root."""
  return commands.run(module, *args, cwd=REPO)


def output_json(process: commands.Completed) -> Dict[str, Any]:
  """The JSON a command printed last."""
  assert process.returncode == 0, process.stderr[-3000:]
  return json.loads(process.stdout[process.stdout.index('{'):])


def train_result(process: commands.Completed,
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
