"""Tests for experiments/comparison/plots.py."""

import os

from matplotlib import image
from matplotlib import pyplot
import numpy as np

from experiments.comparison import plots
from experiments.comparison import statistics

PNG_MAGIC = b'\x89PNG\r\n\x1a\n'


def _check_png(path, min_bytes=5000):
  with open(path, 'rb') as f:
    data = f.read()
  assert data.startswith(PNG_MAGIC)
  assert len(data) > min_bytes
  pixels = image.imread(path)
  assert pixels.ndim == 3 and pixels.shape[0] > 200 and pixels.shape[1] > 400
  assert pixels.std() > 0.01  # Not a blank canvas.
  return data


def _curves():
  steps = np.arange(1, 11) * 1000.0
  mean = np.linspace(50, 20, 10)
  return {'reinforce': (steps, mean, mean - 2, mean + 2),
          'ppo': (steps, mean - 5, mean - 6, mean - 4)}


def test_learning_curves(tmp_path):
  path = str(tmp_path / 'curves.png')
  plots.learning_curves(path, 'plane_strike', 'strikes per game', _curves(),
                        {'weak reference (57.8)': 57.8,
                         'strong reference (11.9)': 11.9})
  first = _check_png(path)
  plots.learning_curves(path, 'plane_strike', 'strikes per game', _curves(),
                        {'weak reference (57.8)': 57.8,
                         'strong reference (11.9)': 11.9})
  assert _check_png(path) == first  # Same figure, same bytes.
  assert pyplot.get_fignums() == []  # No pyplot state left behind.


def test_learning_curves_edge_cases(tmp_path):
  one_point = {'dqn': (np.array([5.0]), np.array([1.0]), np.array([0.5]),
                       np.array([1.5]))}
  plots.learning_curves(str(tmp_path / 'one.png'), 'bsuite:catch/0',
                        'mean return', one_point, {})
  _check_png(str(tmp_path / 'one.png'), min_bytes=1000)
  plots.learning_curves(str(tmp_path / 'none.png'), 'catch', 'return', {}, {})
  _check_png(str(tmp_path / 'none.png'), min_bytes=1000)


def test_aggregate_metrics(tmp_path):
  rng = np.random.RandomState(0)
  intervals = statistics.aggregate_intervals(
      {'reinforce': rng.rand(3, 2), 'ppo': rng.rand(3, 2) + 0.3,
       'dqn': rng.rand(1, 2)}, reps=100)
  path = str(tmp_path / 'aggregate.png')
  plots.aggregate_metrics(path, intervals)
  _check_png(path)
  assert pyplot.get_fignums() == []


def test_probability_of_improvement(tmp_path):
  pairs = [('reinforce', 'ppo', statistics.Interval(0.2, 0.05, 0.4)),
           ('reinforce', 'dqn', statistics.Interval(0.0, 0.0, 0.0)),
           ('ppo', 'dqn', statistics.Interval(0.75, 0.5, 1.0))]
  path = str(tmp_path / 'poi.png')
  plots.probability_of_improvement(path, pairs)
  _check_png(path)
  assert os.listdir(tmp_path) == ['poi.png']  # No temporary file left.
