"""Validation of agent config dataclasses, one call per kind of constraint.

Every agent config checks its fields in `__post_init__`, so that a bad value
fails when the config is made (from flags, a sweep or code), not deep inside
a jitted update. Each check reads the named fields of the config and raises
`ValueError` naming the config and field, the bad value and what is allowed:

    config_checks.check_unit_interval(self, 'discount', 'td_lambda')
    # ValueError: A2CConfig.td_lambda must be in [0, 1]; got 1.5.
"""

import dataclasses
import math
import numbers
from typing import Any, Callable, Collection


def _holds(predicate: Callable[[Any], bool], value: Any) -> bool:
  """`predicate(value)`, False where `value` cannot be compared (None, a
  string...), so that those fail with the same ValueError."""
  try:
    return bool(predicate(value))
  except TypeError:
    return False


def _fail(config: Any, name: str, allowed: str, value: Any) -> None:
  if isinstance(value, float) and not math.isfinite(value):
    allowed = f'finite and {allowed}'  # NaN fails every comparison.
  raise ValueError(f'{type(config).__name__}.{name} must be {allowed}; got '
                   f'{value!r}.')


def check_positive(config: Any, *names: str,
                   allow_none: bool = False) -> None:
  """Each field of `names` must be > 0 (or None, if `allow_none`)."""
  for name in names:
    value = getattr(config, name)
    if allow_none and value is None:
      continue
    if not _holds(lambda v: v > 0, value):  # Also refuses NaN.
      _fail(config, name, '> 0 or None' if allow_none else '> 0', value)


def check_non_negative(config: Any, *names: str) -> None:
  """Each field of `names` must be a number >= 0."""
  for name in names:
    value = getattr(config, name)
    if not _holds(lambda v: v >= 0, value):
      _fail(config, name, '>= 0', value)


def check_unit_interval(config: Any, *names: str) -> None:
  """Each field of `names` must be a number in [0, 1]."""
  for name in names:
    value = getattr(config, name)
    if not _holds(lambda v: 0.0 <= v <= 1.0, value):
      _fail(config, name, 'in [0, 1]', value)


def check_positive_integer(config: Any, *names: str) -> None:
  """Each field of `names` must be an integer >= 1 (bools are refused)."""
  for name in names:
    value = getattr(config, name)
    if (isinstance(value, bool) or not isinstance(value, numbers.Integral) or
        value < 1):
      _fail(config, name, 'an integer >= 1', value)


def check_one_of(config: Any, name: str, allowed: Collection[Any]) -> None:
  """Field `name` must be one of `allowed`."""
  value = getattr(config, name)
  if not _holds(lambda v: v in allowed, value):  # A list is unhashable.
    _fail(config, name, f'one of {tuple(allowed)}', value)


def check_replay_sizes(config: Any) -> None:
  """`min_replay_size` must be <= `replay_capacity`, or SGD never starts
  (the replay agents: DQN, SAC, TD3)."""
  if config.min_replay_size > config.replay_capacity:
    raise ValueError(
        f'{type(config).__name__}.min_replay_size ({config.min_replay_size}) '
        f'must be <= replay_capacity ({config.replay_capacity}), or SGD '
        f'never starts.')


def check_finite_floats(config: Any) -> None:
  """Every float field of a config dataclass must be finite: NaN or inf
  settings (e.g. `--config.learning_rate=nan`) would train a NaN model."""
  for field in dataclasses.fields(config):
    value = getattr(config, field.name)
    if isinstance(value, float) and not math.isfinite(value):
      _fail(config, field.name, 'a finite number', value)
