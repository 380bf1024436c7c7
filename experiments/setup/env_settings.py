"""Checks of an environment's settings (`--env_config.<key>=<value>`, the
API's `env_config={...}`), before anything is built or written.

Which keys are valid (`environments.registry.settings`): the keyword
parameters of a registered game's factory (e.g. Plane Strike's
`board_size`, `max_steps`), a gymnax game's env params, pgx's
`max_steps`; bsuite ids take none. `gym:` ids pass their settings to
`gymnasium.make`, which cannot list them: any key is accepted, and
`check_values` builds the environment once so that a key or value
Gymnasium refuses is named before training.
"""

import inspect
from typing import Any, Dict, Mapping, Optional, Sequence

from environments import registry as env_registry

FLAG_NAME = 'env_config'


def settings(env_name: str) -> Optional[Dict[str, inspect.Parameter]]:
  """`env_registry.settings`; None for an invalid name too (`--env`'s own
  validator reports it after parsing)."""
  try:
    return env_registry.settings(env_name)
  except ValueError:
    return None


def describe_valid(env_name: str) -> str:
  """The valid keys of `env_name`, for messages."""
  valid = settings(env_name)
  if valid is None:
    return ('its factory\'s keywords, which cannot be listed (gym: ids: '
            'gymnasium.make\'s and the environment class\'s)')
  return ', '.join(valid) or 'none (its id fixes its settings)'


def check_keys(keys: Sequence[str], env_name: str) -> None:
  """Raises ValueError naming the first of `keys` that environment
  `env_name` has no setting for, and the valid ones."""
  valid = settings(env_name)
  if valid is None:
    return
  for key in keys:
    if key not in valid:
      raise ValueError(
          f'--{FLAG_NAME}.{key}: {env_name} has no setting {key!r}. Valid: '
          f'{describe_valid(env_name)}' + (
              ' (--helpconfig lists them with their defaults).' if valid
              else '.'))


def check_values(env_name: str, env_kwargs: Mapping[str, Any]) -> None:
  """Builds environment `env_name` with `env_kwargs` once (cheap: no
  training), so that a value its factory refuses (e.g. Plane Strike's
  board_size=3), a key of `gym:`/gymnax ids, or a setting the game cannot
  do without (an XLand grid's ruleset) is named now.

  Raises:
    ValueError: naming the flag, the environment and its reason.
  """
  check_keys(list(env_kwargs), env_name)
  try:
    env_registry.make_environment(env_name, **env_kwargs).close()
  except (TypeError, ValueError) as e:
    reason = str(e).rstrip('.')
    if not env_kwargs:
      raise ValueError(f'{env_name} cannot be built with its default '
                       f'settings: {reason}.') from e
    given = ' '.join(f'--{FLAG_NAME}.{k}={v}' for k, v in env_kwargs.items())
    raise ValueError(f'{given}: {env_name} refuses these settings: '
                     f'{reason}. Valid keys: '
                     f'{describe_valid(env_name)}.') from e
