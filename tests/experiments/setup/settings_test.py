"""experiments/setup/settings.py: declarations, and values checked against
them with their flags' messages."""

import dataclasses
import inspect
from typing import Any, Optional, Sequence

import pytest

from experiments.setup import settings

_setting = settings.setting


@dataclasses.dataclass(frozen=True)
class _Base:
  rate: float = _setting(0.5, 'A rate.', lower=0, upper=1)


@dataclasses.dataclass(frozen=True)
class _Declared:
  count: int = _setting(3, 'A count.', lower=1)
  seed: int = _setting(0, 'A seed.', lower=0, upper=2**63 - 1)
  name: Optional[str] = _setting(None, 'A name.', choices=('a', 'b'))
  names: Sequence[str] = _setting(('x',), 'Names.')
  switch: bool = _setting(True, 'A switch.')
  rate: float = settings.same_as(_Base, 'rate')
  given: Any = _setting(None, 'Text or more.', flag_type=str)


@pytest.mark.parametrize('given, message', [
    (dict(count=0), r'--count: must be >= 1; got 0\.'),
    (dict(count=True), r'--count: must be an integer >= 1; got True\.'),
    (dict(count='3'), r'--count: must be an integer >= 1; got \'3\'\.'),
    (dict(seed=2**63), r'--seed: must be between 0 and 2\^63 - 1'),
    (dict(name='c'), r'--name: one of a, b; got \'c\'\.'),
    (dict(name=3), r'--name: a name \(a string\) is needed'),
    (dict(names='xy'), r"--names: a list of names is needed, e\.g\. \['xy'\]"),
    (dict(names=['x', 2]), r'--names: a list of names is needed'),
    (dict(switch='no'), r'--switch: must be True or False'),
    (dict(rate=float('nan')), r'--rate: must be a finite number'),
    (dict(rate=1.5), r'--rate: must be between 0 and 1; got 1\.5\.'),
    (dict(cuont=3), r"Unknown setting\(s\) \['cuont'\]\. Valid: count, seed, "
                    r'name, names, switch, rate, given, and more\.'),
])
def test_a_value_its_flag_would_refuse_is_refused_naming_the_flag(
    given, message):
  with pytest.raises(settings.SettingError, match=message):
    settings.build(_Declared, given, ', and more')


def test_valid_values_build_and_other_forms_pass_to_their_reader():
  built = settings.build(_Declared, dict(count=1, name='a', names=['y'],
                                         given={'catch': 5}))
  assert (built.count, built.name, built.names, built.given) == (
      1, 'a', ['y'], {'catch': 5})


def test_a_shared_setting_keeps_its_one_declaration():
  shared = settings.fields(_Declared)['rate']
  assert shared.default == 0.5
  assert shared.metadata == settings.fields(_Base)['rate'].metadata
  assert settings.bounds(_Declared, 'upper') == {'rate': 1,
                                                 'seed': 2**63 - 1}


def test_the_signature_lists_every_setting_with_its_default():

  def call(workdir, **values):
    del workdir, values

  signature = settings.with_settings(inspect.signature(call), _Declared)
  assert list(signature.parameters) == ['workdir', *settings.names(
      _Declared)]
  assert signature.parameters['names'].default == ('x',)
  assert settings.setting_type(_Declared, 'given') == (str, False)
