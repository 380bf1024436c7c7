"""Tests for the fixed-shape replay buffer (agents/replay.py)."""

from absl.testing import absltest
from dm_env import specs as dm_specs
import jax
import numpy as np

from agents import replay as replay_lib

NUM_ACTIONS = 4


def _transitions(actions) -> replay_lib.Transitions:
  actions = np.asarray(actions, np.int32)
  n = actions.shape[0]
  observations = np.arange(n * NUM_ACTIONS, dtype=np.float32).reshape(n, -1)
  return replay_lib.Transitions(observations, actions, np.ones(n, np.float32),
                                np.ones(n, np.float32), observations + 1)


class ReplayTest(absltest.TestCase):

  def _replay(self, capacity: int) -> replay_lib.Replay:
    return replay_lib.init_replay(
        capacity, dm_specs.Array((NUM_ACTIONS,), np.float32),
        dm_specs.DiscreteArray(NUM_ACTIONS, np.int32))

  def _insert(self, replay, actions, valid=None):
    valid = np.ones(len(actions), bool) if valid is None else valid
    return replay_lib.replay_insert(replay, _transitions(actions), valid)

  def test_wrap_around_and_size(self):
    replay = self._insert(self._replay(3), [0, 1])
    self.assertEqual((int(replay.position), int(replay.size)), (2, 2))
    replay = self._insert(replay, [2, 3])
    self.assertEqual((int(replay.position), int(replay.size)), (1, 3))
    np.testing.assert_array_equal(replay.transitions.actions, [3, 1, 2])
    # The overwritten slot 0 holds all fields of the newest transition.
    np.testing.assert_array_equal(replay.transitions.observations[0],
                                  _transitions([2, 3]).observations[1])

  def test_masked_transitions_are_not_inserted(self):
    replay = self._insert(self._replay(4), [1, 2, 3],
                          np.array([True, False, True]))
    self.assertEqual((int(replay.position), int(replay.size)), (2, 2))
    np.testing.assert_array_equal(replay.transitions.actions, [1, 3, 0, 0])

  def test_more_than_capacity_keeps_the_newest(self):
    replay = self._insert(self._replay(3), [1, 2, 3, 4, 5])
    self.assertEqual((int(replay.position), int(replay.size)), (2, 3))
    np.testing.assert_array_equal(replay.transitions.actions, [4, 5, 3])

  def test_sample_only_stored_transitions(self):
    replay = self._insert(self._replay(10), [7, 8])
    batch = jax.jit(replay_lib.replay_sample, static_argnums=2)(
        replay, jax.random.PRNGKey(0), 200)
    self.assertEqual(batch.actions.shape, (200,))
    self.assertEqual(set(np.asarray(batch.actions).tolist()), {7, 8})

if __name__ == '__main__':
  absltest.main()
