"""Tests for experiments/driver/run.py with the Python loop: outputs,
resume, bad workdirs."""

import csv
import json
import os
from unittest import mock

from absl.testing import absltest
import chex
import pytest

from agents import registry as agent_registry
from agents import reinforce
from experiments.driver import run as driver
from experiments.driver import workdir as workdir_lib
from experiments.loops import environment_loop
from experiments.setup import build as build_lib
from experiments.setup import config as config_lib

RESULT_FIELDS = ('agent', 'env', 'seed', 'env_steps', 'episodes',
                 'wall_seconds', 'eval_mean_return',
                 'eval_mean_episode_length', 'tflite_path')


def _config(**overrides):
  settings = dict(
      agent='reinforce', agent_config=reinforce.ReinforceConfig(batch_size=8),
      hidden_sizes=(32,),
      num_episodes=48, eval_episodes=10, eval_every_episodes=24,
      periodic_eval_episodes=5, log_every_episodes=8,
      checkpoint_every_updates=2, export_tflite=False, loop='python')
  settings.update(overrides)
  return config_lib.ExperimentConfig(**settings)


def _run(workdir, **overrides):
  """`run_experiment` of `_config(**overrides)` in `workdir`, quietly."""
  return driver.run_experiment(_config(**overrides), workdir, progress=False)


def _interrupted_after(episodes):
  """Ctrl-C (KeyboardInterrupt) as the environments' next step begins,
  once `episodes` episodes have ended."""
  real_step = environment_loop.EnvironmentLoop.step
  ended = []

  def step(loop):
    if len(ended) >= episodes:
      raise KeyboardInterrupt
    result = real_step(loop)
    ended.extend(result.lengths)
    return result

  return mock.patch.object(environment_loop.EnvironmentLoop, 'step', step)


