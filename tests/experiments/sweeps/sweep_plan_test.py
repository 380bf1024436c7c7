"""Tests for experiments/sweeps/sweep_plan.py's saved sweep."""

import json
import os

import pytest

from experiments.storage import workdir_format
from experiments.sweeps import sweep_plan


def test_a_sweep_of_another_workdir_format_is_refused(tmp_path):
  path = os.path.join(tmp_path, sweep_plan.FILENAME)
  with open(path, 'w') as f:
    json.dump({'agent': 'ppo', 'env': 'catch'}, f)  # An earlier version's.
  with pytest.raises(sweep_plan.SweepError, match=r'workdir format 1, this '
                     r'one reads \d+\): train again in a new --workdir'):
    sweep_plan.load(str(tmp_path))
  with open(path, 'w') as f:
    json.dump(workdir_format.stamped({'agent': 'ppo', 'env': 'catch'}), f)
  assert sweep_plan.load(str(tmp_path)) == {'agent': 'ppo', 'env': 'catch'}
