"""Tests for the Python loop with N environments (`num_envs` > 1):
experiments/loops/python_training.py, vector_environment_loop.py and
vector_batchers.py.

Most tests play `_Counting`, whose observation is (episode number, step), so
a batch shows exactly which episode and step each of its rows came from.
"""

import pickle
import time
import types
from unittest import mock

from absl.testing import absltest
from absl.testing import parameterized
import chex
import dm_env
from dm_env import specs as dm_specs
import jax
import jax.numpy as jnp
import numpy as np

from agents import registry as agent_registry
from environments import registry as env_registry
from environments import specs
from experiments.loops import actor as actor_lib
from experiments.loops import compiled_loop
from experiments.loops import interface
from experiments.loops import learner as learner_lib
from experiments.loops import python_training
from experiments.loops import seeding
from experiments.loops import vector_batchers
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


def _agent(name, environment=None, **overrides):
  environment = environment or _Counting(0)
  spec = specs.make_environment_spec(environment)
  return agent_registry.make_agent(
      name, agent_registry.make_config(name, **overrides), spec,
      hidden_sizes=(8,))


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


class BatchedActorTest(parameterized.TestCase):

  # float64 and int64: what many dm_env environments emit; JAX holds them
  # as float32 and int32 (x64 off), as with one environment.
  @parameterized.parameters(np.float32, np.uint8, np.bool_, np.int16,
                            np.float64, np.int64)
  def test_packed_transfers_give_what_the_batched_act_gives(self, dtype):
    # Inputs and outputs travel as bytes; every dtype comes back intact.

    def act(params, key, observations):
      noise = jax.random.uniform(key, (1,))
      total = observations.astype(jnp.float32).sum(-1) * params + noise
      return (total > 1.0).astype(jnp.int32), {
          'total': total, 'flags': observations > 0,
          'small': observations.astype(jnp.int8),
          'pair': jnp.stack([total, -total], -1)}

    agent = types.SimpleNamespace(act=act)
    key = jax.random.PRNGKey(4)
    actor = actor_lib.BatchedActor(agent, jnp.float32(0.5), key)
    observations = (np.arange(15).reshape(5, 3) % 3).astype(dtype)
    episodes = np.array([0, 7, 9, 2, 1000], np.int32)
    steps = np.array([3, 0, 1, 2, 5], np.int32)
    got = actor.select_actions(episodes, steps, observations)
    keys = jax.vmap(actor_lib.step_key, (None, 0, 0))(key, episodes, steps)
    want = jax.vmap(lambda k, o: jax.tree.map(
        lambda x: x[0], act(jnp.float32(0.5), k, o[None])))(keys,
                                                            observations)
    chex.assert_trees_all_equal(got, jax.device_get(want))
    self.assertEqual(got[1]['flags'].dtype, np.bool_)
    self.assertEqual(got[1]['pair'].shape, (5, 2))


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
        vector_batchers.VectorEpisodeBatcher, '_TRIM', trim):
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
      with mock.patch.object(actor_lib.Actor, 'select_action') as single:
        loop.advance(interface.Targets(env_steps=40))
    single.assert_not_called()
    # One per step, and the next step's, dispatched ahead.
    self.assertLen(calls, 40 // _N + 1)
    self.assertEqual({shape for _, _, shape in calls}, {(_N, 2)})
    np.testing.assert_array_equal(calls[0][0], np.arange(_N))
    np.testing.assert_array_equal(calls[1][1], np.ones(_N))

  @parameterized.named_parameters(('ppo', 'ppo', {'unroll_length': 8}),
                                  ('reinforce', 'reinforce',
                                   {'batch_size': 4}))
  def test_first_batch_is_the_compiled_loops(self, name, overrides):
    # Same seed, N environments: the compiled loop plays the same episodes
    # with the same action keys and cuts the same batch.
    seed = 3
    agent = _agent(name, env_registry.make_environment('catch'), **overrides)
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
    self.assertAlmostEqual(rows[0]['game_length'],
                           np.mean([_length(e) for e in finished]))
    self.assertEqual(rows[0]['episode_return'], rows[0]['game_length'])
    self.assertIn('loss', rows[0])
    self.assertEqual(loop.num_envs, _N)

  def test_row_without_finished_episodes_has_no_episode_means(self):
    loop = _loop(_ppo())
    rows = loop.advance(interface.Targets(env_steps=1))
    self.assertEqual(int(loop.counters()['env_steps'][0]), _N)
    self.assertNotIn('episode_return', rows[0])
    self.assertNotIn('game_length', rows[0])
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


class ResumeTest(parameterized.TestCase):

  def _resumed(self, loop, agent):
    state = jax.device_get(loop.state)
    host_state = pickle.loads(pickle.dumps(loop.host_state))
    loop.close()
    resumed = _loop(agent)
    with self.assertLogs('absl', 'WARNING') as logs:
      resumed.restore(state, host_state)
    self.assertLen(logs.records, 1)
    self.assertIn('episodes in progress', logs.output[0])
    return resumed, state

  def test_resumed_unrolls_start_fresh_episodes(self):
    agent = _ppo()
    loop = _loop(agent)
    with _Recorder() as before:
      loop.advance(interface.Targets(env_steps=13 * _N))  # Mid-unroll.
    self.assertLen(before.batches, 1)  # 8 unrolls: 2 left in the batcher.
    self.assertLen(loop.host_state['batcher']['sequences'], 2)
    resumed, state = self._resumed(loop, agent)
    _, current = _play(13)
    # Episodes in progress count as begun (and are dropped).
    np.testing.assert_array_equal(
        state['episodes_started'],
        [e // _N + (step > 0) for e, step in current])
    with _Recorder() as after:
      resumed.advance(interface.Targets(env_steps=33 * _N))
    counters = {k: int(v[0]) for k, v in resumed.counters().items()}
    self.assertEqual(counters['env_steps'], 33 * _N)
    # 2 kept + 4 x 4 new unrolls (20 steps): 3 more updates.
    self.assertEqual(counters['updates'], 1 + 3)
    sequences = after.columns()
    for sequence in sequences:
      _check_unroll(self, sequence)
    fresh = sequences[2:]  # After the 2 kept ones.
    for i in range(_N):
      np.testing.assert_array_equal(
          fresh[i].observations[0],
          [state['episodes_started'][i] * _N + i, 0])
      for before, after in zip(fresh[i::_N], fresh[i + _N::_N]):
        _check_unroll(self, _join(before, after))

  def test_resumed_episodes_are_whole(self):
    agent = _agent('reinforce', batch_size=3)
    loop = _loop(agent)
    loop.advance(interface.Targets(env_steps=11 * _N))
    kept = len(loop.host_state['batcher']['episodes'])
    self.assertGreater(kept, 0)
    before = {k: int(v[0]) for k, v in loop.counters().items()}
    resumed, _ = self._resumed(loop, agent)
    with _Recorder() as after:
      resumed.advance(interface.Targets(env_steps=40 * _N))
    numbers = [_check_episode(self, e) for e in after.columns()]
    self.assertLen(numbers, len(set(numbers)))
    _, current = _play(11)
    dropped = {e for e, step in current if step > 0}
    self.assertNotEmpty(dropped)
    self.assertEmpty(set(numbers) & dropped)
    counters = {k: int(v[0]) for k, v in resumed.counters().items()}
    self.assertEqual(counters['env_steps'], 40 * _N)
    self.assertEqual(counters['updates'], before['updates'] + (
        kept + counters['episodes'] - before['episodes']) // 3)

  def test_no_state_while_a_step_is_interrupted(self):
    loop = _loop(_ppo())
    loop.advance(interface.Targets(env_steps=8))
    self.assertIsNotNone(loop.state)
    with mock.patch.object(actor_lib.BatchedActor, 'fetch',
                           side_effect=KeyboardInterrupt):
      with self.assertRaises(KeyboardInterrupt):
        loop.advance(interface.Targets(env_steps=16))
    self.assertIsNone(loop.state)
    self.assertIsNone(loop.host_state)

  def test_state_before_training_restarts_nothing(self):
    loop = _loop(_ppo())
    np.testing.assert_array_equal(loop.state['episodes_started'],
                                  np.zeros(_N))
    loop.advance(interface.Targets(env_steps=1))
    # One step in: every environment's first episode is in progress.
    np.testing.assert_array_equal(loop.state['episodes_started'],
                                  np.ones(_N))


class _Unaddressable(dm_env.Environment):
  """`_Counting` without `seek`: no EpisodeStream."""

  def __init__(self, seed: int):
    self.seed = seed
    self._counting = _Counting(seed)

  def reset(self):
    return self._counting.reset()

  def step(self, action):
    return self._counting.step(action)

  def observation_spec(self):
    return self._counting.observation_spec()

  def action_spec(self):
    return self._counting.action_spec()


class UnaddressableTest(absltest.TestCase):

  def test_each_environment_gets_its_own_seed_and_resume_warns(self):
    made = []

    def make(seed):
      made.append(_Unaddressable(seed))
      return made[-1]

    agent = _ppo()
    loop = _loop(agent, make_environment=make, seed=5)
    loop.advance(interface.Targets(env_steps=3 * _N))
    seeds = [seeding.environment_seed(5, seeding.TRAIN, i)
             for i in range(_N)]
    self.assertEqual([e.seed for e in made], [seeds[0]] + [
        s for seed in seeds[1:] for s in (seeds[0], seed)])
    state, host_state = loop.state, loop.host_state
    made.clear()
    resumed = _loop(agent, make_environment=make, seed=5)
    resumed.restore(state, host_state)
    with self.assertLogs('absl', 'WARNING') as logs:
      resumed.advance(interface.Targets(env_steps=4 * _N))
    self.assertLen(logs.records, 1)
    self.assertIn('EpisodeStream', logs.output[0])
    # Seeded by each environment's next episode number.
    self.assertEqual(
        {e.seed for e in made} - {seeds[0]},
        {seeding.environment_seed(5, seeding.TRAIN, int(k) * _N + i)
         for i, k in enumerate(state['episodes_started'])})


class OneEnvironmentTest(absltest.TestCase):

  def test_one_environment_keeps_the_episode_loop_and_its_state(self):
    loop = _loop(_ppo(), num_envs=1)
    self.assertNotIn('episodes_started', loop.state)
    loop.advance(interface.Targets(env_steps=1))
    # It stops at the end of the episode, not after one step.
    self.assertEqual(int(loop.counters()['env_steps'][0]), _length(0))

  def test_config_and_build_pass_num_envs_to_the_python_loop(self):
    config = config_lib.ExperimentConfig(
        agent='ppo', env='bsuite:catch/0', loop='python', num_envs=3,
        hidden_sizes=(8,), num_episodes=10, export_tflite=False)
    loop = build_lib.make_loop(build_lib.build(config))
    self.assertEqual(loop.num_envs, 3)
    loop.advance(interface.Targets(env_steps=6))
    self.assertEqual(int(loop.counters()['env_steps'][0]), 6)
    loop.close()


if __name__ == '__main__':
  absltest.main()
