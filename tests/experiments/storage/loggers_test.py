"""Tests for experiments/storage/loggers.py."""

import csv
import glob
import os
import threading
from unittest import mock

from absl import logging
from absl.testing import absltest
import numpy as np
from tensorboard.backend.event_processing import event_accumulator

from experiments.storage import loggers


def _rows(path):
  with open(path, newline='') as f:
    return list(csv.DictReader(f))


def _append(path, text):
  with open(path, 'a') as f:
    f.write(text)


def _scalars(path, tag):
  accumulator = event_accumulator.EventAccumulator(path)
  accumulator.Reload()
  return [(e.step, e.value) for e in accumulator.Scalars(tag)]


class CSVLoggerTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.path = os.path.join(self.create_tempdir().full_path, 'log.csv')

  def _log(self, steps, resume_step=None):
    logger = loggers.CSVLogger(self.path, resume_step)
    for step in steps:
      logger.write({'x': step / 2}, step=step)
    logger.close()
    return logger

  def test_writes_header_and_rows(self):
    logger = loggers.CSVLogger(self.path)
    logger.write({'train/loss': 1.5, 'train/strikes': 40}, step=10)
    logger.write({'train/loss': 0.5, 'train/strikes': 30}, step=20)
    logger.close()
    rows = _rows(self.path)
    self.assertEqual([r['step'] for r in rows], ['10', '20'])
    self.assertEqual(rows[1]['train/loss'], '0.5')
    with open(self.path, 'rb') as f:
      self.assertEqual(f.read(), b'step,train/loss,train/strikes\n'
                       b'10,1.5,40\n20,0.5,30\n')

  def test_floats_have_7_significant_digits_and_stay_floats(self):
    logger = loggers.CSVLogger(self.path)
    values = {'a': 12.569999694824219, 'b': np.float32(0.1), 'c': 8.0,
              'd': 16225.45755019083, 'e': -3e-9, 'f': 1e300,
              'g': np.float64(-0.0), 'n': np.int64(7), 'flag': True}
    logger.write(values, step=1)
    with open(self.path) as f:
      self.assertEqual(f.read().splitlines()[1],
                       '1,12.57,0.1,8.0,16225.46,-3e-09,1e+300,-0.0,7,1')
    (row,) = loggers.read_rows(self.path)  # What the reader takes back.
    self.assertEqual(row, {'step': 1, 'a': 12.57, 'b': 0.1, 'c': 8.0,
                           'd': 16225.46, 'e': -3e-9, 'f': 1e300, 'g': -0.0,
                           'n': 7, 'flag': 1})
    self.assertIsInstance(row['c'], float)
    self.assertIsInstance(row['n'], int)
    for name, value in values.items():  # Half a unit of the 7th digit.
      self.assertAlmostEqual(row[name], float(value),
                             delta=abs(float(value)) * 5e-7)

  def test_rounded_rows_resume(self):
    logger = loggers.CSVLogger(self.path)
    for step in (1, 2, 3):
      logger.write({'x': step / 3, 'nan': float('nan'), 'inf': -np.inf},
                   step)
    resumed = loggers.CSVLogger(self.path, resume_step=2)
    self.assertEqual(resumed.num_rows, 2)
    resumed.write({'x': 1.0}, step=4)
    rows = loggers.read_rows(self.path)
    self.assertEqual([(r['step'], r['x']) for r in rows],
                     [(1, 0.3333333), (2, 0.6666667), (4, 1.0)])
    self.assertTrue(np.isnan(rows[0]['nan']))
    self.assertEqual(rows[1]['inf'], -np.inf)

  def test_rejects_values_that_are_not_numbers(self):
    logger = loggers.CSVLogger(self.path)
    with self.assertRaisesRegex(ValueError, 'not a number'):
      logger.write({'x': 'oops'}, step=1)

  def test_resume_drops_rows_after_checkpoint(self):
    self._log([10, 20, 30])
    logger = self._log([25], resume_step=20)
    self.assertEqual([r['step'] for r in _rows(self.path)], ['10', '20', '25'])
    self.assertEqual(logger.num_rows, 3)

  def test_fresh_start_over_old_file_starts_clean(self):
    logger = loggers.CSVLogger(self.path)
    logger.write({'x': 1}, step=1)
    logger.close()
    logger = loggers.CSVLogger(self.path, resume_step=None)
    logger.write({'y': 2}, step=1)
    logger.close()
    self.assertEqual(_rows(self.path), [{'step': '1', 'y': '2'}])

  def test_new_keys_widen_the_header(self):
    logger = loggers.CSVLogger(self.path)
    logger.write({'loss': 1.0}, step=1)
    logger.write({'loss': 2.0, 'eval/return': 7.0}, step=2)
    logger.write({'loss': 3.0}, step=3)
    logger.close()
    rows = _rows(self.path)
    self.assertEqual([r['eval/return'] for r in rows], ['', '7.0', ''])
    self.assertEqual([r['loss'] for r in rows], ['1.0', '2.0', '3.0'])
    self.assertEqual(loggers.read_rows(self.path)[1],
                     {'step': 2, 'loss': 2.0, 'eval/return': 7.0})
    self.assertEqual(logger.num_rows, 3)

  def test_num_rows_counts_rows_in_the_file(self):
    self.assertEqual(self._log([]).num_rows, 0)
    self.assertEqual(self._log([1, 2]).num_rows, 2)
    logger = loggers.CSVLogger(self.path, resume_step=5)
    self.assertEqual(logger.num_rows, 2)
    logger.write({'x': 1.0}, step=6)
    self.assertEqual(logger.num_rows, 3)

  def test_resume_drops_torn_tail_without_newline(self):
    self._log([1, 2])
    _append(self.path, '3,1.')  # Killed mid-write.
    with mock.patch.object(logging, 'warning') as warning:
      logger = self._log([3], resume_step=10)
    (message,) = warning.call_args[0][1:]
    self.assertIn(f'{self.path}, line 4', message)
    self.assertIn("'3,1.'", message)
    self.assertEqual([r['step'] for r in loggers.read_rows(self.path)],
                     [1, 2, 3])
    self.assertEqual(logger.num_rows, 3)

  def test_resume_drops_unreadable_last_row(self):
    for tail in ('3\n', '3,1.5,9\n', 'x,1.5\n', '3,abc\n', '\0\0\0\n'):
      with self.subTest(tail):
        self._log([1, 2])
        _append(self.path, tail)
        with mock.patch.object(logging, 'warning') as warning:
          logger = loggers.CSVLogger(self.path, resume_step=10)
        warning.assert_called_once()
        self.assertEqual(logger.num_rows, 2)
        self.assertLen(loggers.read_rows(self.path), 2)

  def test_resume_drops_out_of_order_last_row(self):
    self._log([10, 20])
    _append(self.path, '2,1.0\n')  # Parses, but steps never go back.
    with mock.patch.object(logging, 'warning') as warning:
      logger = loggers.CSVLogger(self.path, resume_step=30)
    self.assertIn('below the previous', warning.call_args[0][1])
    self.assertEqual([r['step'] for r in loggers.read_rows(self.path)],
                     [10, 20])
    self.assertEqual(logger.num_rows, 2)

  def test_garbage_middle_row_raises_naming_file_and_line(self):
    self._log([1])
    _append(self.path, 'garbage\n2,1.0\n')
    with self.assertRaises(loggers.CorruptLogError) as raised:
      loggers.CSVLogger(self.path, resume_step=10)
    message = str(raised.exception)
    self.assertIn(f'{self.path}, line 3', message)
    self.assertIn('move the file aside', message)
    self.assertIsInstance(raised.exception, ValueError)

  def test_garbage_header_raises(self):
    with open(self.path, 'w') as f:
      f.write('loss,x\n1,2\n')
    with self.assertRaisesRegex(loggers.CorruptLogError,
                                f'{self.path}, line 1.*no step column'):
      loggers.CSVLogger(self.path, resume_step=10)

  def test_empty_and_header_only_files_resume(self):
    for text in ('', 'step,x\n'):
      with self.subTest(text):
        with open(self.path, 'w') as f:
          f.write(text)
        logger = loggers.CSVLogger(self.path, resume_step=10)
        logger.write({'x': 1.5}, step=11)
        self.assertEqual(loggers.read_rows(self.path),
                         [{'step': 11, 'x': 1.5}])

  def test_resume_reads_crlf_files_of_older_versions(self):
    with open(self.path, 'w', newline='') as f:
      f.write('step,x\r\n1,0.5\r\n2,1.0\r\n')
    logger = loggers.CSVLogger(self.path, resume_step=1)
    logger.write({'x': 2.0}, step=3)
    with open(self.path, 'rb') as f:
      self.assertEqual(f.read(), b'step,x\n1,0.5\n3,2.0\n')

  def test_read_rows_is_strict(self):
    self._log([1, 2])
    self.assertEqual(loggers.read_rows(self.path),
                     [{'step': 1, 'x': 0.5}, {'step': 2, 'x': 1.0}])
    _append(self.path, '3,1.')
    with self.assertRaisesRegex(loggers.CorruptLogError,
                                f'{self.path}, line 4.*no newline'):
      loggers.read_rows(self.path)
    self._log([1, 2])
    _append(self.path, '1,0.5\n')
    with self.assertRaisesRegex(loggers.CorruptLogError, 'line 4'):
      loggers.read_rows(self.path)


