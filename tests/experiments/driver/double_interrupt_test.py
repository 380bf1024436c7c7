"""A second Ctrl-C lands wherever it lands: inside a host call after the
training state advanced, inside a periodic evaluation, between the rows
being written. Whichever, the driver keeps only checkpoints that match its
logs, and the interrupted run, resumed, logs what an uninterrupted run logs,
row for row (tests per agent family: on-policy, replay with Rainbow's parts,
recurrent, and the Python loop)."""

import contextlib
import csv
import json
import os
from unittest import mock

import chex
import pytest

from agents import registry as agent_registry
from experiments.driver import run as driver
from experiments.driver import seed_logs
from experiments.loops import compiled_training
from experiments.loops import python_training
from experiments.setup import build as build_lib
from experiments.setup import config as config_lib

# Columns that time the run: the only ones an interruption may change.
_TIMINGS = ('perf/steps_per_second', 'perf/episodes_per_second',
            'perf/wall_seconds', 'wall_seconds')

_COMMON = dict(env='catch', hidden_sizes=(16,), eval_episodes=10,
               periodic_eval_episodes=5, checkpoint_every_updates=1,
               export_tflite=False)

# Each family's run: several calls, rows and periodic evaluations.
_FAMILIES = {
    'on_policy': dict(
        agent='ppo', num_steps=1280, eval_every_steps=320,
        log_every_steps=128, agent_config=agent_registry.make_config(
            'ppo', unroll_length=16, batch_size=4, num_minibatches=2)),
    'replay_rainbow_parts': dict(
        agent='c51', network='mlp_dueling_q_distribution', num_steps=1200,
        eval_every_steps=400, log_every_steps=100,
        checkpoint_every_updates=25,  # 300 updates.
        agent_config=agent_registry.make_config(
            'c51', n_step=2, update_period=4, prioritized_replay=True,
            batch_size=8, min_replay_size=32, replay_capacity=256,
            target_update_period=40, epsilon_decay_steps=400)),
    'recurrent': dict(
        agent='ppo', network='lstm_actor_critic', num_steps=1280,
        eval_every_steps=320, log_every_steps=128,
        checkpoint_every_updates=4,  # 40 updates.
        agent_config=agent_registry.make_config(
            'ppo', unroll_length=8, batch_size=4, num_minibatches=2)),
    'python_loop_episodes': dict(
        agent='reinforce', loop='python', num_episodes=96,
        eval_every_episodes=32, log_every_episodes=16,
        agent_config=agent_registry.make_config('reinforce', batch_size=8)),
}


def _config(family: str) -> config_lib.ExperimentConfig:
  return config_lib.ExperimentConfig(**{**_COMMON, **_FAMILIES[family]})


def _csv(path):
  if not os.path.exists(path):
    return []
  with open(path, newline='') as f:
    return [{k: v for k, v in row.items() if k not in _TIMINGS}
            for row in csv.DictReader(f)]


def _logs(workdir):
  return {log: _csv(os.path.join(workdir, log))
          for log in ('train.csv', 'eval.csv')}


@contextlib.contextmanager
def _ctrl_c_after(owner, method: str, call: int):
  """KeyboardInterrupt right after `owner.method`'s `call`-th call returns
  (its work done, the caller not yet told): a second Ctrl-C there."""
  real = getattr(owner, method)
  calls = []

  def interrupted(self, *args, **kwargs):
    result = real(self, *args, **kwargs)
    calls.append(None)
    if len(calls) == call:
      raise KeyboardInterrupt
    return result

  with mock.patch.object(owner, method, interrupted):
    yield


def _interruptions(config):
  """Where the second Ctrl-C lands, one run each, in turn."""
  loop = (python_training.PythonTraining if config.loop == 'python'
          else compiled_training.CompiledTraining)
  return ((loop, 'run_rows', 2),  # The state advanced, its rows unlogged.
          (loop, 'evaluate', 1),  # A periodic evaluation, not yet logged.
          (seed_logs.SeedLogs, 'write', 2))  # Between rows being written.


@pytest.mark.slow  # Five runs each (seconds of compiling; docs/testing.md).
@pytest.mark.parametrize('family', list(_FAMILIES))
def test_resumed_logs_equal_an_uninterrupted_run_row_for_row(family,
                                                             tmp_path):
  config = _config(family)
  straight = str(tmp_path / 'straight')
  expected = driver.run_experiment(config, straight, progress=False)

  workdir = str(tmp_path / 'interrupted')
  for owner, method, call in _interruptions(config):
    with _ctrl_c_after(owner, method, call):
      with pytest.raises(KeyboardInterrupt):
        driver.run_experiment(config, workdir, progress=False)
  resumed = driver.run_experiment(config, workdir, progress=False)

  assert _logs(workdir) == _logs(straight)
  for key in ('env_steps', 'episodes', 'updates', 'evaluations',
              'eval_mean_return'):
    assert resumed[key] == expected[key], key
  with open(os.path.join(workdir, 'result.json')) as f:
    assert json.load(f)['status'] == 'finished'
  built = build_lib.build(config)
  chex.assert_trees_all_equal(
      driver.restored_loop(built, straight).state,
      driver.restored_loop(built, workdir).state)
