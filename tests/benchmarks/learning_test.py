"""Tests for benchmarks/learning.py: its grid, targets and output.

Whether each agent meets its target is what the benchmark measures
(`python -m benchmarks.learning`, docs/benchmarks/learning.md), not a
test."""

import json

from absl import app
from absl.testing import absltest

from agents import registry
from benchmarks import learning
from experiments.comparison import run_groups
from experiments.presets import registry as preset_registry
from experiments.setup import build


class SettingTest(absltest.TestCase):

  def test_targets(self):
    catch = learning.find('catch', 'dqn')
    self.assertTrue(catch.met({'eval_mean_return': 0.9}))
    self.assertFalse(catch.met({'eval_mean_return': 0.88}))
    strikes = learning.find('plane_strike', 'reinforce')
    self.assertTrue(strikes.met({'eval_mean_episode_length': 12.9}))
    self.assertFalse(strikes.met({'eval_mean_episode_length': 13.1}))
    self.assertIn('<= 13', strikes.target)

  def test_grid_covers_every_agent_that_plays_the_game(self):
    # Every agent of the action space, less those that cannot play it
    # (AlphaZero's search would see the random draws MinAtar's state
    # holds; Plane Strike it searches over planes drawn from the board).
    for env in ('catch', 'plane_strike', 'gymnax:Pendulum-v1'):
      agents = {s.agent for s in learning.GRID if s.env == env}
      self.assertEqual(agents, set(build.agents_for([env])), env)
    self.assertIn('alphazero', build.agents_for(['catch']))
    self.assertIn('alphazero', build.agents_for(['plane_strike']))
    self.assertNotIn('alphazero',
                     build.agents_for(['gymnax:Asterix-MinAtar']))

  def test_settings_of_other_presets_are_named_by_their_preset(self):
    keys = [setting.key for setting in learning.GRID]
    self.assertLen(set(keys), len(keys))
    self.assertIn('catch/ppo', keys)
    self.assertIn('catch/ppo_catch_muzero_budget', keys)
    self.assertEqual(learning.find('catch', 'ppo').preset.name, 'ppo_catch')
    # MuZero beside PPO: the same budget.
    for muzero, ppo in (
        ('catch/muzero', 'catch/ppo_catch_muzero_budget'),
        ('gymnax:Breakout-MinAtar/muzero',
         'gymnax:Breakout-MinAtar/ppo_breakout_minatar_muzero_budget')):
      budgets = {s.key: s.preset.num_steps for s in learning.GRID}
      self.assertEqual(budgets[muzero], budgets[ppo])

  def test_settings_never_share_a_run_directory(self):
    directories = set()
    for setting in learning.GRID:
      root = learning.setting_root(setting, '/root')
      for group in run_groups.groups_for(learning.config(setting), 1, root):
        self.assertNotIn(group.workdir, directories, setting.key)
        directories.add(group.workdir)

  def test_ppo_at_muzero_budgets_is_ppo_s_preset_but_the_budget(self):
    for copy, source in (
        ('ppo_catch_muzero_budget', 'ppo_catch'),
        ('ppo_breakout_minatar_muzero_budget', 'ppo_breakout_minatar')):
      copied, original = (preset_registry.get(copy),
                          preset_registry.get(source))
      self.assertEqual((copied.config, copied.network, copied.hidden_sizes),
                       (original.config, original.network,
                        original.hidden_sizes), copy)

  def test_only_names_the_settings_it_does_not_know(self):
    learning.check_only({'catch/ppo', 'catch/ppo_catch_muzero_budget'})
    with self.assertRaisesRegex(app.UsageError,
                                r"--only: no setting catch/pp; the grid's: "
                                r'catch/reinforce, '):
      learning.check_only({'catch/ppo', 'catch/pp'})

  def test_every_setting_has_a_valid_preset(self):
    for setting in learning.GRID:
      registry.make_config(setting.agent, **setting.preset.config)
      self.assertEqual(learning.config(setting).preset,
                       setting.preset.name)




class KeptRowsTest(absltest.TestCase):
  """A launch running some rows keeps the others its --output holds."""

  def _write(self, data) -> str:
    path = self.create_tempfile(content=json.dumps(data)).full_path
    return path

  def test_rows_of_other_launches_are_kept_in_place(self):
    path = self._write({'seeds': 5, 'results': [
        {'env': 'a', 'value': 1, 'measured': {}},
        {'env': 'b', 'value': 2, 'measured': {}}]})
    kept = learning.rows_kept(path, 5)
    rows = learning.merged(kept, [{'env': 'c', 'value': 3},
                                  {'env': 'a', 'value': 4}],
                           lambda row: row['env'])
    self.assertEqual([(r['env'], r['value']) for r in rows],
                     [('a', 4), ('b', 2), ('c', 3)])
    self.assertEqual(learning.rows_kept(None, 5), [])
    self.assertEqual(learning.rows_kept(path + '.absent', 5), [])

  def test_a_file_it_cannot_extend_is_refused_before_any_run(self):
    path = self._write({'seeds': 3, 'results': [{'measured': {}}]})
    with self.assertRaisesRegex(ValueError, '3-seed rows: run with '
                                '--seeds=3'):
      learning.rows_kept(path, 5)
    path = self._write({'seeds': 5, 'results': [{'env': 'a'}],
                        'measured': {}})
    with self.assertRaisesRegex(ValueError, 'do not each record'):
      learning.rows_kept(path, 5)
    path = self.create_tempfile(content='not json').full_path
    with self.assertRaisesRegex(ValueError, 'not a benchmark JSON'):
      learning.rows_kept(path, 5)


if __name__ == '__main__':
  absltest.main()