class TensorBoardLoggerTest(absltest.TestCase):

  def test_scalars_round_trip(self):
    logdir = self.create_tempdir().full_path
    logger = loggers.MultiLogger([loggers.TensorBoardLogger(logdir)])
    logger.write({'train/strikes': 12.5, 'eval/strikes': -3.0}, step=3)
    logger.write({'train/strikes': 10.0}, step=7)
    logger.close()
    (event_file,) = glob.glob(os.path.join(logdir, 'events.out.tfevents.*'))
    self.assertEqual(_scalars(event_file, 'train/strikes'),
                     [(3, 12.5), (7, 10.0)])
    self.assertEqual(_scalars(logdir, 'eval/strikes'), [(3, -3.0)])

  def test_fresh_start_removes_an_earlier_sessions_events(self):
    logdir = self.create_tempdir().full_path
    stale = loggers.TensorBoardLogger(logdir)
    stale.write({'x': 5.0}, 50)  # Never reached a checkpoint.
    with open(os.path.join(logdir, 'notes.txt'), 'w') as f:
      f.write('kept')
    fresh = loggers.TensorBoardLogger(logdir)
    fresh.write({'x': 1.0}, 10)
    self.assertEqual(glob.glob(os.path.join(logdir, 'events.out.*')),
                     [fresh.path])
    self.assertEqual(_scalars(logdir, 'x'), [(10, 1.0)])
    self.assertTrue(os.path.exists(os.path.join(logdir, 'notes.txt')))

  def test_resume_purges_events_after_checkpoint(self):
    logdir = self.create_tempdir().full_path
    logger = loggers.TensorBoardLogger(logdir)
    for step in (10, 20, 30, 40):
      logger.write({'x': step}, step)
    resumed = loggers.TensorBoardLogger(logdir, resume_step=20)
    self.assertNotEqual(resumed.path, logger.path)
    self.assertGreater(resumed.path, logger.path)  # Read after it.
    resumed.write({'x': 25.0}, 25)
    self.assertEqual(_scalars(logdir, 'x'), [(10, 10), (20, 20), (25, 25)])


class OpenFilesTest(absltest.TestCase):

  def test_many_loggers_hold_no_files_or_threads(self):
    root = self.create_tempdir().full_path
    fds, threads = len(os.listdir('/proc/self/fd')), threading.active_count()
    seeds = []
    for seed in range(300):
      directory = os.path.join(root, str(seed))
      seeds.append((
          loggers.MultiLogger([
              loggers.CSVLogger(os.path.join(directory, 'train.csv')),
              loggers.TensorBoardLogger(os.path.join(directory, 'tb'))]),
          loggers.CSVLogger(os.path.join(directory, 'eval.csv'))))
    for step in (1, 2):
      for train, evaluation in seeds:
        train.write({'loss': 1.0 / step}, step)
        evaluation.write({'mean_return': 2.0 * step}, step)
    self.assertLessEqual(len(os.listdir('/proc/self/fd')), fds + 3)
    self.assertEqual(threading.active_count(), threads)
    self.assertEqual(loggers.read_rows(os.path.join(root, '299', 'eval.csv')),
                     [{'step': 1, 'mean_return': 2.0},
                      {'step': 2, 'mean_return': 4.0}])


if __name__ == '__main__':
  absltest.main()
