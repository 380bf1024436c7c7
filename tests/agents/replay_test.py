"""Tests for the fixed-shape replay buffer (agents/replay.py)."""

from absl.testing import absltest
from dm_env import specs as dm_specs
import jax
import numpy as np

from agents import agent as agent_lib
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


class ContinuousActionsReplayTest(absltest.TestCase):
  """Float `[D]` actions of a BoundedArray action spec."""

  def _replay(self, capacity: int) -> replay_lib.Replay:
    return replay_lib.init_replay(
        capacity, dm_specs.Array((NUM_ACTIONS,), np.float32),
        dm_specs.BoundedArray((2,), np.float32, -2.0, 2.0))

  def test_init_stores_float_action_vectors(self):
    replay = self._replay(5)
    self.assertEqual(replay.transitions.actions.shape, (5, 2))
    self.assertEqual(replay.transitions.actions.dtype, np.float32)

  def test_insert_and_sample_keep_float_actions(self):
    actions = np.array([[0.25, -1.5], [1.75, 0.125], [-0.5, 0.0]],
                       np.float32)
    observations = np.arange(12, dtype=np.float32).reshape(3, NUM_ACTIONS)
    transitions = replay_lib.Transitions(
        observations, actions, np.ones(3, np.float32),
        np.ones(3, np.float32), observations + 1)
    replay = jax.jit(replay_lib.replay_insert)(
        self._replay(4), transitions, np.array([True, False, True]))
    self.assertEqual((int(replay.position), int(replay.size)), (2, 2))
    np.testing.assert_array_equal(
        replay.transitions.actions,
        [[0.25, -1.5], [-0.5, 0.0], [0.0, 0.0], [0.0, 0.0]])
    batch = replay_lib.replay_sample(replay, jax.random.PRNGKey(0), 50)
    self.assertEqual(batch.actions.shape, (50, 2))
    self.assertEqual(batch.actions.dtype, np.float32)
    rows = {tuple(a) for a in np.asarray(batch.actions).tolist()}
    self.assertEqual(rows, {(0.25, -1.5), (-0.5, 0.0)})
    # Each sampled action comes with its own observation.
    for o, a in zip(np.asarray(batch.observations),
                    np.asarray(batch.actions)):
      expected = observations[0] if a[0] == 0.25 else observations[2]
      np.testing.assert_array_equal(o, expected)

  def test_trajectory_transitions_keep_float_actions(self):
    # T = 2, B = 2, D = 2; the second step of sequence 1 is padding.
    actions = np.array([[[0.1, -0.2], [0.3, 1.9]],
                        [[-1.7, 0.5], [0.0, 0.0]]], np.float32)
    observations = np.arange(16, dtype=np.float32).reshape(2, 2, NUM_ACTIONS)
    trajectory = agent_lib.Trajectory(
        observations=observations, actions=actions,
        rewards=np.array([[1, 2], [3, 0]], np.float32),
        discounts=np.ones((2, 2), np.float32),
        last=np.array([[False, False], [True, False]]),
        mask=np.array([[1, 1], [1, 0]], np.float32),
        final_observations=-np.ones((2, NUM_ACTIONS), np.float32),
        extras={})
    transitions, valid = replay_lib.trajectory_transitions(trajectory)
    self.assertEqual(transitions.actions.shape, (4, 2))
    self.assertEqual(transitions.actions.dtype, np.float32)
    np.testing.assert_array_equal(transitions.actions, actions.reshape(4, 2))
    np.testing.assert_array_equal(valid, [True, True, True, False])
    np.testing.assert_array_equal(transitions.discounts, [1, 1, 0, 1])
    replay = replay_lib.replay_insert(self._replay(8), transitions, valid)
    self.assertEqual(int(replay.size), 3)
    np.testing.assert_array_equal(replay.transitions.actions[:3],
                                  actions.reshape(4, 2)[:3])


def _five_steps(end_discount: float) -> agent_lib.Trajectory:
  """T = 5, B = 1: rewards 1..5, an episode ending at step 2 (discount
  `end_discount`: 0 a termination, 1 a time limit), observations t and
  next observations 10 + t (the end's is its own, cut-off one)."""
  observations = np.arange(5, dtype=np.float32).reshape(5, 1, 1)
  return agent_lib.Trajectory(
      observations=observations, actions=np.zeros((5, 1), np.int32),
      rewards=np.arange(1, 6, dtype=np.float32).reshape(5, 1),
      discounts=np.array([1, 1, end_discount, 1, 1],
                         np.float32).reshape(5, 1),
      last=np.array([0, 0, 1, 0, 0], bool).reshape(5, 1),
      mask=np.ones((5, 1), np.float32),
      final_observations=np.full((1, 1), 5.0, np.float32), extras={},
      next_observations=10 + observations)


class NStepTransitionsTest(absltest.TestCase):

  def test_by_hand_at_a_termination(self):
    # γ = 0.5, n = 3. t0: 1 + ½·2 + ¼·3, ended at t2: no bootstrap. t3:
    # 4 + ½·5, cut by the unroll's end: bootstrap γ·d3·d4 (× γ in the
    # loss) from t4's next observation. t4: one step.
    transitions, valid = replay_lib.trajectory_transitions(
        _five_steps(0.0), n=3, discount=0.5)
    np.testing.assert_allclose(transitions.rewards,
                               [2.75, 3.5, 3.0, 6.5, 5.0])
    np.testing.assert_allclose(transitions.discounts,
                               [0.0, 0.0, 0.0, 0.5, 1.0])
    np.testing.assert_array_equal(transitions.next_observations[:, 0],
                                  [12, 12, 12, 14, 14])
    np.testing.assert_array_equal(valid, [True] * 5)

  def test_a_time_limit_bootstraps_from_the_cut_off_observation(self):
    transitions, _ = replay_lib.trajectory_transitions(
        _five_steps(1.0), n=3, discount=0.5)
    np.testing.assert_allclose(transitions.rewards,
                               [2.75, 3.5, 3.0, 6.5, 5.0])
    # γ^(m-1) of the steps used; the episode's next one never enters.
    np.testing.assert_allclose(transitions.discounts,
                               [0.25, 0.5, 1.0, 0.5, 1.0])
    np.testing.assert_array_equal(transitions.next_observations[:, 0],
                                  [12, 12, 12, 14, 14])

  def test_one_step_is_the_plain_transition(self):
    trajectory = _five_steps(0.0)
    one, _ = replay_lib.trajectory_transitions(trajectory)
    also_one, _ = replay_lib.trajectory_transitions(trajectory, n=1,
                                                    discount=0.5)
    for x, y in zip(one, also_one):
      np.testing.assert_array_equal(x, y)
    np.testing.assert_allclose(one.rewards, [1, 2, 3, 4, 5])
    np.testing.assert_allclose(one.discounts, [1, 1, 0, 1, 1])


if __name__ == '__main__':
  absltest.main()
