"""`--env_config.<key>=<value>`: settings of the environment `--env` names
(they become `ExperimentConfig.env_kwargs`).

Defined the way `config_flags` defines `--config.*`: one ml-collections
flag namespace whose slots have the settings' types, so each value is
parsed to its setting's type and a bad one is named by its flag. The
environment is known only from `--env`, so the namespace is defined once
`argv` is read (`define_flag`, before `app.run`), and unknown keys are
refused there, before anything is built, with the valid ones listed.

Which keys are valid, and how values are checked before training:
`experiments.setup.env_settings`. `gym:` ids pass their settings to
`gymnasium.make`, which cannot list them: any key is accepted there, its
value read as a Python literal.
"""

import inspect
import sys
from typing import Any, Dict, Optional, Sequence

from absl import flags
import ml_collections
from ml_collections import config_flags as ml_config_flags

from experiments.cli import config_flags
from experiments.setup import env_settings

FLAG_NAME = 'env_config'
_PARSED_TYPES = (bool, int, float, str)


def setting_type(parameter: inspect.Parameter) -> Optional[type]:
  """The type a setting's value is parsed to: its default's, else its
  annotation's (`X` of `Optional[X]`); None: any Python literal."""
  if type(parameter.default) in _PARSED_TYPES:
    return type(parameter.default)
  kind = config_flags.value_type(parameter.annotation)
  return kind if kind in _PARSED_TYPES else None


def config_dict(env_name: str) -> ml_collections.ConfigDict:
  """The flag namespace of `env_name`: each setting's default, or a slot of
  its type where the default is None (untyped settings: not listed, so
  that their values are read as Python literals)."""
  values = {}
  for key, parameter in (env_settings.settings(env_name) or {}).items():
    kind = setting_type(parameter)
    if kind is not None:
      default = parameter.default
      values[key] = config_flags.typed_slot(
          default if type(default) is kind else None, kind)
  return ml_collections.ConfigDict(values)


def define_flag(argv: Optional[Sequence[str]] = None,
                default_env: str = 'plane_strike',
                flag_values: flags.FlagValues = flags.FLAGS) -> None:
  """Defines `--env_config` for the environment named in `argv` (default
  sys.argv). Exits with the valid keys listed when `argv` sets a key the
  environment has no setting for."""
  argv = list(sys.argv if argv is None else argv)
  env_name = config_flags.value_from_argv(argv, 'env', default_env)
  try:
    env_settings.check_keys(config_flags.keys_in_argv(argv, FLAG_NAME),
                            env_name)
  except ValueError as e:
    sys.exit(f'FATAL Flags parsing error: {e}')
  settings = env_settings.settings(env_name)
  untyped = settings is None or any(
      setting_type(p) is None for p in settings.values())
  ml_config_flags.DEFINE_config_dict(
      FLAG_NAME, config_dict(env_name),
      'A setting of --env\'s environment, e.g. --env_config.board_size=6 '
      '(Plane Strike); default: the environment\'s. --helpconfig lists the '
      'settings of --env with their defaults.',
      flag_values=flag_values, lock_config=not untyped,
      accept_new_attributes=untyped, sys_argv=argv)


def overrides(flag_values: flags.FlagValues = flags.FLAGS) -> Dict[str, Any]:
  """The `--env_config.<key>=<value>` values given, by key."""
  return config_flags.overrides(FLAG_NAME, flag_values)



def refuse(argv: Sequence[str], command: str, fix: str) -> None:
  """Exits, saying `fix`, if `argv` sets `--env_config.*`: for commands
  that run several environments and take none of their settings."""
  if config_flags.keys_in_argv(argv, FLAG_NAME):
    sys.exit(f'FATAL Flags parsing error: --{FLAG_NAME}: {command} takes no '
             f'environment settings; {fix}')
