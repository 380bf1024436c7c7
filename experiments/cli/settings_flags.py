"""Flags made from the settings' declarations (`setup.settings`).

A command's setting is declared once, as a field of its settings class
(`TrainSettings`, `CompareSettings`, `SweepSettings`, `ExportSettings`)
with its default, help and bounds; `define` makes its flag from that: the
flag's kind from the field's type (a bool, an integer, a number, a name
among choices, a name, a list), its default, help and bounds, and for a
number a refusal of NaN and infinity (`finite_flags`). The API's keywords
come from the same fields, so a flag and its keyword cannot drift apart."""

import collections.abc
import dataclasses
import typing
from typing import Any, Dict, Type

from absl import flags

from experiments.cli import compilation_cache_flag
from experiments.cli import finite_flags
from experiments.cli import user_imports
from experiments.setup import settings as settings_lib


def _help(field: dataclasses.Field, facts: Dict[str, Any]) -> str:
  """The field's help, with the facts of other modules it declares it
  names (`{name}`) filled in from `facts`."""
  text = field.metadata['help']
  text = text() if callable(text) else text
  named = field.metadata['facts']
  if not named:
    return text
  missing = [name for name in named if name not in facts]
  if missing:
    raise ValueError(f'--{field.name}\'s help names {", ".join(missing)}: '
                     f'pass {missing[0]}=... to settings_flags.define.')
  return text.format(**{name: facts[name] for name in named})


def _define_one(settings: Type[Any], field: dataclasses.Field,
                facts: Dict[str, Any], flag_values: flags.FlagValues) -> None:
  """The field's flag, by the absl `DEFINE_*` of its type."""
  meta = field.metadata
  kind, _ = settings_lib.setting_type(settings, field.name)
  name, help_text = field.name, _help(field, facts)
  default = settings_lib.default(field)
  bounds = {key: meta[end] for key, end in (('lower_bound', 'lower'),
                                             ('upper_bound', 'upper'))
            if meta.get(end) is not None}
  into = {'flag_values': flag_values}
  if meta.get('repeated'):
    flags.DEFINE_multi_string(name, list(default), help_text, **into)
  elif kind is bool:
    flags.DEFINE_bool(name, default, help_text, **into)
  elif kind is int:
    flags.DEFINE_integer(name, default, help_text, **bounds, **into)
  elif kind is float:
    flags.DEFINE_float(name, default, help_text, **bounds, **into)
    finite_flags.require_finite(name, **into)
  elif kind is str and meta.get('choices'):
    flags.DEFINE_enum(name, default, meta['choices'], help_text, **into)
  elif kind is str:
    flags.DEFINE_string(name, default, help_text, **into)
  elif typing.get_origin(kind) is collections.abc.Sequence:
    flags.DEFINE_list(name, list(default) if default else None, help_text,
                      **into)
  else:
    raise TypeError(f'--{name}: no flag kind for {kind}.')


def define(settings: Type[Any], *names: str,
           flag_values: flags.FlagValues = flags.FLAGS,
           **facts: Any) -> None:
  """Defines the flags of `settings`' settings `names` (every setting with
  a flag of its own when none are named), each from its declaration;
  `facts` fill what their help names of modules this one may not import
  (the export check's `max_check_steps` and `tolerance`); into
  `flag_values` (absl's global registry by default)."""
  fields = settings_lib.fields(settings)
  for name in names or [n for n, f in fields.items() if f.metadata['flag']]:
    if not fields[name].metadata['flag']:
      raise ValueError(f'--{name} is a namespace, defined by its own '
                       f'module.')
    _define_one(settings, fields[name], facts, flag_values)


def define_study(settings: Type[Any], workdir_help: str) -> None:
  """A study command's flags (compare's, sweep's): `--imports`,
  `--compilation_cache_dir`, each of `settings`' settings from its
  declaration (which the API's keywords come from too), and the required
  `--workdir`."""
  user_imports.define_flag()
  compilation_cache_flag.define_flag()
  define(settings)
  flags.DEFINE_string('workdir', None, workdir_help)
  flags.mark_flag_as_required('workdir')
