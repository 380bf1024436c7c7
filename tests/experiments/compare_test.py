"""Tests for the experiments.compare command line."""

import json
import os
import subprocess
import sys

from absl.testing import absltest
import pytest

from experiments.storage import workdir_format
from tests import commands
from tests import unrendered_figures

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

pytestmark = pytest.mark.slow  # Whole commands; see docs/testing.md.

_SMALL = ('--seeds=2', '--num_steps=720', '--eval_points=2',
          '--eval_episodes=20', '--periodic_eval_episodes=10',
          '--bootstrap_reps=200', '--noprogress')


def _compare(*args):
  return commands.run('experiments.compare', *args)


def _compare_in_a_process(*args):
  """For Ray, whose local cluster lives as long as the process."""
  return subprocess.run(
      [sys.executable, '-m', 'experiments.compare', *args], cwd=_REPO,
      capture_output=True, text=True, timeout=600, check=False)


class CompareTest(unrendered_figures.TestCase):

  def test_trains_reports_and_skips_finished_runs_when_rerun(self):
    workdir = self.create_tempdir().full_path
    args = ('--agents=reinforce,ppo', '--envs=catch', *_SMALL,
            '--config.learning_rate=0.003', '--config.ppo.discount=0.9',
            f'--workdir={workdir}')
    first = _compare(*args)
    self.assertEqual(first.returncode, 0, first.stderr)
    self.assertIn('2 run groups, 0 finished already; training 2.',
                  first.stdout)
    # 720 steps is far below the presets' tuning: said before training.
    self.assertRegex(first.stdout, r'WARNING: PPO on catch trains 720 '
                     r'steps, below the [\d,]+ its preset ppo_catch')
    for name in ('report.md', 'report.json', 'curves_catch.png',
                 'aggregate.png', 'probability_of_improvement.png'):
      self.assertTrue(os.path.exists(os.path.join(workdir, name)), name)
    with open(os.path.join(workdir, 'comparison.json')) as f:
      saved = json.load(f)
    self.assertEqual(saved['overrides'], {'learning_rate': 0.003})
    self.assertEqual(saved['agent_overrides'], {'ppo': {'discount': 0.9}})
    self.assertIn('--config.learning_rate=0.003', saved['command'])
    with open(os.path.join(workdir, 'runs', 'catch', 'ppo',
                           'config.json')) as f:
      config = json.load(f)
    self.assertEqual(config['preset'], 'ppo_catch')
    self.assertEqual(config['agent_config']['learning_rate'], 0.003)
    self.assertEqual(config['agent_config']['discount'], 0.9)
    self.assertEqual(config['agent_config']['num_epochs'], 10)  # Preset's.
    with open(os.path.join(workdir, 'report.md')) as f:
      report = f.read()
    self.assertIn('reinforce', report)
    self.assertIn('| Preset |  | ppo_catch |  |', report)
    self.assertIn('| discount | 0.99 | **0.9** | Catch |', report)
    self.assertIn('Budgets cut some agents short', report)
    self.assertRegex(report, r'> - PPO on catch trains 720 steps')

    second = _compare(*args)
    self.assertEqual(second.returncode, 0, second.stderr)
    self.assertIn('2 run groups, 2 finished already; training 0.',
                  second.stdout)

  def test_ray_launcher_runs_the_groups_as_ray_tasks(self):
    pytest.importorskip('ray')  # The optional extra: pip install -e .[ray]
    workdir = self.create_tempdir().full_path
    result = _compare_in_a_process(
        '--agents=reinforce', '--envs=catch', *_SMALL, '--launcher=ray',
        '--ray_num_cpus=1', f'--workdir={workdir}')
    self.assertEqual(result.returncode, 0, result.stderr)
    self.assertIn('[1/1] reinforce on catch, seeds 0-1: done', result.stdout)
    for seed in (0, 1):
      self.assertTrue(os.path.exists(os.path.join(
          workdir, 'runs', 'catch', 'reinforce', f'seed_{seed}',
          'result.json')))
    self.assertTrue(os.path.exists(os.path.join(workdir, 'report.md')))

  def test_bad_input_is_refused_before_anything_is_written(self):
    workdir = os.path.join(self.create_tempdir().full_path, 'comparison')
    cases = [
        (('--agents=reinforce,sarsa', '--envs=catch'),
         r'--agents: Unknown agent .sarsa.\. Valid names: a2c, alphazero, c51, '
         r'dqn, impala, muzero, ppo, pqn, qr_dqn, reinforce, sac, td3'),
        (('--agents=dqn', '--envs=catch,gym:Pendulum-v1'),
         r"dqn on gym:Pendulum-v1: Agent 'dqn' acts in discrete action "
         r'spaces; .*continuous \(shape \(1,\), bounds \[-2, 2\]\)'),
        (('--agents=reinforce', '--envs=catch', '--config.double_q=true'),
         r'--config.double_q: no agent of --agents \(reinforce\)'),
        (('--agents=dqn', '--envs=catch', '--config.dqn.clip_epsilon=0.1'),
         r"Unknown config key\(s\) \['clip_epsilon'\] for agent 'dqn'"),
        (('--agents=dqn', '--envs=catch', '--preset=fast'),
         r"Unknown preset 'fast'. Valid presets: a2c_cartpole"),
        (('--agents=dqn', '--envs=catch', '--num_steps=catch:900,chess:5'),
         r"--num_steps: 'chess' is not one of --envs \(catch\)"),
        (('--agents=dqn', '--envs=catch', '--num_steps=many'),
         r"--num_steps: 'many' is not <env>:<steps>"),
    ]
    for args, message in cases:
      result = _compare(*_SMALL, *args, f'--workdir={workdir}')
      self.assertNotEqual(result.returncode, 0)
      self.assertRegex(result.stderr, message)
      self.assertFalse(os.path.exists(workdir), args)

  def test_workdir_of_another_comparison_is_refused(self):
    workdir = self.create_tempdir().full_path
    with open(os.path.join(workdir, 'comparison.json'), 'w') as f:
      json.dump(workdir_format.stamped(
          {'agents': ['reinforce'], 'envs': ['catch'], 'seeds': [0, 1],
           'num_steps': {'catch': 5000}}), f)
    result = _compare('--agents=reinforce', '--envs=catch', *_SMALL,
                      f'--workdir={workdir}')
    self.assertNotEqual(result.returncode, 0)
    self.assertRegex(result.stderr,
                     r'holds a different comparison \(.*num_steps.catch: '
                     r'saved 5000, now 720; ')
    self.assertEqual(os.listdir(workdir), ['comparison.json'])


if __name__ == '__main__':
  absltest.main()
