"""The one registry of environments, by name."""

import types
from typing import Any, Callable, Mapping, Optional

import dm_env

from environments import dm_env_wrapper
from environments import functional
from environments import plane_strike


def _plane_strike_core(**kwargs) -> functional.FunctionalEnvironment:
  return plane_strike.PlaneStrike(**kwargs)


# name -> factory of the pure-JAX core; `make_environment` adds the dm_env face.
_FUNCTIONAL: Mapping[str, Callable[..., functional.FunctionalEnvironment]] = (
    types.MappingProxyType({'plane_strike': _plane_strike_core}))


def names() -> tuple[str, ...]:
  """Registered environment names."""
  return tuple(sorted(_FUNCTIONAL))


def _check(name: str) -> None:
  if name not in _FUNCTIONAL:
    raise ValueError(f'Unknown environment {name!r}. Valid names: '
                     f'{", ".join(names())}.')


def make_functional(name: str,
                    **kwargs: Any) -> functional.FunctionalEnvironment:
  """The pure-JAX core of environment `name` (for compiled loops)."""
  _check(name)
  return _FUNCTIONAL[name](**kwargs)


def make_environment(name: str,
                     seed: Optional[int] = None,
                     **kwargs: Any) -> dm_env.Environment:
  """Environment `name` as a seeded `dm_env.Environment`."""
  return dm_env_wrapper.DmEnvironment(make_functional(name, **kwargs), seed)
