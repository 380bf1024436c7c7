"""Tests for experiments/driver/seed_logs.py: what each seed's logs hold."""

import csv
import dataclasses
import os
import sys
import types
from unittest import mock

from absl.testing import absltest
import numpy as np
import pytest
from tensorboard.backend.event_processing import event_accumulator
from tensorboard.plugins.hparams import plugin_data_pb2

from agents import registry as agent_registry
from experiments.driver import run as driver
from experiments.driver import seed_logs
from experiments.setup import config as config_lib
from experiments.storage import tensorboard_hparams
from experiments.storage import wandb_logger


def _config(**overrides):
  settings = dict(
      agent='reinforce', env='plane_strike', seed=3, num_seeds=2,
      agent_config=agent_registry.make_config('reinforce', batch_size=4),
      hidden_sizes=(16,), num_episodes=40, export_tflite=False,
      loop='compiled')
  settings.update(overrides)
  return config_lib.ExperimentConfig(**settings)


def _counters(steps, episodes=(5, 6), updates=(1, 1)):
  return {'env_steps': np.asarray(steps, np.int64),
          'episodes': np.asarray(episodes, np.int64),
          'updates': np.asarray(updates, np.int64)}


def _csv(path):
  with open(path, newline='') as f:
    return list(csv.DictReader(f))


def _hparams(logdir):
  """The settings TensorBoard reads from `logdir`'s session start."""
  (path,) = tensorboard_hparams.event_files(logdir)
  accumulator = event_accumulator.EventAccumulator(path)
  accumulator.Reload()
  content = accumulator.PluginTagToContent('hparams')[
      tensorboard_hparams.SESSION_START_TAG]
  hparams = plugin_data_pb2.HParamsPluginData.FromString(
      content).session_start_info.hparams
  return {k: getattr(v, v.WhichOneof('kind')) for k, v in hparams.items()}


ROWS = [{'steps_per_second': 100.0, 'episodes_per_second': 4.0,
         'episode_return': 8.0, 'episode_length': 30.0,
         'policy_loss': 0.25},
        {'steps_per_second': 90.0, 'episodes_per_second': 3.0,
         'episode_return': 8.0, 'episode_length': 40.0,
         'policy_loss': 0.5}]
GREEDY = {'mean_return': np.asarray([8.0, 8.0], np.float32),
          'mean_episode_length': np.asarray([20.25, 22.5], np.float32)}


class SeedLogsTest(absltest.TestCase):

  def test_each_seed_logs_grouped_rows_and_its_settings(self):
    workdir = self.create_tempdir().full_path
    logs = seed_logs.SeedLogs(_config(), workdir, [3, 4],
                              _counters([0, 0]), None)
    logs.write(ROWS, GREEDY, _counters([150, 160]), 2.5)
    logs.close()
    for lane, seed in enumerate((3, 4)):
      directory = os.path.join(workdir, f'seed_{seed}')
      (row,) = _csv(os.path.join(directory, seed_logs.TRAIN_LOG))
      self.assertEqual(row, {
          'step': str(150 + 10 * lane),
          'progress/episodes': str(5 + lane), 'progress/updates': '1',
          'perf/steps_per_second': str(ROWS[lane]['steps_per_second']),
          'perf/episodes_per_second':
              str(ROWS[lane]['episodes_per_second']),
          'train/strikes': str(ROWS[lane]['episode_length']),
          'train/policy_loss': str(ROWS[lane]['policy_loss']),
          'eval/strikes': ('20.25', '22.5')[lane],
          'perf/wall_seconds': '2.5'})
      # eval.csv keeps its columns (comparisons and resumes read them).
      (evaluation,) = _csv(os.path.join(directory, seed_logs.EVAL_LOG))
      self.assertEqual(evaluation, {
          'step': str(150 + 10 * lane), 'mean_return': '8.0',
          'mean_episode_length': ('20.25', '22.5')[lane],
          'episodes': str(5 + lane), 'wall_seconds': '2.5'})
      settings = _hparams(os.path.join(directory, seed_logs.TENSORBOARD))
      self.assertEqual(
          {k: settings[k] for k in ('agent', 'env', 'seed', 'num_envs',
                                    'batch_size', 'max_grad_norm',
                                    'network')},
          {'agent': 'reinforce', 'env': 'plane_strike', 'seed': seed,
           'num_envs': 4.0, 'batch_size': 4.0, 'max_grad_norm': 'None',
           'network': 'mlp_policy'})


class _FakeRun:

  def __init__(self, kwargs):
    self.kwargs, self.id, self.step, self.logged = kwargs, kwargs['id'], 0, []

  def log(self, values, step):
    self.logged.append((step, values))

  def finish(self):
    pass


def _fake_wandb():
  module = types.ModuleType('wandb')
  module.runs = []
  module.init = lambda **kwargs: module.runs.append(_FakeRun(kwargs)) or (
      module.runs[-1])
  module.Settings = lambda **kwargs: kwargs
  return module


@pytest.mark.slow
class WandbTest(absltest.TestCase):

  def test_a_run_logs_each_seed_to_wandb_and_resumes_the_same_runs(self):
    fake = _fake_wandb()
    workdir = os.path.join(self.create_tempdir().full_path, 'runs', 'ps')
    config = _config(wandb_project='planestrike', env='catch',
                     eval_every_episodes=16, log_every_episodes=8,
                     periodic_eval_episodes=5, eval_episodes=5,
                     checkpoint_every_updates=2, num_episodes=24)
    with mock.patch.dict(sys.modules, {'wandb': fake}), mock.patch.dict(
        os.environ, {'WANDB_MODE': 'offline'}):
      driver.run_experiment(config, workdir, progress=False)
      first = {run.kwargs['name']: run for run in fake.runs}
      fake.runs.clear()
      driver.run_experiment(  # Resumed, with a larger budget.
          dataclasses.replace(config, num_episodes=40),
          workdir, progress=False)
    resumed = {run.kwargs['name']: run for run in fake.runs}
    self.assertCountEqual(first, [f'{workdir}/seed_3', f'{workdir}/seed_4'])
    for name, run in first.items():
      seed = int(name.rsplit('_', 1)[1])
      self.assertEqual(run.kwargs['project'], 'planestrike')
      self.assertEqual(run.kwargs['group'], workdir)
      self.assertEqual((run.kwargs['config']['seed'],
                        run.kwargs['config']['env']), (seed, 'catch'))
      directory = os.path.join(workdir, f'seed_{seed}')
      self.assertEqual(run.kwargs['dir'], directory)
      # The rows of train.csv, by the same names.
      rows = _csv(os.path.join(directory, seed_logs.TRAIN_LOG))
      logged = run.logged + resumed[name].logged
      self.assertEqual([step for step, _ in logged],
                       [int(r['step']) for r in rows])
      self.assertEqual(
          [v['train/episode_return'] for _, v in logged],
          [float(r['train/episode_return']) for r in rows])
      self.assertIn('eval/episode_return', logged[1][1])
      self.assertNotIn('train/episode_length', logged[0][1])
      # The resumed session continues the same W&B run.
      self.assertEqual(resumed[name].id, run.id)
      with open(os.path.join(directory, wandb_logger.RUN_ID_FILE)) as f:
        self.assertEqual(f.read().strip(), run.id)


if __name__ == '__main__':
  absltest.main()
