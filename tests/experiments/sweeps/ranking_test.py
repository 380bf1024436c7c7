"""Tests for experiments/sweeps/ranking.py on a synthetic, finished sweep
(no training): its ranking and its learning-curve figure."""

import csv
import json
import os

from experiments.comparison import plots
from experiments.sweeps import ranking
from experiments.sweeps import sweep_plan

STEPS = 1000
# Final strikes per game of configuration 0 and 1, seeds 0 and 1.
FINAL = {0: [20.0, 22.0], 1: [14.0, 15.0]}


def _make_sweep(workdir):
  sweep = sweep_plan.Sweep(
      agent='ppo', env='plane_strike',
      configurations=({'learning_rate': 1e-3}, {'learning_rate': 3e-4}),
      base={}, preset=None, num_seeds=2, num_steps=STEPS, eval_points=4)
  lanes = []
  for configuration, finals in FINAL.items():
    for seed, final in enumerate(finals):
      directory = f'groups/group_0/trial_{configuration}/seed_{seed}'
      lanes.append(sweep_plan.Lane(configuration, seed, 0, directory))
      path = os.path.join(workdir, directory)
      os.makedirs(path)
      steps = [250, 500, 750, 1000]
      with open(os.path.join(path, 'eval.csv'), 'w', newline='') as f:
        writer = csv.DictWriter(f, ['step', 'mean_return',
                                    'mean_episode_length'])
        writer.writeheader()
        for step in steps:
          writer.writerow({'step': step, 'mean_return': 1.0,
                           'mean_episode_length':
                               57.8 - (57.8 - final) * step / STEPS})
      with open(os.path.join(path, 'result.json'), 'w') as f:
        json.dump({'agent': 'ppo', 'env': 'plane_strike', 'seed': seed,
                   'status': 'finished', 'env_steps': STEPS, 'episodes': 10,
                   'updates': 4, 'wall_seconds': 1.0,
                   'evaluations': len(steps), 'eval_mean_return': 1.0,
                   'eval_mean_episode_length': final}, f)
  sweep_plan.prepare_workdir(sweep, lanes, workdir, 'python -m '
                             'experiments.sweep --agent=ppo')


def test_ranks_lower_first_and_draws_curves_as_png_and_pdf(tmp_path,
                                                           monkeypatch):
  workdir = str(tmp_path)
  _make_sweep(workdir)
  drawn = []
  draw = plots.learning_curves
  monkeypatch.setattr(plots, 'learning_curves',
                      lambda *a, **k: drawn.append((a, k)) or draw(*a, **k))
  result = ranking.write(workdir, reps=100)
  assert [r['configuration'] for r in result['configurations']] == [1, 0]
  for name in ('curves.png', 'curves.pdf', 'sweep.md', 'best_preset.json'):
    assert os.path.exists(os.path.join(workdir, name)), name
  (args, kwargs), = drawn
  assert args[1] == 'plane_strike'  # Its y label says lower is better.
  assert list(args[2]) == ['#1 learning_rate=0.0003',
                           '#2 learning_rate=0.001']
  assert args[3] == {'#1 learning_rate=0.0003': 2,
                     '#2 learning_rate=0.001': 2}
  assert kwargs['title'] == 'PPO on Plane Strike: best configurations'
  fig = plots.learning_curves_figure(*args[1:], **kwargs)
  assert 'lower is better' in fig.axes[0].get_ylabel()
  assert '![learning curves](curves.png)' in open(
      os.path.join(workdir, 'sweep.md')).read()


def test_a_best_value_at_the_edge_of_the_values_tried_is_named():
  configurations = [{'learning_rate': lr, 'optimizer': o}
                    for lr in (1e-4, 3e-4, 1e-3) for o in ('adam', 'sgd')]
  assert ranking.edges(configurations,
                       {'learning_rate': 3e-4, 'optimizer': 'sgd'}) == []
  (edge,) = ranking.edges(configurations,
                          {'learning_rate': 1e-3, 'optimizer': 'adam'})
  assert edge.startswith('learning_rate=0.001 is the largest value tried '
                         '(0.0001 to 0.001)')
  (edge,) = ranking.edges(configurations, {'learning_rate': 1e-4})
  assert 'smallest' in edge
  assert ranking.edges([{'x': 1}], {'x': 1}) == []  # One value: no range.
