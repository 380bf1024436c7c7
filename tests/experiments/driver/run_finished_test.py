"""Tests for experiments/driver/run.py at the ends of a run: a finished
workdir is left alone, results say what produced them, and an interrupted
run says where its checkpoint is."""

import os
import signal
from unittest import mock

from absl.testing import absltest
import pytest

from agents import registry as agent_registry
from experiments.driver import run as driver
from experiments.driver import stop_signals
from experiments.setup import config as config_lib
from experiments.setup import provenance


def _config(**overrides):
  settings = dict(
      agent='reinforce', env='catch',
      agent_config=agent_registry.make_config('reinforce', batch_size=4),
      hidden_sizes=(16,), num_episodes=16, eval_episodes=5,
      periodic_eval_episodes=5, updates_per_chunk=2, export_tflite=False)
  settings.update(overrides)
  return config_lib.ExperimentConfig(**settings)


def _checkpoints(workdir):
  return sorted(os.listdir(os.path.join(workdir, 'checkpoints')))


class FinishedWorkdirTest(absltest.TestCase):

  @pytest.mark.slow  # Over 5 s cold (docs/testing.md).
  def test_a_run_through_its_sessions(self):
    workdir = self.create_tempdir().full_path
    # Session 1 trains, then is interrupted while evaluating.
    with mock.patch.object(driver.results, 'finish',
                           side_effect=KeyboardInterrupt):
      with self.assertRaises(KeyboardInterrupt):
        driver.run_experiment(_config(), workdir, progress=False)
    # Session 2 evaluates (without compiling the training program again),
    # and records both sessions.
    first = driver.run_experiment(_config(), workdir, progress=False)
    record = first['provenance']
    self.assertEqual([s['trained'] for s in record['sessions']],
                     [True, False])
    self.assertGreater(first['compile_seconds'], 0.0)  # Session 1's.
    # Session 1's training is in the run's time account, carried by its
    # checkpoint, though session 2 trained nothing.
    self.assertGreater(first['time_account']['training'], 0.0)
    self.assertGreater(first['time_account']['compile'], 0.0)
    self.assertEqual(record['differing_between_sessions'], [])
    self.assertEqual(record['sessions'][0]['packages'],
                     provenance.package_versions())
    self.assertEqual(record['num_devices'], 1)
    self.assertAlmostEqual(record['device_seconds'], first['wall_seconds'])
    # A finished workdir is left alone: its saved result comes back, and
    # config.json keeps the settings it ran with.
    before = _checkpoints(workdir)
    with open(os.path.join(workdir, 'config.json')) as f:
      saved_config = f.read()
    with mock.patch.object(driver.results, 'finish') as finish:
      again = driver.run_experiment(_config(), workdir, progress=False)
    finish.assert_not_called()  # Neither evaluated nor exported again.
    self.assertEqual(again, first)
    self.assertEqual(_checkpoints(workdir), before)
    with mock.patch.object(driver.results, 'finish') as finish:
      driver.run_experiment(_config(eval_episodes=9), workdir,
                            progress=False)
    finish.assert_not_called()
    with open(os.path.join(workdir, 'config.json')) as f:
      self.assertEqual(f.read(), saved_config)
    # Unless asked to evaluate again, or given a larger budget.
    with mock.patch.object(driver.results, 'finish',
                           return_value={'evaluated': True}) as finish:
      self.assertEqual(
          driver.run_experiment(_config(), workdir, progress=False,
                                reevaluate=True), {'evaluated': True})
    longer = driver.run_experiment(_config(num_episodes=24), workdir,
                                   progress=False)
    self.assertEqual(longer['episodes'], 24)
    # The sessions that trained it (1 and this one); session 2 only
    # evaluated, and its evaluation is replaced by this one's.
    self.assertLen(longer['provenance']['sessions'], 2)


class InterruptedTest(absltest.TestCase):

  def test_message_names_the_checkpointed_step(self):
    workdir = self.create_tempdir().full_path
    real_enter = stop_signals.StopSignals.__enter__

    def requested(stop):
      real_enter(stop)
      stop.requested = signal.SIGINT  # As if Ctrl-C came at once.
      return stop

    with mock.patch.object(stop_signals.StopSignals, '__enter__', requested):
      with self.assertRaises(stop_signals.Interrupted) as raised:
        driver.run_experiment(_config(num_episodes=400), workdir,
                              progress=False)
    self.assertRegex(str(raised.exception),
                     r'checkpoint saved at environment step \d+.*same '
                     r'command again to resume')


if __name__ == '__main__':
  absltest.main()
