"""Tests for experiments/storage/loggers.py."""

import csv
import glob
import os

from absl.testing import absltest

from experiments.storage import loggers


def _rows(path):
  with open(path, newline='') as f:
    return list(csv.DictReader(f))


class CSVLoggerTest(absltest.TestCase):

  def test_writes_header_and_rows(self):
    path = os.path.join(self.create_tempdir().full_path, 'log.csv')
    logger = loggers.CSVLogger(path)
    logger.write({'loss': 1.5, 'game_length': 40}, step=10)
    logger.write({'loss': 0.5, 'game_length': 30}, step=20)
    logger.close()
    rows = _rows(path)
    self.assertEqual([r['step'] for r in rows], ['10', '20'])
    self.assertEqual(rows[1]['loss'], '0.5')

  def test_resume_drops_rows_after_checkpoint(self):
    path = os.path.join(self.create_tempdir().full_path, 'log.csv')
    logger = loggers.CSVLogger(path)
    for step in (10, 20, 30):
      logger.write({'x': step}, step=step)
    logger.close()
    logger = loggers.CSVLogger(path, resume_step=20)
    logger.write({'x': 25}, step=25)
    logger.close()
    self.assertEqual([r['step'] for r in _rows(path)], ['10', '20', '25'])

  def test_fresh_start_over_old_file_starts_clean(self):
    path = os.path.join(self.create_tempdir().full_path, 'log.csv')
    logger = loggers.CSVLogger(path)
    logger.write({'x': 1}, step=1)
    logger.close()
    logger = loggers.CSVLogger(path, resume_step=None)
    logger.write({'y': 2}, step=1)
    logger.close()
    rows = _rows(path)
    self.assertEqual(rows, [{'step': '1', 'y': '2'}])

  def test_new_keys_widen_the_header(self):
    path = os.path.join(self.create_tempdir().full_path, 'log.csv')
    logger = loggers.CSVLogger(path)
    logger.write({'loss': 1.0}, step=1)
    logger.write({'loss': 2.0, 'eval/return': 7.0}, step=2)
    logger.write({'loss': 3.0}, step=3)
    logger.close()
    rows = _rows(path)
    self.assertEqual([r['eval/return'] for r in rows], ['', '7.0', ''])
    self.assertEqual([r['loss'] for r in rows], ['1.0', '2.0', '3.0'])


class TensorBoardLoggerTest(absltest.TestCase):

  def test_writes_event_file_with_scalars(self):
    logdir = self.create_tempdir().full_path
    logger = loggers.MultiLogger([loggers.TensorBoardLogger(logdir)])
    logger.write({'game_length': 12.5}, step=3)
    logger.close()
    (event_file,) = glob.glob(os.path.join(logdir, 'events.out.tfevents.*'))
    from tensorboard.backend.event_processing import event_accumulator  # pylint: disable=g-import-not-at-top
    accumulator = event_accumulator.EventAccumulator(event_file)
    accumulator.Reload()
    (event,) = accumulator.Scalars('game_length')
    self.assertEqual(event.step, 3)
    self.assertAlmostEqual(event.value, 12.5)


if __name__ == '__main__':
  absltest.main()
