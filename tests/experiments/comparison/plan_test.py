"""Tests for experiments/comparison/plan.py: planning, checks, reruns, determinism."""

import csv
import dataclasses
import json
import os
from unittest import mock

from absl.testing import absltest
import pytest

from experiments.comparison import group_runner
from experiments.comparison import plan as comparison_lib
from experiments.comparison import run_groups
from experiments.driver import results
from experiments.driver import run as driver
from experiments.driver import workdir as workdir_lib
from experiments.storage import workdir_format

# Run outcomes; the rest of result.json (timings) differs between runs.
TIMING_KEYS = results.CIRCUMSTANCE_KEYS


def _comparison(**overrides):
  settings = dict(agents=('reinforce', 'ppo'), envs=('catch',), num_seeds=2,
                  num_steps=720, eval_points=2, eval_episodes=20,
                  periodic_eval_episodes=10)
  settings.update(overrides)
  return comparison_lib.Comparison(**settings)


def _run(comparison, workdir):
  groups = comparison_lib.plan(comparison, workdir)
  comparison_lib.prepare_workdir(comparison, groups, workdir, 'test')
  return groups, [group_runner.run_group(g, driver.run_experiment)
                  for g in groups]


def _metrics(result):
  return {k: v for k, v in result.items() if k not in TIMING_KEYS}


def _evaluations(directory):
  with open(os.path.join(directory, 'eval.csv'), newline='') as f:
    return [(r['step'], r['mean_return'], r['mean_episode_length'])
            for r in csv.DictReader(f)]


class PlanTest(absltest.TestCase):

  def test_seeds_of_a_jax_game_share_one_program(self):
    workdir = self.create_tempdir().full_path
    groups = comparison_lib.plan(
        _comparison(envs=('catch', 'bsuite:catch/0'), num_seeds=3), workdir)
    compiled = [g for g in groups if g.config.loop == 'compiled']
    python = [g for g in groups if g.config.loop == 'python']
    self.assertLen(compiled, 2)  # One per agent, all three seeds in it.
    self.assertEqual([g.seeds for g in compiled], [(0, 1, 2)] * 2)
    self.assertEqual(compiled[0].workdir,
                     os.path.join(workdir, 'runs', 'catch', 'reinforce'))
    self.assertEqual(compiled[0].seed_dirs[2],
                     os.path.join(workdir, 'runs', 'catch', 'reinforce',
                                  'seed_2'))
    self.assertLen(python, 6)  # The Python loop runs one seed per program.
    self.assertEqual(python[1].workdir,
                     os.path.join(workdir, 'runs', 'bsuite_catch_0',
                                  'reinforce', 'seed_1'))
    config = compiled[0].config
    self.assertEqual((config.num_steps, config.num_episodes), (720, None))
    self.assertEqual(config.eval_every_steps, 360)
    self.assertFalse(config.export_tflite)
    self.assertFalse(os.listdir(workdir))  # Planning writes nothing.

  def test_environment_ids_become_path_safe(self):
    self.assertEqual(run_groups.path_safe('bsuite:catch/0'),
                     'bsuite_catch_0')
    self.assertEqual(run_groups.path_safe('gym:CartPole-v1'),
                     'gym_CartPole-v1')
    self.assertEqual(run_groups.run_directory('plane_strike', 'ppo', 3),
                     os.path.join('runs', 'plane_strike', 'ppo', 'seed_3'))

  def test_one_seed_of_a_jax_game_trains_in_its_seed_directory(self):
    groups = comparison_lib.plan(_comparison(num_seeds=1), '/tmp/w')
    self.assertEqual(groups[0].workdir, groups[0].seed_dirs[0])

  def test_overrides_go_to_the_agents_that_have_the_key(self):
    groups = comparison_lib.plan(
        _comparison(overrides={'learning_rate': 0.01, 'num_epochs': 2}),
        '/tmp/w')
    reinforce, ppo = (g.config.agent_config for g in groups)
    self.assertEqual(reinforce.learning_rate, 0.01)
    self.assertFalse(hasattr(reinforce, 'num_epochs'))
    self.assertEqual((ppo.learning_rate, ppo.num_epochs), (0.01, 2))

  def test_override_no_agent_takes_is_refused(self):
    with self.assertRaisesRegex(comparison_lib.ComparisonError,
                                r'--config.double_q.*Valid keys: .*entropy'):
      comparison_lib.plan(_comparison(overrides={'double_q': True}), '/tmp/w')

  def test_unknown_names_list_the_valid_ones(self):
    with self.assertRaisesRegex(comparison_lib.ComparisonError,
                                r'--agents: .*sarsa.*a2c, alphazero, c51, dqn'):
      comparison_lib.plan(_comparison(agents=('sarsa',)), '/tmp/w')
    with self.assertRaisesRegex(comparison_lib.ComparisonError,
                                r'--envs: .*pong.*plane_strike'):
      comparison_lib.plan(_comparison(envs=('pong',)), '/tmp/w')

  def test_every_pair_that_cannot_run_is_named_at_once(self):
    with self.assertRaises(comparison_lib.ComparisonError) as raised:
      comparison_lib.plan(_comparison(
          agents=('reinforce', 'dqn', 'ppo'),
          envs=('catch', 'gym:Pendulum-v1')), '/tmp/w')
    message = str(raised.exception)
    self.assertIn('reinforce on gym:Pendulum-v1', message)
    self.assertIn('dqn on gym:Pendulum-v1', message)
    self.assertIn("Agent 'dqn' acts in discrete action spaces", message)
    self.assertNotIn('ppo on', message)  # PPO acts in both.
    self.assertNotIn('on catch', message)

  def test_bad_settings_name_their_flag(self):
    with self.assertRaisesRegex(comparison_lib.ComparisonError, '--seeds'):
      _comparison(num_seeds=0)
    with self.assertRaisesRegex(comparison_lib.ComparisonError,
                                '--agents.*twice'):
      _comparison(agents=('ppo', 'ppo'))
    with self.assertRaisesRegex(comparison_lib.ComparisonError,
                                '--eval_points'):
      _comparison(num_steps=10, eval_points=20)


