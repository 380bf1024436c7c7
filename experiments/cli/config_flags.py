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
from typing import Any, Dict, List, Optional, Sequence

from absl import flags
import ml_collections
from ml_collections import config_flags

from agents import registry as agent_registry

FLAG_NAME = 'config'


def value_type(hint: Any) -> Any:
  """The type a value of annotation `hint` is parsed to: `X` for
  `Optional[X]`, else `hint` itself."""
  inner = [t for t in typing.get_args(hint) if t is not type(None)]
  return inner[0] if (typing.get_origin(hint) is typing.Union and
                      len(inner) == 1) else hint


def typed_slot(value: Any, hint: Any) -> Any:
  """`value`, or an empty slot of `hint`'s type (an ml-collections
  placeholder) when it is None, so that the flag parses to that type."""
  if value is not None:
    return value
  return ml_collections.config_dict.placeholder(value_type(hint))


def to_config_dict(config: Any) -> ml_collections.ConfigDict:
  """A ConfigDict of a config dataclass; None defaults become typed slots."""
  hints = typing.get_type_hints(type(config))
  return ml_collections.ConfigDict({
      field.name: typed_slot(getattr(config, field.name), hints[field.name])
      for field in dataclasses.fields(config)})


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


def overrides(flag_name: str = FLAG_NAME,
              flag_values: flags.FlagValues = flags.FLAGS) -> dict:
  """The `--<flag_name>.<key>=<value>` values given on the command line, by
  key (nested keys joined by dots, e.g. 'ppo.learning_rate'); keys not given
  are absent, so they never mask a preset's values."""
  prefix = flag_name + '.'
  if flag_name not in flag_values or not flag_values.is_parsed():
    return {}
  return {name[len(prefix):]: flag_values[name].value
          for name in flag_values if name.startswith(prefix)}


def value_from_argv(argv: Sequence[str], flag_name: str,
                    default: str) -> str:
  """The `--<flag_name>` value in `argv` (last one wins), else `default`:
  read before parsing, because it decides which flags exist."""
  value = default
  for i, arg in enumerate(argv):
    if arg.startswith(f'--{flag_name}='):
      value = arg.split('=', 1)[1]
    elif arg == f'--{flag_name}' and i + 1 < len(argv):
      value = argv[i + 1]
  return value


def agent_name_from_argv(argv: Sequence[str], default: str) -> str:
  """The `--agent` value in `argv` (last one wins), else `default`."""
  return value_from_argv(argv, 'agent', default)


def keys_in_argv(argv: Sequence[str], flag_name: str = FLAG_NAME
                ) -> List[str]:
  """The keys of the `--<flag_name>.<key>=<value>` arguments in `argv`."""
  prefix = f'--{flag_name}.'
  return [arg[len(prefix):].split('=', 1)[0] for arg in argv
          if arg.startswith(prefix)]


def check_override_keys(argv: Sequence[str], agent_name: str) -> None:
  """Raises ValueError for `--config.<key>` that the agent's config lacks."""
  agent_registry.get(agent_name).check_config_keys(keys_in_argv(argv))


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
      agent_registry.get(agent).check_config_keys([inner])
    elif key not in every:
      raise ValueError(
          f'--{FLAG_NAME}.{key}: no agent has config key {key!r}. Valid '
          f'keys: {", ".join(every)}; --{FLAG_NAME}.<agent>.<key> sets one '
          f'agent\'s ({", ".join(agent_names)}).')


def define_config_flag(argv: Optional[Sequence[str]] = None) -> None:
  """Defines `--config` for the agent named in `argv` (default sys.argv),
  or else for `--agent`'s default.

  Exits with a clear message when `argv` overrides a key the agent's config
  does not have. An unknown agent name gets the default agent's config, so
  that `--agent`'s own validator reports it.
  """
  argv = sys.argv if argv is None else argv
  default_agent = flags.FLAGS['agent'].default
  name = agent_name_from_argv(argv, default_agent)
  if name not in agent_registry.names():
    name = default_agent
  try:
    check_override_keys(argv, name)
  except ValueError as e:
    sys.exit(f'FATAL Flags parsing error: --{FLAG_NAME}: {e}')
  config_flags.DEFINE_config_dict(
      FLAG_NAME, to_config_dict(agent_registry.make_config(name)),
      f'A hyperparameter of --agent\'s config, e.g. '
      f'--{FLAG_NAME}.learning_rate=3e-4; overrides the preset. '
      f'--helpconfig lists the keys, their defaults and meaning.')

