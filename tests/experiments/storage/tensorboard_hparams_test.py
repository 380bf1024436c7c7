"""Tests for experiments/storage/tensorboard_hparams.py and the HParams of
loggers.TensorBoardLogger, read back by TensorBoard's own HParams plugin."""

import os

from absl.testing import absltest
from tensorboard import context
from tensorboard.backend.event_processing import data_provider
from tensorboard.backend.event_processing import event_accumulator
from tensorboard.backend.event_processing import plugin_event_multiplexer
from tensorboard.plugins import base_plugin
from tensorboard.plugins.hparams import api_pb2
from tensorboard.plugins.hparams import backend_context
from tensorboard.plugins.hparams import get_experiment
from tensorboard.plugins.hparams import list_session_groups
from tensorboard.plugins.hparams import plugin_data_pb2

from experiments.storage import loggers
from experiments.storage import tensorboard_hparams

SETTINGS = {'agent': 'ppo', 'env': 'plane_strike', 'seed': 3,
            'learning_rate': 3e-4, 'normalize_advantages': True,
            'max_grad_norm': 'None', 'hidden_sizes': '(128, 64)'}


def _session_starts(logdir):
  """The session-start contents in `logdir`'s event files, as TensorBoard
  reads each file."""
  starts = []
  for path in tensorboard_hparams.event_files(logdir):
    accumulator = event_accumulator.EventAccumulator(path)
    accumulator.Reload()
    try:
      content = accumulator.PluginTagToContent('hparams').get(
          tensorboard_hparams.SESSION_START_TAG)
    except KeyError:  # No hparams summary in this file.
      content = None
    if content is not None:
      starts.append(plugin_data_pb2.HParamsPluginData.FromString(
          content).session_start_info)
  return starts


def _values(start_info):
  return {name: getattr(value, value.WhichOneof('kind'))
          for name, value in start_info.hparams.items()}


def _hparams_tab(logdir):
  """What TensorBoard's HParams tab shows for `logdir`: the experiment
  (settings and metrics) and the session groups."""
  multiplexer = plugin_event_multiplexer.EventMultiplexer()
  multiplexer.AddRunsFromDirectory(logdir)
  multiplexer.Reload()
  backend = backend_context.Context(base_plugin.TBContext(
      logdir=logdir, multiplexer=multiplexer,
      data_provider=data_provider.MultiplexerDataProvider(multiplexer,
                                                          logdir)))
  request = context.RequestContext()
  experiment = get_experiment.Handler(
      request, backend, '',
      api_pb2.GetExperimentRequest(include_metrics=True)).run()
  groups = list_session_groups.Handler(
      request, backend, '', api_pb2.ListSessionGroupsRequest(
          start_index=0, slice_size=100,
          aggregation_type=api_pb2.AGGREGATION_AVG,
          allowed_statuses=[api_pb2.STATUS_UNKNOWN])).run()
  return experiment, groups


class SessionStartTest(absltest.TestCase):

  def test_holds_every_setting_with_its_type(self):
    summary = tensorboard_hparams.session_start(SETTINGS)
    (value,) = summary.value
    self.assertEqual(value.tag, tensorboard_hparams.SESSION_START_TAG)
    data = plugin_data_pb2.HParamsPluginData.FromString(
        value.metadata.plugin_data.content)
    self.assertEqual(_values(data.session_start_info),
                     {**SETTINGS, 'seed': 3.0})
    self.assertEqual(data.session_start_info.hparams['seed'].WhichOneof(
        'kind'), 'number_value')

  def test_refuses_values_the_tab_cannot_show(self):
    for value in (None, (64, 64), {'a': 1}):
      with self.subTest(value):
        with self.assertRaisesRegex(TypeError, 'setting x='):
          tensorboard_hparams.session_start({'x': value})

  def test_recorded_reads_only_event_files_and_survives_torn_ones(self):
    logdir = self.create_tempdir().full_path
    self.assertFalse(tensorboard_hparams.recorded(logdir))
    with open(os.path.join(logdir, 'events.out.tfevents.1.host'), 'wb') as f:
      f.write(b'\x10\x00\x00')  # A torn first record.
    self.assertFalse(tensorboard_hparams.recorded(logdir))
    loggers.TensorBoardLogger(logdir, resume_step=0)  # No settings.
    self.assertFalse(tensorboard_hparams.recorded(logdir))
    loggers.TensorBoardLogger(logdir, resume_step=0, hparams=SETTINGS)
    self.assertTrue(tensorboard_hparams.recorded(logdir))


