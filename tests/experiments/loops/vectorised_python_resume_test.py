"""Tests for resuming the Python loop with N environments (`num_envs` >
1), and for environments that cannot start at a given episode; helpers
(`_Counting` and the batch checks) are vectorised_python_training_test's.
"""

import pickle
from unittest import mock

from absl.testing import absltest
from absl.testing import parameterized
import dm_env
import jax
import numpy as np

from experiments.loops import actor as actor_lib
from experiments.loops import interface
from experiments.loops import seeding
from tests.experiments.loops import vectorised_python_training_test as vec


class ResumeTest(parameterized.TestCase):

  def _resumed(self, loop, agent):
    state = jax.device_get(loop.state)
    host_state = pickle.loads(pickle.dumps(loop.host_state))
    loop.close()
    resumed = vec._loop(agent)
    with self.assertLogs('absl', 'WARNING') as logs:
      resumed.restore(state, host_state)
    self.assertLen(logs.records, 1)
    self.assertIn('episodes in progress', logs.output[0])
    return resumed, state

  def test_resumed_unrolls_start_fresh_episodes(self):
    agent = vec._ppo()
    loop = vec._loop(agent)
    with vec._Recorder() as before:
      loop.advance(interface.Targets(env_steps=13 * vec._N))  # Mid-unroll.
    self.assertLen(before.batches, 1)  # 8 unrolls: 2 left in the batcher.
    self.assertLen(loop.host_state['batcher']['sequences'], 2)
    resumed, state = self._resumed(loop, agent)
    _, current = vec._play(13)
    # Episodes in progress count as begun (and are dropped).
    np.testing.assert_array_equal(
        state['episodes_started'],
        [e // vec._N + (step > 0) for e, step in current])
    with vec._Recorder() as after:
      resumed.advance(interface.Targets(env_steps=33 * vec._N))
    counters = {k: int(v[0]) for k, v in resumed.counters().items()}
    self.assertEqual(counters['env_steps'], 33 * vec._N)
    # 2 kept + 4 x 4 new unrolls (20 steps): 3 more updates.
    self.assertEqual(counters['updates'], 1 + 3)
    sequences = after.columns()
    for sequence in sequences:
      vec._check_unroll(self, sequence)
    fresh = sequences[2:]  # After the 2 kept ones.
    for i in range(vec._N):
      np.testing.assert_array_equal(
          fresh[i].observations[0],
          [state['episodes_started'][i] * vec._N + i, 0])
      for before, after in zip(fresh[i::vec._N], fresh[i + vec._N::vec._N]):
        vec._check_unroll(self, vec._join(before, after))

  def test_resumed_episodes_are_whole(self):
    agent = vec._agent('reinforce', batch_size=3)
    loop = vec._loop(agent)
    loop.advance(interface.Targets(env_steps=11 * vec._N))
    kept = len(loop.host_state['batcher']['episodes'])
    self.assertGreater(kept, 0)
    before = {k: int(v[0]) for k, v in loop.counters().items()}
    resumed, _ = self._resumed(loop, agent)
    with vec._Recorder() as after:
      resumed.advance(interface.Targets(env_steps=40 * vec._N))
    numbers = [vec._check_episode(self, e) for e in after.columns()]
    self.assertLen(numbers, len(set(numbers)))
    _, current = vec._play(11)
    dropped = {e for e, step in current if step > 0}
    self.assertNotEmpty(dropped)
    self.assertEmpty(set(numbers) & dropped)
    counters = {k: int(v[0]) for k, v in resumed.counters().items()}
    self.assertEqual(counters['env_steps'], 40 * vec._N)
    self.assertEqual(counters['updates'], before['updates'] + (
        kept + counters['episodes'] - before['episodes']) // 3)

  def test_no_state_while_a_step_is_interrupted(self):
    loop = vec._loop(vec._ppo())
    loop.advance(interface.Targets(env_steps=8))
    self.assertIsNotNone(loop.state)
    with mock.patch.object(actor_lib.BatchedActor, 'fetch',
                           side_effect=KeyboardInterrupt):
      with self.assertRaises(KeyboardInterrupt):
        loop.advance(interface.Targets(env_steps=16))
    self.assertIsNone(loop.state)
    self.assertIsNone(loop.host_state)

  def test_state_before_training_restarts_nothing(self):
    loop = vec._loop(vec._ppo())
    np.testing.assert_array_equal(loop.state['episodes_started'],
                                  np.zeros(vec._N))
    loop.advance(interface.Targets(env_steps=1))
    # One step in: every environment's first episode is in progress.
    np.testing.assert_array_equal(loop.state['episodes_started'],
                                  np.ones(vec._N))


class _Unaddressable(dm_env.Environment):
  """`vec._Counting` without `seek`: no EpisodeStream."""

  def __init__(self, seed: int):
    self.seed = seed
    self._counting = vec._Counting(seed)

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

    agent = vec._ppo()
    loop = vec._loop(agent, make_environment=make, seed=5)
    loop.advance(interface.Targets(env_steps=3 * vec._N))
    seeds = [seeding.environment_seed(5, seeding.TRAIN, i)
             for i in range(vec._N)]
    self.assertEqual([e.seed for e in made], [seeds[0]] + [
        s for seed in seeds[1:] for s in (seeds[0], seed)])
    state, host_state = loop.state, loop.host_state
    made.clear()
    resumed = vec._loop(agent, make_environment=make, seed=5)
    resumed.restore(state, host_state)
    with self.assertLogs('absl', 'WARNING') as logs:
      resumed.advance(interface.Targets(env_steps=4 * vec._N))
    self.assertLen(logs.records, 1)
    self.assertIn('EpisodeStream', logs.output[0])
    # Seeded by each environment's next episode number.
    self.assertEqual(
        {e.seed for e in made} - {seeds[0]},
        {seeding.environment_seed(5, seeding.TRAIN, int(k) * vec._N + i)
         for i, k in enumerate(state['episodes_started'])})


if __name__ == '__main__':
  absltest.main()
