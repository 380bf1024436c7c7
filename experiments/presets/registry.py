"""The one registry of presets, and how `--preset` chooses one.

    --preset unset        the (agent, env) pair's default preset, if any
    --preset=none         the agent's plain config defaults
    --preset=<name>       a registered preset (`names()`)
    --preset=<file>.json  a preset file (e.g. one `experiments.sweep` wrote)

Explicit `--config.<key>` flags override a preset's values. A user's own
presets: `register(Preset(...))` in a module named by `--imports`.
"""

import os
from typing import Optional, Tuple

from environments import name_hints
from environments import named_entries
from experiments.presets import library
from experiments.presets import preset as preset_lib

Preset = preset_lib.Preset
NONE = 'none'

_ENTRIES = named_entries.NamedEntries('Preset', library.PRESETS)


def register(preset: Preset, replace: bool = False) -> Preset:
  """Adds `preset` (see `NamedEntries.register`); a second default for
  one (agent, env) pair is refused."""
  preset.check()
  if preset.default:
    current = default_for(preset.agent, preset.env)
    if current is not None and current.name != preset.name:
      raise ValueError(
          f'Preset {preset.name!r}: {current.name!r} is already the default '
          f'for {preset.agent} on {preset.env}; register it with '
          f'default=False and choose it with --preset={preset.name}.')
  return _ENTRIES.register(preset, replace)


def names(agent: Optional[str] = None,
          env: Optional[str] = None) -> Tuple[str, ...]:
  """Registered preset names (of `agent` and/or `env`, if given)."""
  return _ENTRIES.names(lambda p: (agent in (None, p.agent) and
                                   env in (None, p.env)))


def get(name: str) -> Preset:
  """The preset `name`; unknown names list the valid ones."""
  preset = _ENTRIES.get(name)
  if preset is None:
    raise ValueError(
        f'Unknown preset {name!r}.{name_hints.did_you_mean(name, names())} '
        f'Valid presets: {", ".join(names())}; or {NONE} (the agent\'s '
        f'plain defaults), or a preset file (<path>.json, e.g. one '
        f'experiments.sweep wrote).')
  return preset


def default_for(agent: str, env: str) -> Optional[Preset]:
  """The default preset of `agent` on `env`, or None."""
  for name in names(agent, env):
    preset = _ENTRIES.get(name)
    if preset.default:
      return preset
  return None


def is_file(value: str) -> bool:
  """Whether a `--preset` value names a file rather than a preset."""
  return value.endswith('.json') or os.sep in value


def resolve(value: Optional[str], agent: str, env: str,
            other_env: bool = False) -> Optional[Preset]:
  """The preset `--preset=value` chooses for `agent` on `env`.

  Args:
    value: None (the pair's default preset), 'none', a registered name or
      a preset file path.
    agent: the agent being trained.
    env: the environment it trains on.
    other_env: accept a preset tuned on another environment
      (`--preset_on_other_env`): its settings are a starting point there.

  Returns:
    The preset, or None for 'none' and for pairs without a default.

  Raises:
    ValueError: an unknown name (listing the valid ones), an unreadable
      file (named), a preset of another agent, or (unless `other_env`) one
      tuned on another environment, naming that environment and the
      presets of this one.
  """
  if value is None:
    return default_for(agent, env)
  if value == NONE:
    return None
  preset = preset_lib.read_file(value) if is_file(value) else get(value)
  if preset.agent != agent:
    raise ValueError(
        f'Preset {preset.name!r} is for agent {preset.agent!r}, not '
        f'{agent!r}. Presets of {agent}: '
        f'{", ".join(names(agent)) or "(none)"}; or {NONE}.')
  if preset.env != env and not other_env:
    named = value if is_file(value) else preset.name
    raise ValueError(
        f'Preset {named!r} was tuned on {preset.env}, not {env}: '
        f'its settings (a discount, a value range, a budget) may not suit '
        f'{env}. Presets of {agent} on {env}: '
        f'{", ".join(names(agent, env)) or "(none)"}; or {NONE} (the '
        f'agent\'s defaults); or --preset_on_other_env to use it anyway.')
  return preset
