"""Tests for agents/config_checks.py: what passes and what refusals say."""

import dataclasses
import math
from typing import Any

from absl.testing import absltest
from absl.testing import parameterized
import numpy as np

from agents import config_checks


@dataclasses.dataclass(frozen=True)
class _Config:
  rate: Any = 0.1
  other_rate: Any = 1.0
  fraction: Any = 0.5
  count: Any = 3
  norm: Any = None
  mode: Any = 'a'


class ConfigChecksTest(parameterized.TestCase):

  def test_valid_values_pass(self):
    config = _Config()
    config_checks.check_positive(config, 'rate', 'other_rate')
    config_checks.check_positive(config, 'norm', allow_none=True)
    config_checks.check_unit_interval(config, 'fraction')
    config_checks.check_unit_interval(_Config(fraction=0), 'fraction')
    config_checks.check_unit_interval(_Config(fraction=1.0), 'fraction')
    config_checks.check_positive_integer(config, 'count')
    config_checks.check_positive_integer(_Config(count=np.int64(2)), 'count')
    config_checks.check_one_of(config, 'mode', ('a', 'b'))

  @parameterized.named_parameters(
      ('zero', dict(other_rate=0.0),
       r'^_Config\.other_rate must be > 0; got 0\.0\.$'),
      ('negative', dict(other_rate=-1), r'other_rate must be > 0; got -1\.'),
      ('nan', dict(other_rate=math.nan),
       r'other_rate must be finite and > 0; got nan\.'),
      ('none', dict(other_rate=None), r'other_rate must be > 0; got None\.'),
      ('string', dict(other_rate='1'), r"other_rate must be > 0; got '1'\."),
  )
  def test_positive_refusals(self, overrides, message):
    with self.assertRaisesRegex(ValueError, message):
      config_checks.check_positive(_Config(**overrides), 'rate',
                                   'other_rate')

  def test_positive_or_none(self):
    with self.assertRaisesRegex(
        ValueError, r'^_Config\.norm must be > 0 or None; got 0\.0\.$'):
      config_checks.check_positive(_Config(norm=0.0), 'norm',
                                   allow_none=True)

  @parameterized.parameters(-0.1, 1.5, math.nan, None)
  def test_unit_interval_refusals(self, value):
    finite = 'finite and ' if value is math.nan else ''
    with self.assertRaisesRegex(
        ValueError,
        rf'^_Config\.fraction must be {finite}in \[0, 1\]; got '
        rf'{value!r}\.$'):
      config_checks.check_unit_interval(_Config(fraction=value), 'fraction')

  @parameterized.parameters(0, -3, 2.5, 2.0, True, '2', None)
  def test_positive_integer_refusals(self, value):
    with self.assertRaisesRegex(
        ValueError,
        rf'^_Config\.count must be an integer >= 1; got {value!r}\.$'):
      config_checks.check_positive_integer(_Config(count=value), 'count')

  def test_one_of_lists_the_allowed_values(self):
    with self.assertRaisesRegex(
        ValueError, r"^_Config\.mode must be one of \('a', 'b'\); got 'c'\.$"):
      config_checks.check_one_of(_Config(mode='c'), 'mode', ['a', 'b'])

  def test_first_bad_field_is_named(self):
    with self.assertRaisesRegex(ValueError, r'^_Config\.rate must'):
      config_checks.check_positive(_Config(rate=0, other_rate=0), 'rate',
                                   'other_rate')


if __name__ == '__main__':
  absltest.main()
