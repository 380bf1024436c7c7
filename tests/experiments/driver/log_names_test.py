"""Tests for experiments/driver/log_names.py."""

from unittest import mock

from absl.testing import absltest

from environments import catch
from environments import registry as env_registry
from experiments.driver import log_names

LOOP_ROW = {'steps_per_second': 1000.0, 'episodes_per_second': 40.0,
            'episode_return': 8.0, 'episode_length': 25.0,
            'policy_loss': -0.5, 'entropy': 2.0}
GREEDY = {'mean_return': 8.0, 'mean_episode_length': 21.5}


def _names(env: str) -> log_names.LogNames:
  return log_names.LogNames(env_registry.resolve(env))


class LogNamesTest(absltest.TestCase):

  def test_plane_strike_logs_strikes_not_its_constant_return(self):
    row = _names('plane_strike').row(LOOP_ROW, GREEDY, 12, 3,
                                                 9.5)
    self.assertEqual(row, {
        'progress/episodes': 12, 'progress/updates': 3,
        'perf/steps_per_second': 1000.0, 'perf/episodes_per_second': 40.0,
        'train/strikes': 25.0, 'train/policy_loss': -0.5,
        'train/entropy': 2.0, 'eval/strikes': 21.5,
        'perf/wall_seconds': 9.5})

  def test_catch_and_cartpole_log_the_return_only(self):
    for env in ('catch', 'cartpole'):
      with self.subTest(env):
        row = _names(env).row(LOOP_ROW, GREEDY, 12, 3, 9.5)
        self.assertEqual(row['train/episode_return'], 8.0)
        self.assertEqual(row['eval/episode_return'], 8.0)
        self.assertNotIn('train/episode_length', row)
        self.assertNotIn('eval/episode_length', row)

  def test_suite_ids_keep_both_statistics(self):
    row = _names('bsuite:catch/0').row(LOOP_ROW, GREEDY, 1, 1,
                                                   1.0)
    self.assertEqual(
        {k: row[k] for k in ('train/episode_return', 'train/episode_length',
                             'eval/episode_return', 'eval/episode_length')},
        {'train/episode_return': 8.0, 'train/episode_length': 25.0,
         'eval/episode_return': 8.0, 'eval/episode_length': 21.5})

  def test_rows_without_episodes_or_evaluation(self):
    row = _names('catch').row({'steps_per_second': 5.0,
                                          'episodes_per_second': 0.0,
                                          'loss': 1.0}, None, 0, 1, 2.0)
    self.assertEqual(sorted(row), ['perf/episodes_per_second',
                                   'perf/steps_per_second',
                                   'perf/wall_seconds', 'progress/episodes',
                                   'progress/updates', 'train/loss'])

  def test_names_come_from_the_registry_entry(self):
    entry = env_registry.EnvironmentEntry(
        'falling_ball', make_core=catch.Catch, return_statistic='caught',
        length_statistic=None)
    with mock.patch.dict(env_registry._ENTRIES.by_name):  # pylint: disable=protected-access
      env_registry.register(entry)
      names = _names('falling_ball')
      row = names.row(LOOP_ROW, GREEDY, 1, 1, 1.0)
      self.assertEqual(row['train/caught'], 8.0)
      self.assertEqual(row['eval/caught'], 8.0)
      self.assertEqual(names.eval_tag('mean_episode_length'), None)
      self.assertEqual(names.eval_tag('mean_return'), 'eval/caught')


if __name__ == '__main__':
  absltest.main()
