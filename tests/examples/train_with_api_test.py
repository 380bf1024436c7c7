"""examples/train_with_api.py: train, play and export through the Python
API, run as a user runs it, from outside the checkout."""

import json
import os
import subprocess
import sys

import pytest

from tests.examples import conftest

pytestmark = pytest.mark.slow  # A whole script; see docs/testing.md.


def test_trains_plays_and_exports_from_any_directory(tmp_path):
  workdir = str(tmp_path / 'run')
  env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
  process = subprocess.run(
      [sys.executable, os.path.join(conftest.REPO, 'examples',
                                    'train_with_api.py'),
       f'--workdir={workdir}'], capture_output=True, text=True,
      cwd=str(tmp_path), env=env, check=False)
  assert process.returncode == 0, process.stderr[-3000:]
  lines = process.stdout.splitlines()
  assert lines[0].startswith('Trained: greedy return'), process.stdout
  played = float(lines[1].split('mean return ')[1].rstrip('.'))
  assert played >= 0.8  # Catch's best return is 1.
  assert lines[2].startswith('Greedy action at the start of a game: ')
  assert int(lines[2].rsplit(' ', 1)[1].rstrip('.')) in (0, 1, 2)
  assert lines[3].startswith(f'Exported {workdir}/catch.tflite'), lines
  with open(os.path.join(workdir, 'result.json')) as f:
    assert json.load(f)['status'] == 'finished'