class WorkdirTest(absltest.TestCase):

  def test_comparison_json_lists_settings_and_runs(self):
    workdir = self.create_tempdir().full_path
    comparison = _comparison()
    groups = comparison_lib.plan(comparison, workdir)
    comparison_lib.prepare_workdir(comparison, groups, workdir, 'the command')
    saved = comparison_lib.load(workdir)
    self.assertEqual(saved['command'], 'the command')
    self.assertEqual(saved['seeds'], [0, 1])
    self.assertEqual(saved['runs'][3], {
        'agent': 'ppo', 'env': 'catch', 'seed': 1,
        'directory': os.path.join('runs', 'catch', 'ppo', 'seed_1')})

  def test_comparison_of_another_workdir_format_is_refused(self):
    workdir = self.create_tempdir().full_path
    comparison = _comparison()
    groups = comparison_lib.plan(comparison, workdir)
    comparison_lib.prepare_workdir(comparison, groups, workdir, 'test')
    comparison_lib.load(workdir)  # This format reads.
    path = os.path.join(workdir, comparison_lib.FILENAME)
    with open(path) as f:
      saved = json.load(f)
    del saved['workdir_format']  # As an earlier version wrote it.
    with open(path, 'w') as f:
      json.dump(saved, f)
    for call in (lambda: comparison_lib.prepare_workdir(
        comparison, groups, workdir, 'test'),
                 lambda: comparison_lib.load(workdir)):
      with self.assertRaisesRegex(comparison_lib.ComparisonError,
                                  rf'workdir format 1, this one reads '
                                  rf'{workdir_format.FORMAT}\): '
                                  r'train again in a new --workdir'):
        call()

  def test_workdir_of_another_comparison_is_refused(self):
    workdir = self.create_tempdir().full_path
    first = _comparison()
    comparison_lib.prepare_workdir(
        first, comparison_lib.plan(first, workdir), workdir, 'test')
    second = _comparison(num_steps=1440)
    with self.assertRaisesRegex(comparison_lib.ComparisonError,
                                r'num_steps\.catch: saved 720, now 1440\)'):
      comparison_lib.prepare_workdir(
          second, comparison_lib.plan(second, workdir), workdir, 'test')

  def test_run_directory_of_another_experiment_is_refused(self):
    workdir = self.create_tempdir().full_path
    comparison = _comparison()
    groups = comparison_lib.plan(comparison, workdir)
    comparison_lib.prepare_workdir(comparison, groups, workdir, 'test')
    other = dataclasses.replace(groups[1].config, seed=7)
    workdir_lib.prepare(other, groups[1].workdir)
    with self.assertRaisesRegex(comparison_lib.ComparisonError,
                                r'ppo holds a run with other settings '
                                r'\(seed: saved 7, now 0\)'):
      comparison_lib.prepare_workdir(comparison, groups, workdir, 'test')

  def test_load_names_a_workdir_that_is_not_a_comparison(self):
    with self.assertRaisesRegex(comparison_lib.ComparisonError,
                                'experiments.compare'):
      comparison_lib.load(self.create_tempdir().full_path)


