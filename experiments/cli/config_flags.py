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
from typing import Any, Optional, Sequence

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


def overrides_config_dict(
    agent_names: Sequence[str]) -> ml_collections.ConfigDict:
  """Typed empty slots for every config key of `agent_names`' configs.

  For commands that run several agents (`experiments.compare`): a slot left
  None was not overridden.
  """
  slots = {}
  for name in agent_names:
    for key, value in to_config_dict(
        agent_registry.make_config(name)).items():
      kind = type(value) if not isinstance(
          value, ml_collections.FieldReference) else value.get_type()
      slots.setdefault(key, ml_collections.config_dict.placeholder(kind))
  return ml_collections.ConfigDict(dict(sorted(slots.items())))


def overrides() -> dict:
  """The `--config.<key>` values given on the command line (None: not)."""
  if FLAG_NAME not in flags.FLAGS or not flags.FLAGS.is_parsed():
    return {}
  values = flags.FLAGS[FLAG_NAME].value.to_dict()
  return {k: v for k, v in values.items() if v is not None}


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


def agent_config(agent_name: str, **shorthands: Any) -> Any:
  """The agent config from `--config.*` (if defined) plus flag shorthands.

  Args:
    agent_name: the agent whose config class to build.
    **shorthands: values of shorthand flags (e.g. learning_rate); None
      values are ignored.

  Raises:
    ValueError: naming the bad key or value.
  """
  values = overrides()
  values.update({k: v for k, v in shorthands.items() if v is not None})
  return agent_registry.make_config(agent_name, **values)
