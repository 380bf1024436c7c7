"""Tests for experiments/comparison/settings_summary.py."""

import dataclasses

from agents import registry as agent_registry
from experiments.comparison import settings_summary
from experiments.comparison import tables


def _ppo(**changes):
  config = dataclasses.asdict(agent_registry.make_config('ppo'))
  config.update(changes)
  return config


def test_defaults_are_the_registered_config_as_json():
  defaults = settings_summary.defaults('ppo')
  assert defaults == dataclasses.asdict(agent_registry.make_config('ppo'))
  assert settings_summary.defaults('no_such_agent') is None


def test_differences_name_changed_and_unknown_keys():
  default = {'learning_rate': 0.001, 'discount': 0.99, 'sizes': [1, 2]}
  config = {'learning_rate': 0.001, 'discount': 0.5, 'sizes': [1, 2],
            'extra': True}
  assert settings_summary.differences(config, default) == {
      'discount': {'value': 0.5, 'default': 0.99},
      'extra': {'value': True, 'default': None}}
  assert settings_summary.differences(default, default) == {}


def _run_settings():
  return settings_summary.with_defaults({
      'catch': {'ppo': {'preset': 'ppo_catch', 'network': 'mlp_actor_critic',
                        'hidden_sizes': None, 'num_envs': 4,
                        'agent_config': _ppo(num_epochs=10)}},
      'plane_strike': {'ppo': {'preset': 'ppo_plane_strike',
                               'network': 'mlp_actor_critic',
                               'hidden_sizes': [128, 64], 'num_envs': 64,
                               'agent_config': _ppo(discount=0.5,
                                                    num_epochs=10)},
                       'old': {'agent_config': None}}})


def test_with_defaults():
  settings = _run_settings()
  catch = settings['catch']['ppo']
  assert catch['defaults'] == settings_summary.defaults('ppo')
  assert catch['differs_from_defaults'] == {
      'num_epochs': {'value': 10, 'default': 4}}
  assert settings['plane_strike']['ppo']['differs_from_defaults'] == {
      'discount': {'value': 0.5, 'default': 0.99},
      'num_epochs': {'value': 10, 'default': 4}}
  old = settings['plane_strike']['old']
  assert old['defaults'] is None and old['differs_from_defaults'] is None


def test_agent_table_marks_values_that_differ():
  table = settings_summary.agent_table('ppo', ['catch', 'plane_strike',
                                               'cartpole'], _run_settings())
  assert table.name == 'settings_ppo'
  assert [c.title for c in table.columns] == [
      'Setting', 'Default', 'Catch', 'Plane Strike',
      'Differs from default on']
  rows = {r['setting']: r for r in table.rows}
  assert list(rows)[:4] == ['Preset', 'Network', 'Hidden sizes',
                            'Environments per seed']
  assert rows['Hidden sizes']['catch'] == 'network default'
  assert rows['Hidden sizes']['plane_strike'] == '128x64'
  assert rows['Environments per seed']['plane_strike'] == '64'
  assert rows['discount'] == {
      'setting': 'discount', 'default': '0.99', 'catch': '0.99',
      'plane_strike': tables.Marked('0.5'),
      'differs_from_default_on': 'Plane Strike'}
  assert rows['num_epochs']['differs_from_default_on'] == (
      'Catch, Plane Strike')
  assert rows['learning_rate_decay_updates']['default'] == 'None'
  assert rows['learning_rate']['differs_from_default_on'] == ''
  assert settings_summary.agent_table('dqn', ['catch'], _run_settings()) is None


def test_difference_lines():
  lines = settings_summary.difference_lines(
      'ppo', ['catch', 'plane_strike'], _run_settings())
  assert lines == [
      '- Catch, preset ppo_catch: `num_epochs` = 10 (default 4)',
      '- Plane Strike, preset ppo_plane_strike: `discount` = 0.5 (default '
      '0.99), `num_epochs` = 10 (default 4)']
  unchanged = settings_summary.with_defaults(
      {'catch': {'ppo': {'preset': None, 'agent_config': _ppo()}}})
  assert settings_summary.difference_lines('ppo', ['catch'], unchanged) == [
      "- Catch, preset none: none (the agent's defaults)"]
  assert settings_summary.difference_lines('old', ['plane_strike'],
                                           _run_settings()) == [
      '- Plane Strike, preset none: not known: the agent config was not '
      'recorded']


def test_value_text():
  assert [settings_summary.value_text(v) for v in
          (None, True, 0.00025, 'adam', [128, 64], [], 3)] == [
              'None', 'True', '0.00025', 'adam', '128x64', '()', '3']