class TensorBoardLoggerHParamsTest(absltest.TestCase):

  def test_resumed_sessions_do_not_record_them_again(self):
    logdir = self.create_tempdir().full_path
    first = loggers.TensorBoardLogger(logdir, hparams=SETTINGS)
    first.write({'eval/strikes': 30.0}, 10)
    resumed = loggers.TensorBoardLogger(
        logdir, resume_step=10, hparams={**SETTINGS, 'seed': 4})
    resumed.write({'eval/strikes': 20.0}, 20)
    self.assertLen(tensorboard_hparams.event_files(logdir), 2)
    (start,) = _session_starts(logdir)  # The first session's only.
    self.assertEqual(_values(start)['seed'], 3.0)

  def test_a_resumed_run_without_them_records_them(self):
    logdir = self.create_tempdir().full_path
    loggers.TensorBoardLogger(logdir).write({'x': 1.0}, 1)  # Older version.
    loggers.TensorBoardLogger(logdir, resume_step=1, hparams=SETTINGS)
    (start,) = _session_starts(logdir)
    self.assertEqual(_values(start)['agent'], 'ppo')

  def test_a_fresh_start_records_them_anew(self):
    logdir = self.create_tempdir().full_path
    loggers.TensorBoardLogger(logdir, hparams={**SETTINGS, 'seed': 9})
    loggers.TensorBoardLogger(logdir, hparams=SETTINGS)
    (start,) = _session_starts(logdir)
    self.assertEqual(_values(start)['seed'], 3.0)

  def test_the_hparams_tab_compares_seeds_and_games_across_resumes(self):
    root = self.create_tempdir().full_path
    runs = {'ps/seed_3': ({**SETTINGS, 'seed': 3}, 'eval/strikes', 20.0),
            'ps/seed_4': ({**SETTINGS, 'seed': 4}, 'eval/strikes', 25.0),
            'catch/seed_3': ({**SETTINGS, 'env': 'catch', 'seed': 3,
                              'clip_epsilon': 0.1},
                             'eval/episode_return', 0.5)}
    for name, (settings, tag, last) in runs.items():
      logdir = os.path.join(root, name)
      logger = loggers.TensorBoardLogger(logdir, hparams=settings)
      logger.write({tag: last + 10, 'train/entropy': 1.0}, 10)
      logger.write({tag: last + 5}, 20)  # Purged by the resume.
      resumed = loggers.TensorBoardLogger(logdir, resume_step=10,
                                          hparams=settings)
      resumed.write({tag: last}, 30)
    experiment, groups = _hparams_tab(root)
    infos = {info.name: info for info in experiment.hparam_infos}
    # Every run's settings (catch's clip_epsilon too), not one run's.
    self.assertContainsSubset(set(SETTINGS) | {'clip_epsilon'}, infos)
    self.assertCountEqual([v.string_value for v in
                           infos['env'].domain_discrete.values],
                          ['plane_strike', 'catch'])
    self.assertContainsSubset(
        {'eval/strikes', 'eval/episode_return', 'train/entropy'},
        {info.name.tag for info in experiment.metric_infos})
    sessions = {}
    for group in groups.session_groups:
      (session,) = group.sessions  # One session per run, resumed or not.
      sessions[session.name] = (
          _values(group),
          {m.name.tag: m.value for m in session.metric_values})
    self.assertCountEqual(sessions, runs)
    for name, (settings, tag, last) in runs.items():
      values, metrics = sessions[name]
      self.assertEqual(values['seed'], settings['seed'])
      self.assertEqual(values['env'], settings['env'])
      self.assertEqual(metrics[tag], last)  # The last value, after resume.


if __name__ == '__main__':
  absltest.main()
