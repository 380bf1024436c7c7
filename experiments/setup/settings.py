"""Settings declared once: each setting of a command is a field of a
settings dataclass (`train_settings.TrainSettings`,
`comparison.study_settings.CompareSettings` and `SweepSettings`,
`driver.export_settings.ExportSettings`) holding its default, help and
bounds or choices. The command's flag is made from it
(`cli.settings_flags`), the API's keyword too (`with_settings`), and a value
given either way is checked here against the same declaration, with the
flag's message."""

import collections.abc
import dataclasses
import inspect
import math
import typing
from typing import Any, Dict, Optional, Sequence, Tuple, Type

# The largest value of a setting whose upper bound is 2^63 - 1 (a seed).
_SHOWN_BOUNDS = {2**63 - 1: '2^63 - 1'}


class UsageError(ValueError):
  """Bad input to the Python API (`api.UsageError`): the message names the
  setting (as its command's flag, or the argument) and what is valid.
  Nothing was built or written."""


class SettingError(ValueError):
  """A setting is unknown or out of range; the message names it as its flag
  (`--key`) and says what is valid."""


def setting(default: Any = None, help: Any = '', *,  # pylint: disable=redefined-builtin
            lower: Optional[float] = None, upper: Optional[float] = None,
            choices: Optional[Sequence[str]] = None, flag: bool = True,
            facts: Sequence[str] = (), factory: Optional[Any] = None,
            flag_type: Optional[type] = None, repeated: bool = False) -> Any:
  """A setting's one declaration: default; help (or a function giving it,
  to name what is registered then; `facts`: the `{name}`s in it filled from
  modules this one may not import); bounds or choices; `flag` False for
  the namespaces (`config`, `env_config`, `imports`) their own modules
  define; `flag_type` where the flag parses another type than the keyword
  takes (e.g. a budget's text for what may also be a count or a mapping:
  then the value is checked where it is read); `repeated` for a list flag
  given once per value (`--grid=a:1,2 --grid=b:3`)."""
  metadata = {'help': help, 'lower': lower, 'upper': upper,
              'choices': choices, 'flag': flag, 'facts': tuple(facts),
              'flag_type': flag_type, 'repeated': repeated}
  if factory is not None:
    return dataclasses.field(default_factory=factory, metadata=metadata)
  return dataclasses.field(default=default, metadata=metadata)


def same_as(settings: Type[Any], name: str) -> Any:
  """A field declared as `settings`' `name` (default, help, bounds): a
  setting another command shares, still declared in one place."""
  field = fields(settings)[name]
  return dataclasses.field(default=field.default,
                           default_factory=field.default_factory,
                           metadata=field.metadata)


def fields(settings: Type[Any]) -> Dict[str, dataclasses.Field]:
  """A settings class's declarations, by name, in order."""
  return {f.name: f for f in dataclasses.fields(settings)}


def names(settings: Type[Any]) -> Tuple[str, ...]:
  """The settings' names, in order."""
  return tuple(fields(settings))


def default(field: dataclasses.Field) -> Any:
  return (field.default_factory() if field.default_factory
          is not dataclasses.MISSING else field.default)


def with_settings(signature: inspect.Signature,
                  settings: Type[Any]) -> inspect.Signature:
  """`signature` (of a function taking `**settings`) with every setting as a
  keyword of its own, with its default: what `help()` and notebooks show."""
  return signature.replace(parameters=[
      p for p in signature.parameters.values()
      if p.kind is not p.VAR_KEYWORD] + [
          inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY,
                            default=default(f))
          for f in dataclasses.fields(settings)])


def setting_type(settings: Type[Any], name: str) -> Tuple[Any, bool]:
  """The type a setting's flag parses to, and whether None is allowed."""
  hint = typing.get_type_hints(settings)[name]
  optional = type(None) in typing.get_args(hint)
  flag_type = fields(settings)[name].metadata.get('flag_type')
  if flag_type is not None:
    return flag_type, optional
  if optional:
    hint = next(a for a in typing.get_args(hint) if a is not type(None))
  return hint, optional


def bounds(settings: Type[Any], end: str) -> Dict[str, float]:
  """Each setting's `lower` or `upper` bound, where it declares one."""
  return {f.name: f.metadata[end] for f in dataclasses.fields(settings)
          if f.metadata.get(end) is not None}


def build(settings: Type[Any], given: Dict[str, Any], extra: str = '') -> Any:
  """`settings(**given)`, each value checked as its flag would check it.

  Raises:
    SettingError: an unknown keyword (the valid ones listed, and `extra`,
      the call's own keywords) or a value its flag would refuse.
  """
  unknown = sorted(set(given) - set(names(settings)))
  if unknown:
    raise SettingError(f'Unknown setting(s) {unknown}. Valid: '
                       f'{", ".join(names(settings))}{extra}.')
  values = settings(**given)
  check_types(values)
  return values


def _names_message(name: str, value: Any) -> str:
  return (f'--{name}: a list of names is needed, e.g. [{value!r}] for one; '
          f'got {value!r}.')


def check_types(values: Any) -> None:
  """Each setting of `values` (a settings dataclass) is of its flag's type
  (a bool is not a count, a string not a number or a list of names) and
  within its flag's bounds or choices."""
  settings = type(values)
  lower, upper = bounds(settings, 'lower'), bounds(settings, 'upper')
  for field in dataclasses.fields(settings):
    name, value = field.name, getattr(values, field.name)
    kind, optional = setting_type(settings, name)
    optional = optional or field.default is None
    if value is None and optional:
      continue
    names_list = (typing.get_origin(kind) is collections.abc.Sequence and
                  typing.get_args(kind) == (str,))
    if names_list and isinstance(value, (str, bytes)):  # Not letter by letter.
      raise SettingError(_names_message(name, value))
    if field.metadata.get('flag_type') is not None:
      continue  # Other forms than the flag's: checked where it is read.
    if kind is bool:
      if not isinstance(value, bool):
        raise SettingError(f'--{name}: must be True or False; got '
                           f'{value!r}.')
      continue
    if kind is str:
      if not isinstance(value, str):
        raise SettingError(f'--{name}: a name (a string) is needed; got '
                           f'{value!r}.')
      choices = field.metadata.get('choices')
      if choices and value not in choices:
        raise SettingError(f'--{name}: one of {", ".join(choices)}; got '
                           f'{value!r}.')
      continue
    if names_list:
      if (not isinstance(value, collections.abc.Sequence) or
          not all(isinstance(v, str) for v in value)):
        raise SettingError(_names_message(name, value))
      continue
    if typing.get_origin(kind) is collections.abc.Mapping:
      if not isinstance(value, collections.abc.Mapping):
        raise SettingError(f'--{name}: a mapping of key to value is needed, '
                           f'e.g. {{"learning_rate": 3e-4}}; got {value!r}.')
      continue
    if kind not in (int, float):
      continue  # Other sequences: the command's own checks.
    number = (int,) if kind is int else (int, float)
    if isinstance(value, bool) or not isinstance(value, number) or (
        kind is float and not math.isfinite(value)):
      raise SettingError(
          f'--{name}: must be {"an integer" if kind is int else "a finite number"}'
          f'{"" if name not in lower else f" >= {lower[name]}"}'
          f'{" (or None)" if optional else ""}; got {value!r}.')
    low, high = lower.get(name), upper.get(name)
    if (low is not None and value < low) or (high is not None and
                                             value > high):
      shown = _SHOWN_BOUNDS.get(high, high)
      between = (f'>= {low}' if high is None else
                 f'between {low} and {shown}')
      raise SettingError(f'--{name}: must be {between}; got {value!r}.')
