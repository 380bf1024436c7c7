"""How a saved run's settings differ from a config's, once defaults are
resolved: what a workdir's drift check reports, one line per differing
setting, so a long nested setting never hides the one that changed."""

import dataclasses
import inspect
import json
from typing import Any, Dict, List, Mapping, Optional, Tuple

from environments import registry as env_registry
from experiments.setup import build as build_lib
from experiments.setup import config as config_lib
from networks import registry as network_registry


def differences(saved: Mapping[str, Any],
                config: config_lib.ExperimentConfig) -> List[str]:
  """How the identity settings of a saved config.json (`saved`) and
  `config` differ, once defaults are resolved (a default restated by a flag
  is no difference): `key: saved a, now b` for each differing key, and for
  the agent's and the environment's settings each differing one by name
  (`agent_config.learning_rate (--config.learning_rate): saved 0.001, now
  0.003`). Empty when the run may resume."""
  return [line for key, (was, now) in
          config_lib.identity_mismatch(saved, config).items()
          for line in _differences(config, key, was, now)]


# Identity keys that a flag sets under another name; the agent's and the
# environment's settings are named key by key (`_differences`).
_FLAGS = {'agent_config': '--config', 'env_kwargs': '--env_config',
          'trials': None}


def _name(key: str, sub: Optional[str] = None) -> str:
  """`agent_config.learning_rate (--config.learning_rate)`, `num_envs`."""
  flag = _FLAGS.get(key, f'--{key}')
  if sub is None:
    return key if flag is None or flag == f'--{key}' else f'{key} ({flag})'
  return f'{key}.{sub}' + ('' if flag is None else f' ({flag}.{sub})')


def _normalised(value: Any) -> Any:
  """JSON's view of a value (config.json holds lists, not tuples)."""
  return json.loads(json.dumps(value, default=str))


def _env_defaults(config: config_lib.ExperimentConfig) -> Dict[str, Any]:
  parameters = env_registry.settings(config.env) or {}
  return {name: p.default for name, p in parameters.items()
          if p.default is not inspect.Parameter.empty}


def _resolved(config: config_lib.ExperimentConfig, key: str,
              value: Any) -> Any:
  """`value` of identity key `key` as the run uses it: a setting left to
  its default (None, or missing from the environment's settings) replaced
  by the value it resolves to for `config`, so that a default restated by
  a flag (e.g. --num_envs=4 where None meant 4) matches it."""
  if key == 'num_envs' and value is None:
    return dataclasses.replace(config, num_envs=None).num_envs
  if key == 'network' and value is None:
    return build_lib.network_name(dataclasses.replace(config, network=None))
  if key == 'hidden_sizes' and value is None:
    return (dataclasses.replace(config,
                                hidden_sizes=None).resolved_hidden_sizes() or
            network_registry.get(build_lib.network_name(config))
            .default_hidden_sizes)
  if key == 'env_kwargs' and isinstance(value, Mapping):
    return {**_env_defaults(config), **value}
  return value


def _differences(config: config_lib.ExperimentConfig, key: str, saved: Any,
                 now: Any) -> List[str]:
  """How identity key `key` differs between the saved run and `config`,
  after resolving defaults: nothing for a restated default, one entry per
  differing setting of the agent's config or the environment's, else one
  for the key (`key: saved a, now b`)."""
  given = saved, now
  try:
    saved, now = (_normalised(_resolved(config, key, v)) for v in given)
  except (ValueError, TypeError, KeyError):  # Cannot resolve: as given.
    saved, now = (_normalised(v) for v in given)
  if saved == now:
    return []
  if isinstance(saved, dict) and isinstance(now, dict):
    unset = '(unset)'
    return [f'{_name(key, sub)}: saved {saved.get(sub, unset)!r}, now '
            f'{now.get(sub, unset)!r}'
            for sub in sorted(set(saved) | set(now))
            if saved.get(sub, unset) != now.get(sub, unset)]
  # A default is shown with what it resolved to: `None (= 4)`.
  saved, now = (f'{r!r}' if _normalised(g) == r else f'{g!r} (= {r!r})'
                for g, r in zip(given, (saved, now)))
  return [f'{_name(key)}: saved {saved}, now {now}']


def study_mismatch(saved: Mapping[str, Any], current: Mapping[str, Any],
                   workdir: str, what: str) -> Optional[str]:
  """The one-line refusal of a `workdir` whose saved settings (`saved`)
  are of another `what` (a comparison, a sweep) than `current`, naming
  each differing setting (nested ones by their dotted name); None where
  they match."""
  mismatch = {k: (saved.get(k), v) for k, v in current.items()
              if saved.get(k) != v}
  if not mismatch:
    return None
  described = '; '.join(f'{k}: saved {a!r}, now {b!r}'
                        for k, (a, b) in _flat_mismatch(mismatch).items())
  return (f'--workdir {workdir!r} holds a different {what} ({described}). '
          f'Use a new --workdir, or the same settings to resume this one.')


class _Absent:
  """A key one side of a mismatch lacks."""

  def __repr__(self) -> str:
    return 'unset'


_ABSENT = _Absent()


def _flat_mismatch(mismatch: Mapping[str, Tuple[Any, Any]]
                  ) -> Dict[str, Tuple[Any, Any]]:
  flat = {}
  for key, (saved, now) in mismatch.items():
    if isinstance(saved, Mapping) and isinstance(now, Mapping):
      flat.update(_flat_mismatch({
          f'{key}.{sub}': (saved.get(sub, _ABSENT), now.get(sub, _ABSENT))
          for sub in sorted(set(saved) | set(now), key=str)
          if saved.get(sub, _ABSENT) != now.get(sub, _ABSENT)}))
    else:
      flat[key] = (saved, now)
  return flat
