"""Tests for experiments/storage/checkpointing.py."""

import os
import subprocess
import sys
import textwrap

from absl.testing import absltest
import chex
import jax
import numpy as np
import pytest

from experiments.storage import checkpointing


def _checkpoints(directory):
  """The checkpoints in `directory` (not its lock file)."""
  return sorted(n for n in os.listdir(directory)
                if n != checkpointing.LOCK_FILE)


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
    host = {'pending': [np.arange(3), np.ones((2, 2))], 'count': 4}
    checkpointer.save(9, newer, host)
    checkpointer.close()

    template = jax.tree.map(np.zeros_like, state)
    step, restored, restored_host = checkpointing.Checkpointer(
        directory).restore_latest(template)
    self.assertEqual(step, 9)
    chex.assert_trees_all_equal(restored, jax.tree.map(np.asarray, newer))
    chex.assert_trees_all_equal(restored_host, host)

  def test_keeps_at_most_max_to_keep(self):
    directory = os.path.join(self.create_tempdir().full_path, 'ckpt')
    checkpointer = checkpointing.Checkpointer(directory, max_to_keep=2)
    for step in range(4):
      checkpointer.save(step, {'x': np.asarray(step)})
    checkpointer.close()
    self.assertEqual(_checkpoints(directory), ['2', '3'])

  @pytest.mark.slow  # Over 5 s cold (docs/testing.md).
  def test_a_reader_beside_a_live_writer_reads_the_newest_whole_one(self):
    # A process saving checkpoint after checkpoint (removing all but the
    # newest two) while this one restores again and again, as an export or
    # api.load_policy of a live run does: every read restores.
    directory = os.path.join(self.create_tempdir().full_path, 'ckpt')
    state = {'w': np.zeros((256, 256), np.float32)}
    checkpointing.Checkpointer(directory).save(0, state)
    writer = subprocess.Popen([sys.executable, '-c', textwrap.dedent(f"""
        import numpy as np
        from experiments.storage import checkpointing
        saver = checkpointing.Checkpointer({directory!r})
        for step in range(1, 41):
          saver.save(step, {{'w': np.full((256, 256), step, np.float32)}})
        saver.close()
        """)])
    steps = []
    try:
      while writer.poll() is None:
        reader = checkpointing.Checkpointer(directory)
        restored = reader.restore_latest(state)
        reader.close()
        self.assertIsNotNone(restored)
        np.testing.assert_array_equal(restored.state['w'], restored.step)
        steps.append(restored.step)
    finally:
      writer.wait(timeout=120)
    self.assertEqual(writer.returncode, 0)
    self.assertEqual(steps, sorted(steps))
    self.assertGreater(len(set(steps)), 2)  # Read beside the writes.

  def test_saving_the_newest_step_again_is_a_no_op(self):
    directory = os.path.join(self.create_tempdir().full_path, 'ckpt')
    checkpointer = checkpointing.Checkpointer(directory)
    checkpointer.save(3, {'x': np.asarray(1)})
    checkpointer.save(3, {'x': np.asarray(1)})
    self.assertEqual(checkpointer.latest_step(), 3)
    checkpointer.close()


def _damage(checkpoint: str) -> None:
  """Truncates every file of a checkpoint directory (a torn copy)."""
  for root, _, files in os.walk(checkpoint):
    for name in files:
      with open(os.path.join(root, name), 'r+b') as f:
        f.truncate(max(0, os.path.getsize(f.name) // 3))


class DamagedCheckpointTest(absltest.TestCase):

  def _saved(self):
    root = self.create_tempdir().full_path
    directory = os.path.join(root, 'checkpoints')
    checkpointer = checkpointing.Checkpointer(directory)
    for step in (3, 7):
      checkpointer.save(step, {'x': np.full(1000, step, np.float32)},
                        {'step': step})
    checkpointer.close()
    return root, directory

  @pytest.mark.slow  # Over 5 s cold (docs/testing.md).
  def test_falls_back_to_the_previous_checkpoint_and_sets_the_bad_aside(self):
    root, directory = self._saved()
    _damage(os.path.join(directory, '7'))
    reader = checkpointing.Checkpointer(directory)
    with self.assertLogs(level='WARNING') as logs:
      self.assertEqual(reader.restore_latest(
          {'x': np.zeros(1000, np.float32)}).step, 3)
    self.assertIn('left in place', logs.output[0])
    self.assertEqual(_checkpoints(directory), ['3', '7'])
    reader.close()
    checkpointer = checkpointing.Checkpointer(directory)
    with self.assertLogs(level='WARNING') as logs:
      step, state, host = checkpointer.restore_latest(
          {'x': np.zeros(1000, np.float32)}, set_aside_damaged=True)
    self.assertEqual((step, host), (3, {'step': 3}))
    np.testing.assert_array_equal(state['x'], np.full(1000, 3, np.float32))
    self.assertIn('Checkpoint 7', logs.output[0])
    self.assertEqual(_checkpoints(directory), ['3'])
    (moved,) = os.listdir(os.path.join(root, checkpointing.DAMAGED))
    self.assertTrue(moved.startswith('7.'))
    checkpointer.save(5, {'x': np.zeros(1000, np.float32)})  # Goes on.
    self.assertEqual(checkpointer.latest_step(), 5)
    checkpointer.close()

  def test_a_deleted_file_counts_as_damage(self):
    _, directory = self._saved()
    for root, _, files in os.walk(os.path.join(directory, '7')):
      for name in files:
        if name != '_CHECKPOINT_METADATA':
          os.remove(os.path.join(root, name))
    with self.assertLogs(level='WARNING'):
      step, _, _ = checkpointing.Checkpointer(directory).restore_latest(
          {'x': np.zeros(1000, np.float32)})
    self.assertEqual(step, 3)

  def test_no_restorable_checkpoint_names_the_directory(self):
    _, directory = self._saved()
    for step in ('3', '7'):
      _damage(os.path.join(directory, step))
    with self.assertRaisesRegex(checkpointing.CheckpointError,
                                'No checkpoint in .*checkpoints can be '
                                'restored.*Move that directory aside'):
      checkpointing.Checkpointer(directory).restore_latest(
          {'x': np.zeros(1000, np.float32)})
    self.assertEqual(_checkpoints(directory), ['3', '7'])  # Kept.


class WriteErrorTest(absltest.TestCase):

  def test_full_disk_is_said_in_words(self):
    error = ValueError(
        'RESOURCE_EXHAUSTED: Error writing "x" in OCDBT database at local '
        'file "/w/1.orbax-checkpoint-tmp": Failed to write 30328 bytes to '
        'file 8: No space left on device [os_error_code=\'28\']')
    self.assertEqual(
        checkpointing._write_failure(20, '/w', 10, error),
        'checkpoint 20 could not be written in /w: no space left on device '
        '(ENOSPC); files written before are intact (the newest complete '
        'checkpoint is 10); free space and rerun the same command to '
        'resume.')


if __name__ == '__main__':
  absltest.main()
