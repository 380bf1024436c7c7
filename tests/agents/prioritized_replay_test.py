"""Tests for agents/prioritized_replay.py: sampling by priority, importance
weights, priority updates and the priority of new transitions."""

from absl.testing import absltest
from dm_env import specs as dm_specs
import jax
import numpy as np

from agents import prioritized_replay
from agents import replay as replay_lib


def _replay(capacity: int, actions) -> replay_lib.Replay:
  replay = replay_lib.init_replay(
      capacity, dm_specs.Array((1,), np.float32),
      dm_specs.DiscreteArray(8, np.int32), prioritized=True)
  n = len(actions)
  observations = np.zeros((n, 1), np.float32)
  transitions = replay_lib.Transitions(
      observations, np.asarray(actions, np.int32), np.zeros(n, np.float32),
      np.ones(n, np.float32), observations)
  return replay_lib.replay_insert(replay, transitions, np.ones(n, bool))


class PrioritizedReplayTest(absltest.TestCase):

  def test_new_transitions_get_the_highest_priority(self):
    replay = _replay(6, [0, 1, 2])
    np.testing.assert_allclose(replay.priorities, [1, 1, 1, 0, 0, 0])
    replay = prioritized_replay.update_priorities(
        replay, np.array([0, 2]), np.array([3.0, -0.5]))
    np.testing.assert_allclose(replay.priorities[:3], [3.0, 1.0, 0.5],
                               rtol=1e-5)
    more = replay_lib.Transitions(*[x[:2] for x in replay.transitions])
    replay = replay_lib.replay_insert(replay, more, np.ones(2, bool))
    np.testing.assert_allclose(replay.priorities[3:5], [3.0, 3.0],
                               rtol=1e-5)

  def test_samples_in_proportion_to_priority_to_the_alpha(self):
    replay = prioritized_replay.update_priorities(
        _replay(8, [0, 1, 2, 3]), np.arange(4), np.array([1.0, 4, 9, 16]))
    sample = jax.jit(prioritized_replay.sample, static_argnums=2)
    counts = np.zeros(8)
    for seed in range(50):
      batch, indices, probabilities = sample(
          replay, jax.random.PRNGKey(seed), 400, 0.5)
      np.testing.assert_array_equal(batch.actions, indices)
      counts += np.bincount(np.asarray(indices), minlength=8)
    # p^½ = 1, 2, 3, 4 of 10; empty slots never.
    np.testing.assert_allclose(counts[:4] / counts.sum(),
                               [0.1, 0.2, 0.3, 0.4], atol=0.01)
    self.assertEqual(counts[4:].sum(), 0)
    np.testing.assert_allclose(
        probabilities, np.array([0.1, 0.2, 0.3, 0.4])[indices], rtol=1e-5)
    # α = 0: uniform.
    _, indices, _ = sample(replay, jax.random.PRNGKey(0), 4000, 0.0)
    np.testing.assert_allclose(
        np.bincount(np.asarray(indices), minlength=4) / 4000, [0.25] * 4,
        atol=0.03)

  def test_importance_weights(self):
    probabilities = np.array([0.1, 0.2, 0.4], np.float32)
    weights = prioritized_replay.importance_weights(probabilities, 4, 1.0)
    # (N·P)^-1 = 2.5, 1.25, 0.625; over the largest.
    np.testing.assert_allclose(weights, [1.0, 0.5, 0.25], rtol=1e-6)
    np.testing.assert_allclose(
        prioritized_replay.importance_weights(probabilities, 4, 0.0),
        [1.0, 1.0, 1.0])

  def test_a_uniform_replay_has_no_priorities(self):
    replay = replay_lib.init_replay(4, dm_specs.Array((1,), np.float32),
                                    dm_specs.DiscreteArray(2, np.int32))
    self.assertIsNone(replay.priorities)
    with self.assertRaisesRegex(ValueError, 'prioritized=True'):
      prioritized_replay.sample(replay, jax.random.PRNGKey(0), 2, 0.5)


if __name__ == '__main__':
  absltest.main()
