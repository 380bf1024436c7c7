"""End-to-end tests of experiments.compare and experiments.sweep on a
continuous-control game (gymnax's Pendulum): PPO (Gaussian) against SAC,
and a PPO learning-rate sweep, at tiny budgets, through the command line."""

import csv
import json
import os
import shutil
import tempfile

from absl.testing import absltest
import numpy as np
import pytest
from tests import commands
from tests import unrendered_figures

pytestmark = pytest.mark.slow  # Whole commands; see docs/testing.md.

PENDULUM = 'gymnax:Pendulum-v1'
RUNS = os.path.join('runs', 'gymnax_Pendulum-v1')
# Both commands start from the pairs' presets (ppo_pendulum, sac_pendulum)
# with budgets cut down: PPO 4 environments x 64 steps per update, SAC
# learning from step 200 on minibatches of 32, one SGD step per 8
# environment steps (its SGD steps were most of the module's time).
_EVALUATION = ('--seeds=2', '--num_steps=2048', '--eval_points=2',
               '--eval_episodes=3', '--periodic_eval_episodes=2',
               '--noprogress')
_PPO = {'batch_size': 4, 'unroll_length': 64, 'num_minibatches': 4,
        'num_epochs': 2}
_SAC = {'batch_size': 32, 'min_replay_size': 200, 'update_period': 8}


def _run(module, *args):
  return commands.run(module, *args)


def _read_json(*path):
  with open(os.path.join(*path)) as f:
    return json.load(f)


@pytest.mark.slow
class CompareAndSweepTest(absltest.TestCase):
  """One comparison (PPO vs SAC, 2 seeds) and one sweep (PPO, two learning
  rates, 2 seeds)."""

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.root = tempfile.mkdtemp(prefix='continuous_compare_test_')
    cls.compare_dir = os.path.join(cls.root, 'compare')
    cls.sweep_dir = os.path.join(cls.root, 'sweep')
    cls.enterClassContext(unrendered_figures.unrendered())
    cls.compare = _run(
        'experiments.compare', '--agents=ppo,sac', f'--envs={PENDULUM}',
        *_EVALUATION, '--bootstrap_reps=200',
        *[f'--config.ppo.{k}={v}' for k, v in _PPO.items()],
        *[f'--config.sac.{k}={v}' for k, v in _SAC.items()],
        f'--workdir={cls.compare_dir}')
    cls.sweep = _run(
        'experiments.sweep', '--agent=ppo', f'--env={PENDULUM}',
        *_EVALUATION, '--bootstrap_reps=100',
        '--grid=learning_rate:1e-3,3e-4', '--held_out_seeds=0',
        *[f'--config.{k}={v}' for k, v in _PPO.items()],
        f'--workdir={cls.sweep_dir}')

  @classmethod
  def tearDownClass(cls):
    shutil.rmtree(cls.root, ignore_errors=True)
    super().tearDownClass()

  def test_comparison_reports_both_agents_per_seed(self):
    self.assertEqual(self.compare.returncode, 0,
                     self.compare.stderr[-3000:])
    self.assertIn('2 run groups, 0 finished already; training 2.',
                  self.compare.stdout)
    for name in ('report.md', 'report.json', 'comparison.json',
                 'curves_gymnax_Pendulum-v1.png',
                 os.path.join('tables', 'per_seed.csv'),
                 os.path.join('tables', 'per_env.csv')):
      self.assertTrue(os.path.exists(os.path.join(self.compare_dir, name)),
                      name)
    report = _read_json(self.compare_dir, 'report.json')
    self.assertTrue(report['complete'])
    self.assertEqual(report['left_out_runs'], [])
    per_seed = {(r['agent'], r['seed']): r for r in report['per_seed']}
    self.assertEqual(sorted(per_seed), [('ppo', 0), ('ppo', 1), ('sac', 0),
                                        ('sac', 1)])
    agents = report['envs'][PENDULUM]['agents']
    self.assertEqual(sorted(agents), ['ppo', 'sac'])
    for (agent, seed), row in per_seed.items():
      with self.subTest(agent=agent, seed=seed):
        self.assertEqual((row['env'], row['status']), (PENDULUM, 'finished'))
        self.assertBetween(row['score'], -2000.0, 0.0)
        self.assertGreaterEqual(row['env_steps'], 2048)
        # The report's number is the run's own final evaluation.
        result = _read_json(self.compare_dir, RUNS, agent, f'seed_{seed}',
                            'result.json')
        self.assertEqual((result['agent'], result['seed'], result['status']),
                         (agent, seed, 'finished'))
        self.assertEqual(row['score'], result['eval_mean_return'])
        self.assertEqual(agents[agent]['scores'][
            agents[agent]['seeds'].index(seed)], result['eval_mean_return'])
        with open(os.path.join(self.compare_dir, RUNS, agent,
                               f'seed_{seed}', 'eval.csv')) as f:
          self.assertLen(list(csv.DictReader(f)), 2)  # --eval_points.
    config = _read_json(self.compare_dir, RUNS, 'sac', 'config.json')
    self.assertEqual(config['preset'], 'sac_pendulum')
    self.assertEqual(config['agent_config']['min_replay_size'], 200)
    with open(os.path.join(self.compare_dir, 'report.md')) as f:
      markdown = f.read()
    for agent in ('PPO', 'SAC'):
      self.assertRegex(markdown, rf'\| {agent} \| 2 \| -\d+\.\d+ \[')
    with open(os.path.join(self.compare_dir, 'tables', 'per_seed.csv')) as f:
      self.assertLen(list(csv.DictReader(f)), 4)

  def test_sweep_ranks_the_learning_rates(self):
    self.assertEqual(self.sweep.returncode, 0, self.sweep.stderr[-3000:])
    # Learning rates keep shapes: both configurations share one program.
    self.assertIn('2 configurations × 2 seeds in 1 programs',
                  self.sweep.stdout)
    for name in ('sweep.md', 'sweep_results.json', 'curves.png',
                 'best_preset.json'):
      self.assertTrue(os.path.exists(os.path.join(self.sweep_dir, name)),
                      name)
    results = _read_json(self.sweep_dir, 'sweep_results.json')
    self.assertEqual((results['env'], results['preset'], results['metric']),
                     (PENDULUM, 'ppo_pendulum', 'mean_return'))
    ranked = results['configurations']
    self.assertEqual(sorted(r['values']['learning_rate'] for r in ranked),
                     [3e-4, 1e-3])
    self.assertEqual([r['rank'] for r in ranked], [1, 2])
    for configuration in ranked:
      self.assertTrue(configuration['complete'])
      self.assertLen(configuration['scores'], 2)
      for score in configuration['scores']:
        self.assertBetween(score, -2000.0, 0.0)
    means = [r['mean']['point'] for r in ranked]
    self.assertEqual(means, sorted(means, reverse=True))  # Higher is better.
    preset = _read_json(self.sweep_dir, 'best_preset.json')
    self.assertEqual((preset['agent'], preset['env']), ('ppo', PENDULUM))
    self.assertEqual(preset['config']['learning_rate'],
                     ranked[0]['values']['learning_rate'])

  def test_a_sweep_lane_is_the_run_that_configuration_is_alone(self):
    # ppo_pendulum's learning rate is 1e-3: that lane of the sweep and the
    # comparison's PPO runs are the same settings, seeds and evaluations.
    self.assertEqual(self.compare.returncode, 0)
    self.assertEqual(self.sweep.returncode, 0)
    (lane,) = [r for r in _read_json(self.sweep_dir, 'sweep_results.json')
               ['configurations'] if r['values']['learning_rate'] == 1e-3]
    compared = [_read_json(self.compare_dir, RUNS, 'ppo', f'seed_{seed}',
                           'result.json')['eval_mean_return']
                for seed in (0, 1)]
    swept = [lane['seeds'][str(seed)]['score'] for seed in (0, 1)]
    np.testing.assert_allclose(swept, compared, rtol=1e-4)


