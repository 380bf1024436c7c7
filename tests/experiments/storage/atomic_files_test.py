"""Tests for experiments/storage/atomic_files.py."""

import json
import os
from unittest import mock

from absl.testing import absltest

from experiments.storage import atomic_files


class AtomicFilesTest(absltest.TestCase):

  def test_write_json_round_trip_and_creates_dirs(self):
    path = os.path.join(self.create_tempdir().full_path, 'a', 'b.json')
    atomic_files.write_json(path, {'x': 1})
    with open(path) as f:
      self.assertEqual(json.load(f), {'x': 1})

  def test_written_files_are_readable_by_others(self):
    path = os.path.join(self.create_tempdir().full_path, 'result.json')
    atomic_files.write_bytes(path, b'{}')
    self.assertEqual(os.stat(path).st_mode & 0o777, 0o644)

  def test_failed_write_keeps_old_file_and_leaves_no_temp(self):
    directory = self.create_tempdir().full_path
    path = os.path.join(directory, 'result.json')
    atomic_files.write_json(path, {'old': True})
    with mock.patch.object(os, 'replace', side_effect=OSError('disk full')):
      with self.assertRaises(OSError):
        atomic_files.write_json(path, {'new': True})
    with open(path) as f:
      self.assertEqual(json.load(f), {'old': True})
    self.assertEqual(os.listdir(directory), ['result.json'])


if __name__ == '__main__':
  absltest.main()
