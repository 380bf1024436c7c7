"""Tests for experiments/storage/checkpointing.py."""

import os

from absl.testing import absltest
import chex
import jax
import numpy as np

from experiments.storage import checkpointing


class CheckpointerTest(absltest.TestCase):

  def test_round_trip_keeps_structure_and_values(self):
    directory = os.path.join(self.create_tempdir().full_path, 'ckpt')
    state = {'params': {'w': np.arange(6.0).reshape(2, 3)},
             'key': jax.random.PRNGKey(7),
             'counters': {'episodes': np.asarray(12, np.int64)}}
    checkpointer = checkpointing.Checkpointer(directory)
    self.assertIsNone(checkpointer.restore_latest(state))
    checkpointer.save(5, state)
    newer = jax.tree.map(lambda x: x + 1, state)
    checkpointer.save(9, newer)
    checkpointer.close()

    template = jax.tree.map(np.zeros_like, state)
    step, restored = checkpointing.Checkpointer(directory).restore_latest(
        template)
    self.assertEqual(step, 9)
    chex.assert_trees_all_equal(restored, jax.tree.map(np.asarray, newer))

  def test_keeps_at_most_max_to_keep(self):
    directory = os.path.join(self.create_tempdir().full_path, 'ckpt')
    checkpointer = checkpointing.Checkpointer(directory, max_to_keep=2)
    for step in range(4):
      checkpointer.save(step, {'x': np.asarray(step)})
    checkpointer.close()
    self.assertEqual(sorted(os.listdir(directory)), ['2', '3'])

  def test_saving_the_newest_step_again_is_a_no_op(self):
    directory = os.path.join(self.create_tempdir().full_path, 'ckpt')
    checkpointer = checkpointing.Checkpointer(directory)
    checkpointer.save(3, {'x': np.asarray(1)})
    checkpointer.save(3, {'x': np.asarray(1)})
    self.assertEqual(checkpointer.latest_step(), 3)
    checkpointer.close()


if __name__ == '__main__':
  absltest.main()
