"""`--config.<key>=<value>` overrides of an agent's config dataclass.

The agent is chosen by `--agent`, so the config flag is defined only once
the agent's name is known (`define_config_flag(agent_name_from_argv(...))`
before `app.run`). Overrides go through ml-collections' `config_flags`, which
parses each value to the field's type; the dataclass is then rebuilt so its
own validation names bad values. Unknown keys are refused with the valid
ones listed.
"""

import dataclasses
import sys
import typing
from typing import Any, Dict, Optional, Sequence

from absl import flags
import ml_collections
from ml_collections import config_flags

from agents import registry as agent_registry

FLAG_NAME = 'config'


def to_config_dict(config: Any) -> ml_collections.ConfigDict:
  """A ConfigDict of a config dataclass; None defaults become typed slots."""
  hints = typing.get_type_hints(type(config))
  values = {}
  for field in dataclasses.fields(config):
    value = getattr(config, field.name)
    if value is None:
      (inner,) = [t for t in typing.get_args(hints[field.name])
                  if t is not type(None)]
      value = ml_collections.config_dict.placeholder(inner)
    values[field.name] = value
  return ml_collections.ConfigDict(values)


def _placeholders(agent_name: str) -> Dict[str, Any]:
  """Typed empty slots for every config key of agent `agent_name`."""
  slots = {}
  for key, value in to_config_dict(
      agent_registry.make_config(agent_name)).items():
    kind = type(value) if not isinstance(
        value, ml_collections.FieldReference) else value.get_type()
    slots[key] = ml_collections.config_dict.placeholder(kind)
  return slots


def overrides_config_dict(
    agent_names: Sequence[str]) -> ml_collections.ConfigDict:
  """Typed empty slots for commands that run several agents
  (`experiments.compare`): `<key>` for every key of any agent's config,
  and `<agent>.<key>` for one agent's. A slot left None was not given.
  """
  slots = {}
  for name in agent_names:
    for key, slot in _placeholders(name).items():
      slots.setdefault(key, slot)
  slots = dict(sorted(slots.items()))
  for name in agent_names:
    slots[name] = ml_collections.ConfigDict(_placeholders(name))
  return ml_collections.ConfigDict(slots)


def overrides() -> dict:
  """The `--config.<key>=<value>` values given on the command line, by key
  (nested keys joined by dots, e.g. 'ppo.learning_rate'); keys not given
  are absent, so they never mask a preset's values."""
  prefix = FLAG_NAME + '.'
  if FLAG_NAME not in flags.FLAGS or not flags.FLAGS.is_parsed():
    return {}
  return {name[len(prefix):]: flags.FLAGS[name].value
          for name in flags.FLAGS if name.startswith(prefix)}


def agent_name_from_argv(argv: Sequence[str], default: str) -> str:
  """The `--agent` value in `argv` (last one wins), else `default`."""
  name = default
  for i, arg in enumerate(argv):
    if arg.startswith('--agent='):
      name = arg.split('=', 1)[1]
    elif arg == '--agent' and i + 1 < len(argv):
      name = argv[i + 1]
  return name


def check_override_keys(argv: Sequence[str], agent_name: str) -> None:
  """Raises ValueError for `--config.<key>` that the agent's config lacks."""
  keys = [arg[len(f'--{FLAG_NAME}.'):].split('=', 1)[0] for arg in argv
          if arg.startswith(f'--{FLAG_NAME}.')]
  agent_registry.check_config_keys(agent_name, keys)


def check_comparison_keys(argv: Sequence[str],
                          agent_names: Sequence[str]) -> None:
  """Raises ValueError for `--config.<key>` that no agent's config has, or
  `--config.<agent>.<key>` that that agent's lacks (commands of several
  agents), naming the valid keys."""
  every = sorted({f.name for name in agent_names
                  for f in dataclasses.fields(
                      agent_registry.get(name).config_class)})
  for arg in argv:
    if not arg.startswith(f'--{FLAG_NAME}.'):
      continue
    key = arg[len(f'--{FLAG_NAME}.'):].split('=', 1)[0]
    agent, _, inner = key.partition('.')
    if inner and agent in agent_names:
      agent_registry.check_config_keys(agent, [inner])
    elif key not in every:
      raise ValueError(
          f'--{FLAG_NAME}.{key}: no agent has config key {key!r}. Valid '
          f'keys: {", ".join(every)}; --{FLAG_NAME}.<agent>.<key> sets one '
          f'agent\'s ({", ".join(agent_names)}).')


def define_config_flag(argv: Optional[Sequence[str]] = None,
                       default_agent: str = 'reinforce') -> None:
  """Defines `--config` for the agent named in `argv` (default sys.argv).

  Exits with a clear message when `argv` overrides a key the agent's config
  does not have. An unknown agent name gets the default agent's config, so
  that `--agent`'s own validator reports it.
  """
  argv = sys.argv if argv is None else argv
  name = agent_name_from_argv(argv, default_agent)
  if name not in agent_registry.names():
    name = default_agent
  try:
    check_override_keys(argv, name)
  except ValueError as e:
    sys.exit(f'FATAL Flags parsing error: --{FLAG_NAME}: {e}')
  config_flags.DEFINE_config_dict(
      FLAG_NAME, to_config_dict(agent_registry.make_config(name)),
      f'Hyperparameters of the chosen agent; override one with '
      f'--{FLAG_NAME}.<key>=<value>.')


def agent_config(agent_name: str, preset_values: Optional[dict] = None,
                 **shorthands: Any) -> Any:
  """The agent config: a preset's values, then `--config.*` flags (if
  defined), then flag shorthands; later ones win.

  Args:
    agent_name: the agent whose config class to build.
    preset_values: the chosen preset's config values, if any.
    **shorthands: values of shorthand flags (e.g. learning_rate); None
      values are ignored.

  Raises:
    ValueError: naming the bad key or value.
  """
  values = dict(preset_values or {})
  values.update(overrides())
  values.update({k: v for k, v in shorthands.items() if v is not None})
  return agent_registry.make_config(agent_name, **values)
