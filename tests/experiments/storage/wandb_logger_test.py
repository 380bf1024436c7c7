"""Tests for experiments/storage/wandb_logger.py: its logic against a fake
`wandb` module, and real `wandb` in offline mode (read back from the files
it writes; skipped where the `wandb` extra is not installed)."""

import glob
import importlib.util
import json
import os
import struct
import sys
import time
import types
from unittest import mock

from absl.testing import absltest
import pytest

from experiments.storage import wandb_logger

HAS_WANDB = importlib.util.find_spec('wandb') is not None


class _FakeRun:

  def __init__(self, kwargs, step):
    self.kwargs, self.id, self.step = kwargs, kwargs['id'], step
    self.logged, self.finished = [], False

  def log(self, values, step):
    self.logged.append((step, values))

  def finish(self):
    self.finished = True


def _fake_wandb(step=0):
  """A `wandb` module that records its runs (`module.runs`); resumed runs
  start at `step`, as W&B's do after the steps they hold."""
  module = types.ModuleType('wandb')
  module.runs = []

  def init(**kwargs):
    module.runs.append(_FakeRun(kwargs, step))
    return module.runs[-1]

  module.init = init
  module.Settings = lambda **kwargs: ('Settings', kwargs)
  return module


class WandbLoggerTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.directory = os.path.join(self.create_tempdir().full_path, 'seed_3')
    self.wandb = _fake_wandb()
    patcher = mock.patch.dict(sys.modules, {'wandb': self.wandb})
    patcher.start()
    self.addCleanup(patcher.stop)

  def _logger(self, resume=False):
    return wandb_logger.WandbLogger(
        'project', self.directory, 'runs/ps/seed_3', 'runs/ps',
        {'agent': 'ppo', 'seed': 3}, resume=resume)

  def _stored_id(self):
    with open(os.path.join(self.directory, wandb_logger.RUN_ID_FILE)) as f:
      return f.read().strip()

  def test_a_fresh_run_logs_rows_and_its_settings(self):
    logger = self._logger()
    logger.write({'train/strikes': 30.5, 'progress/episodes': 4}, step=100)
    logger.write({'train/strikes': 25.0}, step=200)
    logger.close()
    (run,) = self.wandb.runs
    self.assertEqual(run.logged, [(100, {'train/strikes': 30.5,
                                         'progress/episodes': 4}),
                                  (200, {'train/strikes': 25.0})])
    self.assertTrue(run.finished)
    self.assertEqual(
        {k: run.kwargs[k] for k in ('project', 'name', 'group', 'config',
                                    'dir', 'resume', 'reinit')},
        {'project': 'project', 'name': 'runs/ps/seed_3', 'group': 'runs/ps',
         'config': {'agent': 'ppo', 'seed': 3}, 'dir': self.directory,
         'resume': 'allow', 'reinit': 'create_new'})
    self.assertRegex(run.id, r'^[a-z0-9]{8}$')
    self.assertEqual(self._stored_id(), run.id)

  def test_a_resumed_run_continues_the_stored_run(self):
    first = self._logger()
    resumed = self._logger(resume=True)
    self.assertEqual(resumed.run_id, first.run_id)
    self.assertEqual(self._stored_id(), first.run_id)

  def test_a_fresh_start_begins_a_new_run(self):
    first = self._logger()
    again = self._logger(resume=False)  # E.g. killed before a checkpoint.
    self.assertNotEqual(again.run_id, first.run_id)
    self.assertEqual(self._stored_id(), again.run_id)

  def test_an_unreadable_stored_id_begins_a_new_run(self):
    os.makedirs(self.directory)
    with open(os.path.join(self.directory, wandb_logger.RUN_ID_FILE),
              'w') as f:
      f.write('not an id!\n')
    logger = self._logger(resume=True)
    self.assertRegex(logger.run_id, r'^[a-z0-9]{8}$')
    self.assertEqual(self._stored_id(), logger.run_id)

  def test_resumed_rows_the_run_already_holds_are_left_to_it(self):
    self._logger()
    self.wandb.runs.clear()
    with mock.patch.object(self.wandb, 'init',
                           lambda **kwargs: _FakeRun(kwargs, step=300)):
      resumed = self._logger(resume=True)
    resumed.write({'x': 1.0}, step=200)  # Logged before the crash.
    resumed.write({'x': 2.0}, step=300)
    resumed.write({'x': 3.0}, step=400)
    self.assertEqual([step for step, _ in resumed._run.logged], [300, 400])


class MissingWandbTest(absltest.TestCase):

  def test_names_the_extra_to_install(self):
    with mock.patch.dict(sys.modules, {'wandb': None}):  # Import fails.
      with self.assertRaisesRegex(ImportError,
                                  r"pip install -e '\.\[wandb\]'"):
        wandb_logger.check_installed()
      with self.assertRaisesRegex(ImportError, 'wandb_project'):
        wandb_logger.WandbLogger('p', self.create_tempdir().full_path, 'n',
                                 'g', {}, resume=False)