class RefusalTest(absltest.TestCase):

  def test_pairs_of_the_wrong_action_space_are_refused_before_writing(self):
    root = self.create_tempdir().full_path
    compare_dir = os.path.join(root, 'compare')
    compare = _run('experiments.compare', '--agents=sac,dqn',
                   f'--envs={PENDULUM},catch', '--seeds=1',
                   '--num_steps=1000', f'--workdir={compare_dir}')
    self.assertNotEqual(compare.returncode, 0)
    self.assertIn('These agent × environment pairs cannot run',
                  compare.stderr)
    self.assertRegex(compare.stderr,
                     rf"dqn on {PENDULUM}: .*Agent 'dqn' acts in discrete "
                     r'action spaces.*Agents for continuous actions: ppo, '
                     r'sac, td3\.')
    self.assertRegex(compare.stderr,
                     r"sac on catch: .*Agent 'sac' acts in continuous action "
                     r'spaces.*Agents for discrete actions: a2c, alphazero, '
                     r'c51, dqn, impala, muzero, ppo, pqn, qr_dqn, reinforce\.')
    self.assertNotRegex(compare.stderr, rf'sac on {PENDULUM}|dqn on catch')
    self.assertFalse(os.path.exists(compare_dir))
    sweep_dir = os.path.join(root, 'sweep')
    sweep = _run('experiments.sweep', '--agent=dqn', f'--env={PENDULUM}',
                 '--seeds=1', '--num_steps=1000',
                 '--grid=learning_rate:1e-3,3e-4', f'--workdir={sweep_dir}')
    self.assertNotEqual(sweep.returncode, 0)
    self.assertRegex(sweep.stderr, r"Agent 'dqn' acts in discrete action "
                     r'spaces.*Agents for continuous actions: ppo, sac, td3\.')
    self.assertNotIn('Traceback', sweep.stderr)
    self.assertFalse(os.path.exists(sweep_dir))


if __name__ == '__main__':
  absltest.main()