class ExperimentTest(absltest.TestCase):

  @pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
  def test_writes_config_logs_checkpoints_and_result(self):
    workdir = self.create_tempdir().full_path
    result = _run(workdir)
    for field in RESULT_FIELDS:
      self.assertIn(field, result)
    self.assertEqual(result['episodes'], 48)
    self.assertEqual(result['updates'], 6)
    self.assertIsNone(result['tflite_path'])
    # Its steps are all host work, counted as training.
    self.assertGreater(result['time_account']['training'], 0.0)
    self.assertEqual(result['time_account']['host_round_trips'], 0.0)
    with open(os.path.join(workdir, 'result.json')) as f:
      self.assertEqual(json.load(f), json.loads(json.dumps(result)))
    with open(os.path.join(workdir, 'train.csv'), newline='') as f:
      rows = list(csv.DictReader(f))
    self.assertLen(rows, 6)  # Every 8 of 48 episodes.
    for column in ('train/strikes', 'train/policy_loss',
                   'perf/steps_per_second', 'progress/episodes',
                   'eval/strikes'):
      self.assertIn(column, rows[0])
    # Plane Strike's return is always 8: its length is named strikes.
    for column in ('train/episode_return', 'train/episode_length',
                   'eval/episode_return', 'train/loss', 'game_length'):
      self.assertNotIn(column, rows[0])
    self.assertNotEqual(rows[2]['eval/strikes'], '')  # At 24.
    self.assertTrue(os.listdir(os.path.join(workdir, 'tensorboard')))
    # config.json records how many checkpoints the run keeps (2, unset).
    self.assertEqual(workdir_lib.load_config(workdir),
                     _config(keep_checkpoints=2))

  @pytest.mark.slow  # Over 5 s cold (docs/testing.md).
  def test_resume_continues_from_checkpoint(self):
    workdir = self.create_tempdir().full_path
    first = _run(workdir, num_episodes=24)
    resumed = _run(workdir, num_episodes=48)
    self.assertEqual(first['updates'], 3)
    self.assertEqual(resumed['episodes'], 48)
    self.assertEqual(resumed['updates'], 6)
    self.assertGreater(resumed['env_steps'], first['env_steps'])
    self.assertGreater(resumed['wall_seconds'], first['wall_seconds'])
    with open(os.path.join(workdir, 'train.csv'), newline='') as f:
      steps = [int(r['step']) for r in csv.DictReader(f)]
    self.assertEqual(steps, sorted(steps))
    self.assertLen(steps, 6)

  @pytest.mark.slow  # Over 5 s cold (docs/testing.md).
  def test_interrupted_run_saves_and_resumes(self):
    workdir = self.create_tempdir().full_path
    with _interrupted_after(episodes=20):
      with self.assertRaises(KeyboardInterrupt):
        _run(workdir)
    config = _config()
    counters = driver.restored_loop(build_lib.build(config),
                                    workdir).counters()
    # KeyboardInterrupt (a second Ctrl-C) inside a row keeps the newest
    # checkpoint that matches the logs: after the second update's row.
    self.assertEqual(int(counters['episodes'][0]), 16)
    self.assertEqual(int(counters['updates'][0]), 2)
    resumed = driver.run_experiment(config, workdir, progress=False)
    self.assertEqual(resumed['episodes'], 48)

  @pytest.mark.slow
  def test_interrupted_recurrent_run_resumes_as_if_straight(self):
    # A part-filled unroll (its steps' recurrent states in their extras)
    # is saved with the checkpoint; the actor's state restarts with the
    # next episode, as it would have.
    config = _config(
        agent='ppo', env='catch', network='lstm_actor_critic',
        agent_config=agent_registry.make_config(
            'ppo', unroll_length=7, batch_size=2, num_minibatches=2),
        hidden_sizes=(8,), num_episodes=None, num_steps=180,
        eval_every_episodes=None, log_every_episodes=None,
        eval_every_steps=90, log_every_steps=45, checkpoint_every_updates=3)
    straight = self.create_tempdir().full_path
    expected = driver.run_experiment(config, straight, progress=False)
    interrupted = self.create_tempdir().full_path
    with _interrupted_after(episodes=9):
      with self.assertRaises(KeyboardInterrupt):
        driver.run_experiment(config, interrupted, progress=False)
    resumed = driver.run_experiment(config, interrupted, progress=False)
    for key in ('env_steps', 'episodes', 'updates', 'eval_mean_return'):
      self.assertEqual(resumed[key], expected[key])
    chex.assert_trees_all_equal(
        driver.restored_loop(build_lib.build(config), straight).actor_params(0),
        driver.restored_loop(build_lib.build(config),
                             interrupted).actor_params(0))

  def test_rerun_of_finished_run_trains_no_more(self):
    workdir = self.create_tempdir().full_path
    first = _run(workdir, num_episodes=16)
    again = _run(workdir, num_episodes=16)
    self.assertEqual(again['env_steps'], first['env_steps'])
    self.assertEqual(again['updates'], first['updates'])

  def test_workdir_of_another_experiment_is_refused(self):
    workdir = self.create_tempdir().full_path
    _run(workdir, num_episodes=8)
    with self.assertRaisesRegex(ValueError, r'different experiment.*seed.*'
                                r'new --workdir'):
      _run(workdir, seed=5)

  def test_continuous_actions_refused_before_anything_is_written(self):
    workdir = os.path.join(self.create_tempdir().full_path, 'run')
    with self.assertRaisesRegex(
        build_lib.ExperimentError,
        r"gym:Pendulum-v1: Agent 'reinforce' acts in discrete action spaces; "
        r'.*continuous \(shape \(1,\), bounds \[-2, 2\]\)'):
      _run(workdir, env='gym:Pendulum-v1')
    self.assertFalse(os.path.exists(workdir))

  def test_step_budget_alone_stops_training(self):
    workdir = self.create_tempdir().full_path
    result = driver.run_experiment(
        _config(num_episodes=None, num_steps=300), workdir, progress=True)
    self.assertGreaterEqual(result['env_steps'], 300)
    self.assertLess(result['env_steps'], 300 + 128)  # One more episode at most.

  def test_evaluations_every_n_steps_go_to_eval_csv(self):
    workdir = self.create_tempdir().full_path
    driver.run_experiment(
        _config(agent='reinforce', env='catch', num_episodes=40,
                eval_every_episodes=0, eval_every_steps=90), workdir,
        progress=False)
    with open(os.path.join(workdir, 'eval.csv'), newline='') as f:
      rows = list(csv.DictReader(f))
    # Catch lasts 9 steps: 360 steps, an evaluation at each multiple of 90.
    self.assertEqual([int(r['step']) for r in rows], [90, 180, 270, 360])
    self.assertEqual([int(r['episodes']) for r in rows], [10, 20, 30, 40])
    for row in rows:
      self.assertBetween(float(row['mean_return']), -1.0, 1.0)
      self.assertEqual(float(row['mean_episode_length']), 9.0)
      self.assertGreater(float(row['wall_seconds']), 0.0)

  def test_step_budgets_log_and_evaluate_by_steps_by_default(self):
    # A budget in steps: by default 30 log rows and 10 evaluations over
    # it, however few episodes it holds (before, intervals counted
    # episodes, and a short run could end with empty logs).
    workdir = self.create_tempdir().full_path
    settings = {k: None for k in config_lib.INTERVAL_KEYS}
    driver.run_experiment(
        _config(agent='reinforce', env='catch', num_episodes=None,
                num_steps=400, checkpoint_every_updates=None, **settings),
        workdir, progress=False)
    with open(os.path.join(workdir, 'eval.csv'), newline='') as f:
      steps = [int(r['step']) for r in csv.DictReader(f)]
    # Catch lasts 9 steps: the first episode end at or past each 40 steps.
    self.assertEqual(steps, [45, 81, 126, 162, 207, 243, 288, 324, 360, 405])
    with open(os.path.join(workdir, 'train.csv'), newline='') as f:
      rows = list(csv.DictReader(f))
    # A row at the first episode end past each multiple of 13 (400 // 30)
    # or of 40 (an evaluation).
    expected, previous = [], 0
    for end in range(9, 406, 9):
      if end // 13 > previous // 13 or end // 40 > previous // 40:
        expected.append(end)
        previous = end
    self.assertEqual([int(r['step']) for r in rows], expected)

  def test_export_filename(self):
    self.assertEqual(workdir_lib.export_filename('plane_strike'),
                     'planestrike.tflite')


if __name__ == '__main__':
  absltest.main()