class RunTest(absltest.TestCase):

  @pytest.mark.slow
  def test_rerun_skips_finished_groups_and_resumes_unfinished_ones(self):
    workdir = self.create_tempdir().full_path
    comparison = _comparison(agents=('reinforce',))
    groups, (results,) = _run(comparison, workdir)
    self.assertLen(results, 2)
    self.assertTrue(groups[0].finished())
    trained_again = mock.Mock(side_effect=AssertionError('trained again'))
    self.assertEqual(group_runner.run_group(groups[0], trained_again),
                     results)
    # A group that lost a seed's result finishes again from its checkpoint.
    os.remove(os.path.join(groups[0].seed_dirs[1], 'result.json'))
    self.assertFalse(groups[0].finished())
    rerun = group_runner.run_group(groups[0], driver.run_experiment)
    self.assertEqual([_metrics(r) for r in rerun],
                     [_metrics(r) for r in results])

  @pytest.mark.slow
  def test_same_comparison_gives_identical_results(self):
    # One agent in both loops (PPO's determinism: the resume tests).
    comparison = _comparison(agents=('reinforce',),
                             envs=('catch', 'bsuite:catch/0'))
    first_dir = self.create_tempdir().full_path
    second_dir = self.create_tempdir().full_path
    groups, first = _run(comparison, first_dir)
    _, second = _run(comparison, second_dir)
    first = [_metrics(r) for results in first for r in results]
    second = [_metrics(r) for results in second for r in results]
    self.assertLen(first, 4)  # 2 environments x 2 seeds.
    self.assertEqual(first, second)
    self.assertEqual({r['env_steps'] >= 720 for r in first}, {True})
    for group in groups:
      for directory in group.seed_dirs:
        evaluations = _evaluations(directory)
        self.assertLen(evaluations, 2)
        self.assertEqual(
            evaluations,
            _evaluations(directory.replace(first_dir, second_dir)))

  @pytest.mark.slow
  def test_more_seeds_extend_a_finished_comparison(self):
    workdir = self.create_tempdir().full_path
    two = _comparison(agents=('reinforce',))
    first_groups, (first,) = _run(two, workdir)
    with open(os.path.join(first_groups[0].seed_dirs[0], 'result.json')) as f:
      kept = f.read()
    groups, results = _run(_comparison(agents=('reinforce',), num_seeds=4),
                           workdir)
    self.assertEqual([g.seeds for g in groups], [(0, 1), (2, 3)])
    self.assertEqual(results[0], first)  # Not trained again.
    with open(os.path.join(first_groups[0].seed_dirs[0], 'result.json')) as f:
      self.assertEqual(f.read(), kept)
    self.assertEqual(groups[1].workdir, os.path.join(
        workdir, 'runs', 'catch', 'reinforce', 'seeds_2-3'))
    self.assertEqual([r['seed'] for r in results[1]], [2, 3])
    with open(os.path.join(workdir, comparison_lib.FILENAME)) as f:
      saved = json.load(f)
    self.assertEqual(saved['seed_batches'], [[0, 2], [2, 2]])
    self.assertEqual([r['seed'] for r in saved['runs']], [0, 1, 2, 3])
    # Rerunning the extended command plans the same programs; fewer seeds
    # are refused, naming how many the workdir holds.
    self.assertEqual([g.workdir for g in comparison_lib.plan(
        _comparison(agents=('reinforce',), num_seeds=4), workdir)],
                     [g.workdir for g in groups])
    fewer = _comparison(agents=('reinforce',), num_seeds=3)
    with self.assertRaisesRegex(comparison_lib.ComparisonError,
                                r'--seeds: .* holds 4 seeds'):
      comparison_lib.check_workdir(
          fewer, comparison_lib.plan(fewer, workdir), workdir)


if __name__ == '__main__':
  absltest.main()
