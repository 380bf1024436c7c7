"""Tests for the Python loop with N environments (`num_envs` > 1):
experiments/loops/python_training.py, environment_loop.py and batchers.py.

Most tests play `_Counting`, whose observation is (episode number, step), so
a batch shows exactly which episode and step each of its rows came from.
"""

import time
from unittest import mock

from absl.testing import absltest
from absl.testing import parameterized
import chex
import dm_env
from dm_env import specs as dm_specs
import jax
import numpy as np
import pytest

from agents import registry as agent_registry
from environments import envpool_adapter
from environments import registry as env_registry
from environments import specs
from experiments.loops import actor as actor_lib
from experiments.loops import batchers
from experiments.loops import compiled_loop
from experiments.loops import interface
from experiments.loops import learner as learner_lib
from experiments.loops import python_training
from experiments.loops import seeding
from experiments.setup import build as build_lib
from experiments.setup import config as config_lib

_N = 4


def _length(episode: int) -> int:
  """Steps of episode `episode` of `_Counting`: 2 to 6, varying."""
  return 2 + (3 * episode) % 5


class _Counting(dm_env.Environment):
  """Episode e lasts `_length(e)` steps; observations are (e, step)."""

  def __init__(self, seed: int):
    self._stream, self._next, self._episode, self._t = seed, 0, 0, None

  def seek(self, seed: int, episode: int = 0) -> None:
    self._stream, self._next, self._t = seed, episode, None

  def _observation(self) -> np.ndarray:
    return np.array([self._episode, self._t], np.float32)

  def reset(self) -> dm_env.TimeStep:
    self._episode, self._t = self._next, 0
    self._next += 1
    return dm_env.restart(self._observation())

  def step(self, action) -> dm_env.TimeStep:
    if self._t is None:
      return self.reset()
    self._t += 1
    observation = self._observation()
    if self._t == _length(self._episode):
      self._t = None
      return dm_env.termination(np.float32(1.0), observation)
    return dm_env.transition(np.float32(1.0), observation)

  def observation_spec(self):
    return dm_specs.Array((2,), np.float32)

  def action_spec(self):
    return dm_specs.DiscreteArray(2)


def _agent(name, environment=None, network=None, **overrides):
  environment = environment or _Counting(0)
  spec = specs.make_environment_spec(environment)
  return agent_registry.make_agent(
      name, agent_registry.make_config(name, **overrides), spec,
      hidden_sizes=(8,), network=network)


def _ppo(**overrides):
  return _agent('ppo', **dict(dict(unroll_length=5, batch_size=6,
                                   num_epochs=1, num_minibatches=1),
                              **overrides))


def _loop(agent, num_envs=_N, make_environment=_Counting, seed=0):
  return python_training.PythonTraining(agent, make_environment, seed,
                                        log_every_episodes=0,
                                        num_envs=num_envs)


class _Recorder:
  """Records every batch the learner updates on (as host arrays)."""

  def __init__(self):
    self.batches = []
    self._real = learner_lib.Learner.step

  def __enter__(self):

    def step(learner, trajectory):
      self.batches.append(jax.device_get(trajectory))
      return self._real(learner, trajectory)

    self._patch = mock.patch.object(learner_lib.Learner, 'step', step)
    self._patch.__enter__()
    return self

  def __exit__(self, *args):
    self._patch.__exit__(*args)

  def columns(self):
    """Every sequence (or episode) of every batch, in learning order."""
    return [batch._replace(
        final_observations=batch.final_observations[b],
        **{k: getattr(batch, k)[:, b] for k in _TIME_MAJOR},
        extras=jax.tree.map(lambda x, b=b: x[:, b], batch.extras))
            for batch in self.batches
            for b in range(batch.actions.shape[1])]


_TIME_MAJOR = ('observations', 'actions', 'rewards', 'discounts', 'last',
               'mask')


def _join(before, after):
  """Two consecutive unrolls of one stream as one."""
  return after._replace(
      **{k: np.concatenate([getattr(before, k), getattr(after, k)])
         for k in _TIME_MAJOR})


def _check_unroll(test, sequence, num_envs=_N):
  """Within an unroll: one environment's stream, steps in order, episodes
  whole (a new one starts only after `last`, at step 0)."""
  observations = np.concatenate([sequence.observations,
                                 sequence.final_observations[None]])
  episodes, steps = observations[:, 0].astype(int), observations[:, 1]
  test.assertEqual(len(set(episodes % num_envs)), 1)
  for t, last in enumerate(sequence.last):
    if last:
      test.assertEqual(steps[t], _length(episodes[t]) - 1)
      if t + 1 < len(sequence.last):  # The next row is the next episode's.
        test.assertEqual(episodes[t + 1], episodes[t] + num_envs)
        test.assertEqual(steps[t + 1], 0)
      else:  # The final observation is the terminal one.
        test.assertEqual((episodes[t + 1], steps[t + 1]),
                         (episodes[t], _length(episodes[t])))
    else:
      test.assertEqual((episodes[t + 1], steps[t + 1]),
                       (episodes[t], steps[t] + 1))


