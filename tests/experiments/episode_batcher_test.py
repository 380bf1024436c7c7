"""Tests for experiments/episode_batcher.py."""

from absl.testing import absltest
import dm_env
import numpy as np

from experiments import episode_batcher


def _feed(batcher, length, start=0.0, truncated=False):
  batcher.observe_first(dm_env.restart(np.full((2,), start, np.float32)))
  for t in range(length):
    obs = np.full((2,), start + t + 1, np.float32)
    if t < length - 1:
      ts = dm_env.transition(np.float32(t), obs)
    elif truncated:
      ts = dm_env.truncation(np.float32(t), obs)
    else:
      ts = dm_env.termination(np.float32(t), obs)
    batcher.observe(t % 3, {'logp': np.float32(-t)}, ts)


class EpisodeBatcherTest(absltest.TestCase):

  def test_batch_is_time_major_padded_and_masked(self):
    batcher = episode_batcher.EpisodeBatcher(batch_size=2)
    _feed(batcher, 3, start=0.0)
    self.assertFalse(batcher.ready())
    _feed(batcher, 9, start=100.0, truncated=True)
    self.assertTrue(batcher.ready())
    batch = batcher.pop_batch()
    self.assertFalse(batcher.ready())
    t = 16  # Next power of two above 9.
    self.assertEqual(batch.observations.shape, (t, 2, 2))
    self.assertEqual(batch.actions.shape, (t, 2))
    np.testing.assert_array_equal(batch.mask[:, 0], [1] * 3 + [0] * 13)
    np.testing.assert_array_equal(batch.mask[:, 1], [1] * 9 + [0] * 7)
    np.testing.assert_array_equal(np.flatnonzero(batch.last[:, 0]), [2])
    np.testing.assert_array_equal(np.flatnonzero(batch.last[:, 1]), [8])
    # o_t precedes a_t: first observation is the FIRST step's.
    np.testing.assert_array_equal(batch.observations[:3, 0, 0], [0, 1, 2])
    np.testing.assert_array_equal(batch.final_observations[:, 0], [3, 109])
    self.assertEqual(batch.discounts[2, 0], 0.0)  # Termination.
    self.assertEqual(batch.discounts[8, 1], 1.0)  # Truncation.
    np.testing.assert_array_equal(batch.rewards[:3, 0], [0, 1, 2])
    np.testing.assert_array_equal(batch.extras['logp'][:3, 0], [0, -1, -2])
    self.assertEqual(batch.actions.dtype, np.int32)

  def test_pop_before_ready_raises(self):
    batcher = episode_batcher.EpisodeBatcher(batch_size=2)
    _feed(batcher, 2)
    with self.assertRaisesRegex(RuntimeError, '1 of 2'):
      batcher.pop_batch()

  def test_observe_needs_observe_first(self):
    batcher = episode_batcher.EpisodeBatcher(batch_size=1)
    with self.assertRaisesRegex(RuntimeError, 'observe_first'):
      batcher.observe(0, {}, dm_env.transition(0.0, np.zeros(2)))

  def test_bad_batch_size(self):
    with self.assertRaisesRegex(ValueError, 'batch_size'):
      episode_batcher.EpisodeBatcher(batch_size=0)


if __name__ == '__main__':
  absltest.main()
