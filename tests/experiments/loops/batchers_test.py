"""Tests for experiments/loops/batchers.py."""

import pickle

from absl.testing import absltest
import numpy as np

from agents import agent as agent_lib
from experiments.loops import batchers


def _feed(batcher, length, start=0.0, truncated=False):
  """One environment's episode of `length` steps, acting on observations
  start, start + 1, …; step t has action t % 3, reward t, log-prob -t."""
  for t in range(length):
    last = t == length - 1
    batcher.observe(batchers.Step(
        observations=np.full((1, 2), start + t, np.float32),
        actions=np.array([t % 3], np.int32),
        rewards=np.array([t], np.float32),
        discounts=np.array([0.0 if last and not truncated else 1.0],
                           np.float32),
        last=np.array([last]),
        next_observations=np.full((1, 2), start + t + 1, np.float32),
        extras={'logp': np.array([-t], np.float32)}))


class EpisodeBatcherTest(absltest.TestCase):

  def test_batch_is_time_major_padded_and_masked(self):
    batcher = batchers.EpisodeBatcher(batch_size=2, num_envs=1)
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
    batcher = batchers.EpisodeBatcher(batch_size=2, num_envs=1)
    _feed(batcher, 2)
    with self.assertRaisesRegex(RuntimeError, '1 of 2'):
      batcher.pop_batch()

  def test_bad_batch_size(self):
    with self.assertRaisesRegex(ValueError, 'batch_size'):
      batchers.EpisodeBatcher(batch_size=0, num_envs=1)


def _resumed(batcher, fresh, keep_partial=False):
  """`fresh` restored from `batcher.state(keep_partial)` sent through
  pickle."""
  fresh.restore(pickle.loads(pickle.dumps(batcher.state(keep_partial))))
  return fresh


def _assert_same_batch(test, a, b):
  for field in ('observations', 'actions', 'rewards', 'discounts', 'last',
                'mask', 'final_observations'):
    np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    test.assertEqual(getattr(a, field).dtype, getattr(b, field).dtype)
  np.testing.assert_array_equal(a.extras['logp'], b.extras['logp'])


class EpisodeBatcherStateTest(absltest.TestCase):

  def test_part_filled_batch_survives_a_restore(self):
    kept, resumed = (batchers.EpisodeBatcher(batch_size=3, num_envs=1) for _ in range(2))
    for batcher in (kept, resumed):
      _feed(batcher, 3, start=0.0)
      _feed(batcher, 5, start=10.0, truncated=True)
    resumed = _resumed(resumed, batchers.EpisodeBatcher(batch_size=3, num_envs=1))
    for batcher in (kept, resumed):
      self.assertFalse(batcher.ready())
      _feed(batcher, 2, start=20.0)
    _assert_same_batch(self, kept.pop_batch(), resumed.pop_batch())

  def test_empty_state_and_other_settings(self):
    batcher = batchers.EpisodeBatcher(batch_size=2, num_envs=1)
    state = batcher.state()
    self.assertEqual(state['episodes'], [])
    with self.assertRaisesRegex(ValueError, 'batch_size'):
      batchers.EpisodeBatcher(batch_size=4, num_envs=1).restore(state)


class SequenceBatcherTest(absltest.TestCase):

  def test_unrolls_cross_episode_boundaries(self):
    batcher = batchers.SequenceBatcher(batch_size=2, unroll_length=2)
    _feed(batcher, 3, start=0.0)  # Steps observe 0,1,2; episode ends at 3.
    _feed(batcher, 2, start=100.0)  # Observes 100, 101; ends at 102.
    self.assertTrue(batcher.ready())
    batch = batcher.pop_batch()
    self.assertFalse(batcher.ready())
    self.assertEqual(batch.observations.shape, (2, 2, 2))
    # Sequence 0: o=0,1; sequence 1: o=2 (last step of episode 1), then 100.
    np.testing.assert_array_equal(batch.observations[:, 0, 0], [0, 1])
    np.testing.assert_array_equal(batch.observations[:, 1, 0], [2, 100])
    np.testing.assert_array_equal(batch.last[:, 1], [True, False])
    np.testing.assert_array_equal(batch.discounts[:, 1], [0.0, 1.0])
    np.testing.assert_array_equal(batch.final_observations[:, 0], [2, 101])
    np.testing.assert_array_equal(batch.mask, np.ones((2, 2)))
    np.testing.assert_array_equal(batch.extras['logp'][:, 1], [-2, 0])
    self.assertEqual(batch.actions.dtype, np.int32)

  def test_next_observations_keep_what_a_time_limit_cut_off(self):
    batcher = batchers.SequenceBatcher(batch_size=1, unroll_length=4)
    _feed(batcher, 2, start=0.0, truncated=True)  # Cut off at 2.
    _feed(batcher, 2, start=100.0)  # Ends (terminal) at 102.
    batch = batcher.pop_batch()
    np.testing.assert_array_equal(batch.observations[:, 0, 0],
                                  [0, 1, 100, 101])
    np.testing.assert_array_equal(batch.next_observations[:, 0, 0],
                                  [1, 2, 101, 102])
    np.testing.assert_array_equal(batch.discounts[:, 0], [1, 1, 1, 0])

  def test_leftover_steps_wait_for_the_next_batch(self):
    batcher = batchers.SequenceBatcher(batch_size=1, unroll_length=4)
    _feed(batcher, 3)
    self.assertFalse(batcher.ready())
    _feed(batcher, 3, start=50.0)
    batch = batcher.pop_batch()
    np.testing.assert_array_equal(batch.observations[:, 0, 0], [0, 1, 2, 50])
    with self.assertRaisesRegex(RuntimeError, '0 of 1'):
      batcher.pop_batch()

  def test_part_filled_unroll_survives_a_restore(self):
    make = lambda: batchers.SequenceBatcher(batch_size=2, unroll_length=4)
    kept, resumed = make(), make()
    for batcher in (kept, resumed):
      _feed(batcher, 3, start=0.0)
      _feed(batcher, 3, start=50.0)  # One sequence and two steps held.
    resumed = _resumed(resumed, make(), keep_partial=True)
    for batcher in (kept, resumed):
      self.assertFalse(batcher.ready())
      _feed(batcher, 2, start=80.0)
    _assert_same_batch(self, kept.pop_batch(), resumed.pop_batch())
    with self.assertRaisesRegex(ValueError, 'unroll_length'):
      batchers.SequenceBatcher(batch_size=2, unroll_length=8).restore(
          kept.state())

  def test_unroll_in_progress_is_dropped_unless_kept(self):
    make = lambda: batchers.SequenceBatcher(batch_size=1, unroll_length=4)
    batcher = make()
    _feed(batcher, 3, start=0.0)  # Three steps of an unroll in progress.
    resumed = _resumed(batcher, make())
    _feed(resumed, 4, start=50.0)
    np.testing.assert_array_equal(resumed.pop_batch().observations[:, 0, 0],
                                  [50, 51, 52, 53])

  def test_make_batcher_follows_data_requirements(self):
    self.assertIsInstance(
        batchers.make_batcher(agent_lib.DataRequirements(batch_size=4), 2),
        batchers.EpisodeBatcher)
    self.assertIsInstance(
        batchers.make_batcher(agent_lib.DataRequirements(4, unroll_length=8),
                              2),
        batchers.SequenceBatcher)


if __name__ == '__main__':
  absltest.main()
