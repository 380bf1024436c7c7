"""Tests for the experiments/sweep.py entry point, through the CLI."""

import json
import os

from absl.testing import absltest
import pytest
from tests import commands
from tests import unrendered_figures

pytestmark = pytest.mark.slow  # Whole commands; see docs/testing.md.

_SMALL = ('--agent=ppo', '--env=catch', '--seeds=2', '--num_steps=1024',
          '--eval_points=2', '--eval_episodes=10',
          '--periodic_eval_episodes=5', '--bootstrap_reps=100',
          '--noprogress')


def _sweep(*args):
  return commands.run('experiments.sweep', *args)


class SweepTest(unrendered_figures.TestCase):

  def test_ranks_writes_a_preset_and_skips_finished_programs(self):
    workdir = self.create_tempdir().full_path
    args = (*_SMALL, '--grid=learning_rate:1e-3,3e-4',
            '--grid=num_epochs:2,4', f'--workdir={workdir}')
    first = _sweep(*args)
    self.assertEqual(first.returncode, 0, first.stderr[-3000:])
    # num_epochs changes the program; learning rates share one.
    self.assertIn('4 configurations × 2 seeds in 2 programs', first.stdout)
    for name in ('sweep.md', 'sweep_results.json', 'curves.png',
                 'curves.pdf', 'best_preset.json'):
      self.assertTrue(os.path.exists(os.path.join(workdir, name)), name)
    with open(os.path.join(workdir, 'sweep_results.json')) as f:
      ranked = json.load(f)['configurations']
    self.assertLen(ranked, 4)
    self.assertEqual([r['rank'] for r in ranked], [1, 2, 3, 4])
    means = [r['mean']['point'] for r in ranked]
    self.assertEqual(means, sorted(means, reverse=True))  # Return: higher.
    with open(os.path.join(workdir, 'best_preset.json')) as f:
      preset = json.load(f)
    self.assertEqual(preset['config']['learning_rate'],
                     ranked[0]['values']['learning_rate'])
    self.assertIn('--grid=num_epochs:2,4', preset['source'])
    # Rank 1 trains again on seeds the ranking never saw, reported beside.
    self.assertIn('Rank 1 again on 2 fresh seeds.', first.stdout)
    with open(os.path.join(workdir, 'sweep_results.json')) as f:
      results = json.load(f)
    self.assertEqual(results['held_out']['seeds'], [2, 3])
    self.assertEqual(results['held_out']['configuration'],
                     ranked[0]['configuration'])
    self.assertIn('fresh seeds', preset['source'])
    with open(os.path.join(workdir, 'sweep.md')) as f:
      markdown = f.read()
    self.assertIn('**Rank 1 on fresh seeds.**', markdown)
    # A two-value grid: the best value is always at an edge, and is named.
    self.assertRegex(first.stdout, r'WARNING: learning_rate=[\d.e-]+ is the '
                     r'(smallest|largest) value tried \(0.0003 to 0.001\)')
    self.assertIn('> **At the edge:** learning_rate=', markdown)

    second = _sweep(*args)
    self.assertEqual(second.returncode, 0, second.stderr[-3000:])
    self.assertIn('2 finished already; training 0', second.stdout)

    # The preset file trains with train --preset.
    train_dir = os.path.join(workdir, 'train')
    trained = commands.run(
        'experiments.train', '--agent=ppo', '--env=catch',
        f'--preset={workdir}/best_preset.json', '--num_steps=512',
        '--eval_episodes=2', '--noexport_tflite', '--noprogress',
        f'--workdir={train_dir}')
    self.assertEqual(trained.returncode, 0, trained.stderr[-3000:])
    with open(os.path.join(train_dir, 'config.json')) as f:
      self.assertEqual(json.load(f)['preset'], 'ppo_catch_sweep')

  def test_python_loop_environments_run_a_program_per_run(self):
    workdir = self.create_tempdir().full_path
    result = _sweep('--agent=dqn', '--env=bsuite:catch/0', '--seeds=2',
                    '--num_steps=300', '--grid=learning_rate:1e-3,3e-4',
                    '--eval_points=2', '--eval_episodes=5',
                    '--periodic_eval_episodes=2', '--bootstrap_reps=100',
                    '--noprogress', f'--workdir={workdir}')
    self.assertEqual(result.returncode, 0, result.stderr[-3000:])
    self.assertIn('2 configurations × 2 seeds in 4 programs', result.stdout)
    with open(os.path.join(workdir, 'sweep_results.json')) as f:
      ranked = json.load(f)['configurations']
    self.assertEqual([len(r['scores']) for r in ranked], [2, 2])

  def test_bad_input_is_refused_before_anything_is_written(self):
    workdir = os.path.join(self.create_tempdir().full_path, 'sweep')
    cases = [
        (('--grid=learning_rat:1e-3',), r"no config key 'learning_rat'"),
        (('--grid=batch_size:4,x',), r"'x' is not a valid int"),
        (('--grid=discount:0.5,1.5',), r'discount must be in \[0, 1\]'),
        (('--grid=learning_rate:1e-3', '--preset=fast'), 'Unknown preset'),
        (('--grid=learning_rate:1e-3,3e-4', '--max_memory_gb=0.0005'),
         r'needs about .* GiB, over --max_memory_gb'),
    ]
    for args, message in cases:
      result = _sweep(*_SMALL, *args, f'--workdir={workdir}')
      self.assertNotEqual(result.returncode, 0, args)
      self.assertRegex(result.stderr, message)
      self.assertFalse(os.path.exists(workdir), args)


if __name__ == '__main__':
  absltest.main()
