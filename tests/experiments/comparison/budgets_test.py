"""Tests for experiments/comparison/budgets.py."""

import dataclasses

from absl.testing import absltest

from experiments.comparison import budgets
from experiments.comparison import pair_settings
from experiments.presets import registry as preset_registry

_ENVS = ('catch', 'plane_strike')


class ParseTest(absltest.TestCase):

  def test_one_count_or_one_per_environment(self):
    self.assertEqual(budgets.parse(None, _ENVS), {})
    self.assertEqual(budgets.parse(5000, _ENVS),
                     {'catch': 5000, 'plane_strike': 5000})
    self.assertEqual(budgets.parse('400_000', _ENVS),
                     {'catch': 400_000, 'plane_strike': 400_000})
    self.assertEqual(budgets.parse('plane_strike:2000000,catch:20000', _ENVS),
                     {'plane_strike': 2_000_000, 'catch': 20_000})
    self.assertEqual(budgets.parse({'catch': 7}, _ENVS), {'catch': 7})
    self.assertEqual(budgets.parse('bsuite:catch/0:900', ('bsuite:catch/0',)),
                     {'bsuite:catch/0': 900})

  def test_bad_text_names_the_flag_and_the_fix(self):
    for value, message in (
        ('lots', r"--num_steps: 'lots' is not <env>:<steps>"),
        ('chess:100', r"--num_steps: 'chess' is not one of --envs "
                      r'\(catch,plane_strike\)'),
        ('catch:0', r'--num_steps: catch needs a step count >= 1'),
        ({'catch': -5}, r'catch needs a step count >= 1'),
        (True, r'a count or env:count'),
        ('catch:20000,catch:30000', r"--num_steps: 'catch' is given twice "
                                    r'\(20000 and 30000\)')):
      with self.assertRaisesRegex(ValueError, message):
        budgets.parse(value, _ENVS)


class ResolveTest(absltest.TestCase):

  def test_default_is_the_largest_tuned_budget_on_each_environment(self):
    dqn = preset_registry.get('dqn_plane_strike').num_steps
    ppo = preset_registry.get('ppo_plane_strike').num_steps
    resolved = budgets.resolve(None, ('ppo', 'dqn'), _ENVS, ())
    self.assertEqual(resolved['plane_strike'], max(dqn, ppo))
    self.assertEqual(resolved['catch'], max(
        preset_registry.get(f'{a}_catch').num_steps for a in ('ppo', 'dqn')))
    # Given environments keep theirs; no preset: the default.
    self.assertEqual(budgets.resolve('catch:123', ('ppo',), _ENVS, ())
                     ['catch'], 123)
    self.assertEqual(budgets.resolve(None, ('ppo',), _ENVS, ('none',)),
                     {env: budgets.DEFAULT_STEPS for env in _ENVS})


class WarningsTest(absltest.TestCase):

  def _config(self, agent, env, num_steps, **config):
    base = pair_settings.experiment_config(
        agent, env, num_steps=num_steps, eval_points=2, eval_episodes=2,
        periodic_eval_episodes=2, checkpoint_every_seconds=60, imports=(),
        presets=(), common=config, per_agent={})
    return base

  def test_short_budgets_and_unfinished_schedules_are_named(self):
    short = budgets.warnings([self._config('dqn', 'plane_strike', 50_000)])
    self.assertLen(short, 2)
    self.assertRegex(short[0], r'DQN on plane_strike trains 50,000 steps, '
                     r'below the [\d,]+ its preset dqn_plane_strike')
    self.assertRegex(short[1], r'ε decay \(epsilon_decay_steps\) ends at '
                     r'step 500,000, after the budget of 50,000 steps; the '
                     r'run stops 10.0% of the way')
    tuned = preset_registry.get('dqn_plane_strike').num_steps
    self.assertEqual(budgets.warnings(
        [self._config('dqn', 'plane_strike', tuned)]), [])
    # PPO's learning-rate annealing is fitted to any budget.
    self.assertEqual(budgets.warnings(
        [self._config('ppo', 'gymnax:CartPole-v1', 10_000)])[1:], [])

  def test_once_per_pair(self):
    config = self._config('dqn', 'plane_strike', 50_000)
    other_seed = dataclasses.replace(config, seed=3)
    self.assertLen(budgets.warnings([config, other_seed]), 2)


if __name__ == '__main__':
  absltest.main()
