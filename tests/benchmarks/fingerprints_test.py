"""Tests for benchmarks/fingerprints.py: a benchmark's
record of what it measured, and what has changed since."""

import dataclasses

from agents import dqn
from agents import registry as agent_registry
from benchmarks import fingerprints
from benchmarks import learning
from benchmarks import memory
from benchmarks import time_limits
from experiments.setup import train_settings


def _config(env='gymnax:Acrobot-v1', agent='dqn'):
  return learning.config(learning.Setting(env, agent))


def test_code_modules_are_the_agent_network_environment_and_loop():
  modules = fingerprints.code_modules(_config())
  for path in ('agents/dqn.py', 'agents/replay.py', 'networks/q_network.py',
               'environments/gymnax_adapter.py',
               'experiments/loops/compiled_loop.py'):
    assert path in modules
  assert not [m for m in modules if m.startswith('experiments/driver')]
  plane_strike = fingerprints.code_modules(_config('plane_strike', 'ppo'))
  assert 'environments/plane_strike.py' in plane_strike
  assert 'networks/actor_critic.py' in plane_strike
  # Through the skeleton PPO imports: what it imports is watched too.
  assert {'agents/on_policy.py', 'agents/policy_heads.py',
          'agents/minibatches.py'} <= set(plane_strike)
  # Through each loop's entry: the loop modules it imports are watched.
  assert {'experiments/loops/env_slots.py', 'experiments/loops/seeding.py',
          'experiments/loops/episode_collection.py'} <= set(modules)
  python = fingerprints.code_modules(dataclasses.replace(_config(),
                                                         loop='python'))
  assert {'experiments/loops/environment_loop.py',
          'experiments/loops/actor_thread.py'} <= set(python)
  assert 'experiments/loops/env_slots.py' not in python


def test_the_code_hash_ignores_comments_docstrings_and_layout():
  source = 'def f(x):\n  """Doc."""\n  return x + 1  # One more.\n'
  same = 'def f(x):\n\n    return (x +\n            1)\n'
  other = 'def f(x):\n  return x + 2\n'
  assert fingerprints.code_hash(source) == fingerprints.code_hash(same)
  assert fingerprints.code_hash(source) != fingerprints.code_hash(other)


def test_nothing_changed_right_after_measuring():
  record = fingerprints.measured([_config()])
  assert record['runs'][0]['settings']['agent_config']['learning_rate'] == (
      1e-3)
  assert fingerprints.changes(record) == []


def test_a_num_envs_recorded_unset_is_the_default_it_meant():
  record = fingerprints.measured([_config()])
  resolved = record['runs'][0]['settings']['num_envs']
  assert resolved == agent_registry.environments_per_update(
      _config().agent_config)
  record['runs'][0]['settings']['num_envs'] = None
  assert fingerprints.changes(record) == []
  record['runs'][0]['settings']['num_envs'] = resolved + 1
  assert fingerprints.changes(record) == [
      f'dqn on gymnax:Acrobot-v1: num_envs: {resolved + 1} -> {resolved}']


def test_the_suites_arms_are_unchanged_right_after_measuring():
  # An arm away from its preset (another network; an agent-config
  # override) is rebuilt from its recipe as measured, not as the preset.
  feed_forward = memory.config(memory.ARMS['feed_forward'], 5)
  assert feed_forward.network == 'mlp_actor_critic'
  assert fingerprints.changes(fingerprints.measured([feed_forward])) == []
  narrow = dataclasses.replace(_config('gymnax:Pendulum-v1', 'td3'),
                               hidden_sizes=(64, 64))
  assert fingerprints.changes(fingerprints.measured([narrow])) == []
  # What the preset gives is left to it: a preset's change would show.
  recipe = fingerprints.recipe_of(memory.config(memory.ARMS['lstm'], 5))
  assert (recipe['network'], recipe['hidden_sizes']) == (None, None)
  assert fingerprints.recipe_of(narrow)['hidden_sizes'] == [64, 64]
  setting = learning.find('gymnax:Pendulum-v1', 'ppo')
  as_terminations = time_limits.arm_config(setting, False)
  record = fingerprints.measured([as_terminations],
                                 [{'bootstrap_time_limits': False}])
  assert fingerprints.changes(record) == []
  # Recorded without naming the override, the run still rebuilds as it
  # ran: a sweep's trial, say.
  assert fingerprints.changes(fingerprints.measured([as_terminations])) == []
  # A protocol away from the game's default (greedy on MinAtar, whose
  # default samples) is kept in the recipe; the default is left to it.
  minatar = train_settings.experiment_config(train_settings.TrainSettings(
      agent='pqn', env='gymnax:Breakout-MinAtar', num_steps=4096))
  assert minatar.eval_policy != 'greedy'
  greedy = dataclasses.replace(minatar, eval_policy='greedy')
  assert fingerprints.recipe_of(greedy)['eval_policy'] == 'greedy'
  assert 'eval_policy' not in fingerprints.recipe_of(minatar)
  assert fingerprints.changes(fingerprints.measured([greedy])) == []


def test_changed_code_and_a_changed_default_are_named(monkeypatch):
  record = fingerprints.measured([_config()])
  record['code']['agents/dqn.py'] = 'another hash'
  record['code']['agents/no_such_module.py'] = 'gone'
  found = fingerprints.changes(record)
  assert 'agents/dqn.py changed' in found
  assert 'agents/no_such_module.py is gone' in found
  # A default flips after the measurement (as time-limit bootstrapping
  # did): the rebuilt settings differ, named by their key.
  fresh = fingerprints.measured([_config()])
  flipped = dataclasses.make_dataclass(
      'DQNConfig', [('bootstrap_time_limits', bool, False)],
      bases=(dqn.DQNConfig,), frozen=True)
  entry = agent_registry.get('dqn')
  monkeypatch.setattr(agent_registry, 'make_config',
                      lambda agent, **values: flipped(**values)
                      if agent == 'dqn' else entry.config_class(**values))
  (change,) = fingerprints.changes(fresh)
  assert change == ('dqn on gymnax:Acrobot-v1: agent_config.'
                    'bootstrap_time_limits: True -> False')


def test_acknowledging_takes_today_s_code_and_settings():
  record = fingerprints.measured([_config()])
  record['code']['agents/dqn.py'] = 'another hash'
  assert fingerprints.changes(fingerprints.acknowledged(record)) == []
