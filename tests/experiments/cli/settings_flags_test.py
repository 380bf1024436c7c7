"""experiments/cli/settings_flags.py: each setting's flag, made from its
declaration."""

import dataclasses

from absl import flags
import pytest

from experiments.cli import settings_flags
from experiments.comparison import study_settings
from experiments.setup import settings
from experiments.setup import train_settings
from tests import commands

_TRAIN = train_settings.TrainSettings


@pytest.fixture(name='fresh_flags')
def fresh_flags_fixture():
  """An empty flag registry for the test."""
  return flags.FlagValues()


def test_every_setting_with_a_flag_gets_its_kind_default_and_bounds(
    fresh_flags):
  settings_flags.define(_TRAIN, flag_values=fresh_flags, max_check_steps=1,
                        tolerance=0.5)
  declared = {f.name: f for f in dataclasses.fields(
      train_settings.TrainSettings)}
  namespaces = {name for name, f in declared.items()
                if not f.metadata['flag']}
  assert namespaces == {'config', 'env_config', 'imports'}
  for name, field in declared.items():
    if name in namespaces:
      assert name not in fresh_flags
      continue
    flag = fresh_flags[name]
    default = field.default
    assert (tuple(flag.default) if isinstance(flag.default, list)
            else flag.default) == default, name
    assert field.metadata['help'] and flag.help, name
  assert fresh_flags['loop'].parser.enum_values == list(
      train_settings.TrainSettings.__dataclass_fields__['loop']
      .metadata['choices'])
  assert fresh_flags['seed'].parser.lower_bound == 0
  assert fresh_flags['actor_thread'].boolean
  # The export check's facts reach the help of the setting that names them.
  assert 'at most 1 observations' in fresh_flags['export_check_episodes'].help


def test_every_number_refuses_nan_and_widths_are_a_list(fresh_flags):
  settings_flags.define(_TRAIN, flag_values=fresh_flags, max_check_steps=1,
                        tolerance=0.5)
  numbers = [f.name for f in dataclasses.fields(train_settings.TrainSettings)
             if settings.setting_type(_TRAIN, f.name)[0] is float]
  assert 'learning_rate' in numbers and 'eval_epsilon' in numbers
  for name in numbers:
    with pytest.raises(flags.IllegalFlagValueError, match='finite'):
      fresh_flags[name].value = float('nan')
      fresh_flags.validate_all_flags()
    fresh_flags[name].value = fresh_flags[name].default
  fresh_flags(['train', '--hidden_sizes=64,32'])
  assert fresh_flags.hidden_sizes == ['64', '32']


def test_help_naming_facts_needs_them(fresh_flags):
  with pytest.raises(ValueError, match='max_check_steps, tolerance: pass '
                     'max_check_steps='):
    settings_flags.define(_TRAIN, 'export_check_episodes',
                          flag_values=fresh_flags)


def test_a_namespace_is_not_a_flag_of_its_own(fresh_flags):
  with pytest.raises(ValueError, match='--config is a namespace'):
    settings_flags.define(_TRAIN, 'config', flag_values=fresh_flags)
  settings_flags.define(_TRAIN, 'eval_policy', flag_values=fresh_flags)
  assert list(fresh_flags) == ['eval_policy']


def test_a_number_setting_refuses_nan_before_any_work():
  result = commands.run('experiments.train', '--learning_rate=nan',
                        '--noexport_tflite')
  assert result.returncode == 1
  assert '--learning_rate must be a finite number' in result.stderr


@pytest.mark.parametrize('declared', [study_settings.CompareSettings,
                                      study_settings.SweepSettings])
def test_compare_and_sweep_flags_come_from_their_declarations(
    fresh_flags, declared):
  settings_flags.define(declared, flag_values=fresh_flags)
  for name, field in settings.fields(declared).items():
    if not field.metadata['flag']:
      assert name not in fresh_flags
      continue
    flag = fresh_flags[name]
    assert (tuple(flag.default) if isinstance(flag.default, list)
            else flag.default) == settings.default(field), name
  # Shared with train: one declaration.
  assert fresh_flags['eval_policy'].help.endswith(
      _TRAIN.__dataclass_fields__['eval_policy'].metadata['help'])
  assert fresh_flags['seeds'].parser.lower_bound == 1
  assert fresh_flags['launcher'].parser.enum_values == ['local', 'ray']