def _check_episode(test, episode):
  """A whole episode: steps 0 … L - 1 of one episode, L its length."""
  length = int(episode.mask.sum())
  number = int(episode.observations[0, 0])
  test.assertEqual(length, _length(number))
  np.testing.assert_array_equal(episode.observations[:length, 0], number)
  np.testing.assert_array_equal(episode.observations[:length, 1],
                                np.arange(length))
  np.testing.assert_array_equal(episode.last[:length],
                                np.arange(length) == length - 1)
  np.testing.assert_array_equal(episode.final_observations,
                                [number, length])
  return number


def _play(steps_per_env, num_envs=_N):
  """After `steps_per_env` steps of each environment: the episodes
  finished, and each environment's episode in progress and its step."""
  finished, current = [], []
  for i in range(num_envs):
    left, episode = steps_per_env, i
    while left >= _length(episode):
      left -= _length(episode)
      finished.append(episode)
      episode += num_envs
    current.append((episode, left))
  return finished, current


def _simulate(steps_per_env, num_envs=_N):
  """Episodes the environments finish in `steps_per_env` steps each."""
  return _play(steps_per_env, num_envs)[0]


class BatchesTest(parameterized.TestCase):

  def test_unrolls_are_contiguous_per_environment_stream(self):
    loop = _loop(_ppo())
    with _Recorder() as recorder:
      loop.advance(interface.Targets(env_steps=_N * 5 * 9))
    sequences = recorder.columns()
    self.assertLen(recorder.batches, 6)  # 4 streams x 9 unrolls / 6.
    by_env = {i: [] for i in range(_N)}
    for j, sequence in enumerate(sequences):
      _check_unroll(self, sequence)
      env = int(sequence.observations[0, 0]) % _N
      self.assertEqual(env, j % _N)  # Unroll j // N of environment j % N.
      by_env[env].append(sequence)
    for i, stream in by_env.items():
      np.testing.assert_array_equal(stream[0].observations[0], [i, 0])
      for before, after in zip(stream, stream[1:]):
        _check_unroll(self, _join(before, after))

  @parameterized.parameters(1, 256)
  def test_episodes_are_whole_and_numbered_per_environment(self, trim):
    loop = _loop(_agent('reinforce', batch_size=3))
    with _Recorder() as recorder, mock.patch.object(
        batchers.EpisodeBatcher, '_TRIM', trim):
      loop.advance(interface.Targets(env_steps=_N * 30))
    numbers = [_check_episode(self, e) for e in recorder.columns()]
    self.assertLen(numbers, len(set(numbers)))
    finished = _simulate(30)
    self.assertLen(numbers, len(finished) // 3 * 3)
    self.assertContainsSubset(numbers, finished)
    for i in range(_N):  # Each environment's, in the order played.
      mine = [e for e in numbers if e % _N == i]
      self.assertEqual(mine, list(range(i, i + _N * len(mine), _N)))

  def test_one_batched_act_per_step_of_all_environments(self):
    calls = []
    real = actor_lib.BatchedActor.dispatch

    def counted(actor, episodes, steps, observations):
      calls.append((episodes.copy(), steps.copy(), observations.shape))
      return real(actor, episodes, steps, observations)

    loop = _loop(_ppo())
    with mock.patch.object(actor_lib.BatchedActor, 'dispatch', counted):
      loop.advance(interface.Targets(env_steps=40))
    # One per step, and the next step's, dispatched ahead.
    self.assertLen(calls, 40 // _N + 1)
    self.assertEqual({shape for _, _, shape in calls}, {(_N, 2)})
    np.testing.assert_array_equal(calls[0][0], np.arange(_N))
    np.testing.assert_array_equal(calls[1][1], np.ones(_N))

  @parameterized.named_parameters(
      ('ppo', 'ppo', {'unroll_length': 8}),
      ('reinforce', 'reinforce', {'batch_size': 4}),
      # A recurrent PPO: the same states too (in its extras).
      ('ppo_lstm', 'ppo', {'unroll_length': 8}, 'lstm_actor_critic'))
  @pytest.mark.slow  # Over 5 s cold (docs/testing.md).
  def test_first_batch_is_the_compiled_loops(self, name, overrides,
                                             network=None):
    # Same seed, N environments: the compiled loop plays the same episodes
    # with the same action keys and cuts the same batch.
    seed = 3
    agent = _agent(name, env_registry.make_environment('catch'), network,
                   **overrides)
    loop = _loop(agent, make_environment=lambda s: env_registry
                 .make_environment('catch', seed=s), seed=seed)
    with _Recorder() as recorder:
      loop.advance(interface.Targets(updates=1))
    compiled = compiled_loop.CompiledLoop(
        agent, env_registry.make_functional('catch'), _N)
    env_key = jax.random.PRNGKey(
        seeding.environment_seed(seed, seeding.TRAIN, 0))
    states = jax.vmap(compiled.init)(jax.random.PRNGKey(seed)[None],
                                     env_key[None])
    _, trajectories, _ = jax.jit(jax.vmap(compiled.collect))(states)
    expected = jax.tree.map(lambda x: np.asarray(x[0]), trajectories)
    got = recorder.batches[0]
    length = got.actions.shape[0]
    expected = expected._replace(
        **{k: getattr(expected, k)[:length] for k in
           ('observations', 'actions', 'rewards', 'discounts', 'last',
            'mask')},
        extras=jax.tree.map(lambda x: x[:length], expected.extras))
    chex.assert_trees_all_close(got, expected, rtol=1e-6, atol=1e-6)


class AdvanceTest(absltest.TestCase):

  def test_step_target_counts_all_environments(self):
    loop = _loop(_ppo())
    rows = loop.advance(interface.Targets(env_steps=42))
    counters = {k: int(v[0]) for k, v in loop.counters().items()}
    finished = _simulate(11)  # 44 steps: 11 of each environment.
    self.assertEqual(counters, {'env_steps': 44, 'episodes': len(finished),
                                'updates': 1})  # 8 unrolls, 6 a batch.
    self.assertAlmostEqual(rows[0]['episode_length'],
                           np.mean([_length(e) for e in finished]))
    self.assertEqual(rows[0]['episode_return'], rows[0]['episode_length'])
    self.assertIn('loss', rows[0])
    self.assertEqual(loop.num_envs, _N)

  def test_row_without_finished_episodes_has_no_episode_means(self):
    loop = _loop(_ppo())
    rows = loop.advance(interface.Targets(env_steps=1))
    self.assertEqual(int(loop.counters()['env_steps'][0]), _N)
    self.assertNotIn('episode_return', rows[0])
    self.assertNotIn('episode_length', rows[0])
    self.assertEqual(rows[0]['episodes_per_second'], 0.0)

  def test_episode_and_update_targets_stop_at_the_first_step_reaching_them(
      self):
    loop = _loop(_ppo())
    seen = []
    loop.advance(interface.Targets(episodes=7), seen.append)
    steps = int(loop.counters()['env_steps'][0]) // _N
    self.assertGreaterEqual(len(_simulate(steps)), 7)
    self.assertLess(len(_simulate(steps - 1)), 7)
    self.assertEqual(int(loop.counters()['episodes'][0]),
                     len(_simulate(steps)))
    chex.assert_trees_all_equal(seen[-1], loop.counters())
    loop.advance(interface.Targets(updates=2))
    # 4 unrolls every 5 steps, 6 per update: the second update at step 15.
    self.assertEqual(int(loop.counters()['env_steps'][0]), 15 * _N)
    self.assertEqual(int(loop.counters()['updates'][0]), 2)

  def test_deadline_stops_after_one_step(self):
    loop = _loop(_ppo())
    loop.advance(interface.Targets(episodes=50,
                                   deadline=time.monotonic() - 1.0))
    self.assertEqual(int(loop.counters()['env_steps'][0]), _N)


class OneEnvironmentTest(absltest.TestCase):

  def test_one_environment_stops_at_episode_ends_only(self):
    loop = _loop(_ppo(), num_envs=1)
    loop.advance(interface.Targets(env_steps=1))
    # It stops at the end of the episode, not after one step.
    self.assertEqual(int(loop.counters()['env_steps'][0]), _length(0))
    self.assertTrue(loop.host_state['between_episodes'])
    np.testing.assert_array_equal(loop.state['episodes_started'], [1])

  def test_config_and_build_pass_num_envs_to_the_python_loop(self):
    config = config_lib.ExperimentConfig(
        agent='ppo', env='bsuite:catch/0', loop='python', num_envs=3,
        hidden_sizes=(8,), num_episodes=10, export_tflite=False)
    loop = build_lib.make_loop(build_lib.build(config))
    self.assertEqual(loop.num_envs, 3)
    loop.advance(interface.Targets(env_steps=6))
    self.assertEqual(int(loop.counters()['env_steps'][0]), 6)
    loop.close()

  def test_an_envpool_game_steps_its_environments_in_one_call(self):
    config = config_lib.ExperimentConfig(
        agent='ppo', env='envpool:CartPole-v1', loop='python', num_envs=4,
        hidden_sizes=(8,), num_steps=400, log_every_episodes=0,
        export_tflite=False,
        agent_config=agent_registry.make_config(
            'ppo', unroll_length=16, batch_size=4, num_epochs=1,
            num_minibatches=1))
    loop = build_lib.make_loop(build_lib.build(config))
    calls = []
    real = envpool_adapter.EnvPoolBatch.step

    def counted(batch, actions):
      calls.append(actions.shape)
      return real(batch, actions)

    with mock.patch.object(envpool_adapter.EnvPoolBatch, 'step', counted):
      rows = loop.advance(interface.Targets(env_steps=400))
    self.assertEqual(calls, [(4,)] * 100)  # One call a step, for all 4.
    counters = loop.counters()
    self.assertEqual(int(counters['env_steps'][0]), 400)
    self.assertEqual(int(counters['updates'][0]), 400 // (16 * 4))
    self.assertGreater(int(counters['episodes'][0]), 4)
    # CartPole pays 1 a step: the episodes' mean return is their length's.
    (row,) = rows
    self.assertEqual(row['episode_return'], row['episode_length'])
    loop.close()


if __name__ == '__main__':
  absltest.main()