class LoginTest(absltest.TestCase):

  def _check(self, environ, netrc_text=None):
    home = self.create_tempdir().full_path
    path = os.path.join(home, 'netrc')
    if netrc_text is not None:
      with open(path, 'w') as f:
        f.write(netrc_text)
    environ = {'NETRC': path, **environ}
    with mock.patch.dict(sys.modules, {'wandb': _fake_wandb()}), \
        mock.patch.dict(os.environ, environ):
      for key in ('WANDB_MODE', 'WANDB_API_KEY'):
        if key not in environ:
          os.environ.pop(key, None)
      wandb_logger.check_installed()

  def test_online_logging_needs_a_login(self):
    with self.assertRaisesRegex(wandb_logger.WandbError,
                                'wandb login.*WANDB_MODE=offline'):
      self._check({})
    self._check({'WANDB_MODE': 'offline'})
    self._check({'WANDB_MODE': 'disabled'})
    self._check({'WANDB_API_KEY': 'k' * 40})
    self._check({}, 'machine api.wandb.ai\n  login user\n  password k\n')
    with self.assertRaises(wandb_logger.WandbError):
      self._check({}, 'machine example.com\n  login u\n  password p\n')

  def test_a_refused_start_names_the_fix(self):
    fake = _fake_wandb()

    class Refused(Exception):
      pass

    fake.errors = types.SimpleNamespace(Error=Refused)

    def init(**kwargs):
      raise Refused('No API key configured. Use `wandb login`')

    fake.init = init
    with mock.patch.dict(sys.modules, {'wandb': fake}):
      with self.assertRaisesRegex(wandb_logger.WandbError,
                                  'No API key configured.*rerun the same '
                                  'command'):
        wandb_logger.WandbLogger('p', self.create_tempdir().full_path, 'n',
                                 'g', {}, resume=False)


def _records(path):
  """The records of a W&B run file (`run-<id>.wandb`: a 7-byte header, then
  LevelDB-log chunks in 32 KiB blocks)."""
  from wandb.proto import wandb_internal_pb2  # pylint: disable=g-import-not-at-top
  with open(path, 'rb') as f:
    data = f.read()
  records, pending, position = [], b'', 7
  if data[:4] != b':W&B':  # Not written yet.
    return records
  while position + 7 <= len(data):
    left = 32768 - position % 32768
    if left < 7:  # Block padding.
      position += left
      continue
    _, length, kind = struct.unpack('<IHB', data[position:position + 7])
    if position + 7 + length > len(data):  # Still being written.
      break
    pending += data[position + 7:position + 7 + length]
    position += 7 + length
    if kind in (1, 4):  # A whole record, or a record's last chunk.
      records.append(wandb_internal_pb2.Record.FromString(pending))
      pending = b''
  return records


def _finished_records(path, timeout=60.0):
  """The records of a finished run's file: W&B's service process may
  write them after `finish` returns, so wait for the run's exit record."""
  deadline = time.monotonic() + timeout
  while True:
    records = _records(path)
    if any(r.WhichOneof('record_type') == 'exit' for r in records):
      return records
    if time.monotonic() > deadline:
      raise AssertionError(f'{path} holds no exit record after {timeout} s.')
    time.sleep(0.2)


@absltest.skipUnless(HAS_WANDB, "needs the wandb extra: pip install -e "
                     "'.[wandb]'")
class OfflineWandbTest(absltest.TestCase):

  @pytest.mark.slow
  def test_rows_and_settings_reach_the_offline_run(self):
    directory = self.create_tempdir().full_path
    with mock.patch.dict(os.environ, {'WANDB_SILENT': 'true'}):
      logger = wandb_logger.WandbLogger(
          'planestrike-tests', directory, 'runs/ps/seed_0', 'runs/ps',
          {'agent': 'ppo', 'hidden_sizes': '(64, 64)', 'seed': 0},
          resume=False, mode='offline')
      logger.write({'train/strikes': 30.5, 'progress/episodes': 4}, 100)
      logger.write({'train/strikes': 25.25, 'progress/episodes': 9}, 200)
      logger.close()
    (path,) = glob.glob(os.path.join(
        directory, 'wandb', f'offline-run-*-{logger.run_id}',
        f'run-{logger.run_id}.wandb'))
    records = _finished_records(path)
    (run,) = [r.run for r in records if r.WhichOneof('record_type') == 'run']
    self.assertEqual((run.run_id, run.display_name, run.run_group,
                      run.project),
                     (logger.run_id, 'runs/ps/seed_0', 'runs/ps',
                      'planestrike-tests'))
    config = {item.key: json.loads(item.value_json)
              for item in run.config.update}
    self.assertEqual({k: config[k] for k in ('agent', 'hidden_sizes', 'seed')},
                     {'agent': 'ppo', 'hidden_sizes': '(64, 64)', 'seed': 0})
    history = [{item.key or '/'.join(item.nested_key):
                json.loads(item.value_json) for item in r.history.item}
               for r in records if r.WhichOneof('record_type') == 'history']
    self.assertEqual(
        [(h['_step'], h['train/strikes'], h['progress/episodes'])
         for h in history], [(100, 30.5, 4), (200, 25.25, 9)])


if __name__ == '__main__':
  absltest.main()
