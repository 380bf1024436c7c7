"""The one registry of environments, by name.

Names are either a registered pure-JAX core ('cartpole', 'catch',
'plane_strike'), which runs in the Python loop and in compiled loops, or a
prefixed id of an external suite, which runs in the Python loop only:
'bsuite:<bsuite id>' (e.g. 'bsuite:catch/0') and 'gym:<Gymnasium id>' (e.g.
'gym:CartPole-v1').
"""

import types
from typing import Any, Callable, Mapping, NamedTuple, Optional

import dm_env

from environments import bsuite_adapter
from environments import cartpole
from environments import catch
from environments import dm_env_wrapper
from environments import functional
from environments import gym_adapter
from environments import plane_strike

BSUITE_PREFIX = 'bsuite:'
GYM_PREFIX = 'gym:'


def _cartpole_core(**kwargs) -> functional.FunctionalEnvironment:
  return cartpole.CartPole(**kwargs)


def _catch_core(**kwargs) -> functional.FunctionalEnvironment:
  return catch.Catch(**kwargs)


def _plane_strike_core(**kwargs) -> functional.FunctionalEnvironment:
  return plane_strike.PlaneStrike(**kwargs)


# name -> factory of the pure-JAX core; `make_environment` adds the dm_env face.
_FUNCTIONAL: Mapping[str, Callable[..., functional.FunctionalEnvironment]] = (
    types.MappingProxyType({
        'cartpole': _cartpole_core,
        'catch': _catch_core,
        'plane_strike': _plane_strike_core,
    }))


class _Suite(NamedTuple):
  """An external suite: validates ids and makes dm_env environments."""
  check_id: Callable[[str], None]
  make_environment: Callable[..., dm_env.Environment]


# name prefix -> suite, whose environments run in the Python loop only.
_EXTERNAL: Mapping[str, _Suite] = types.MappingProxyType({
    BSUITE_PREFIX: _Suite(bsuite_adapter.check_id,
                          bsuite_adapter.make_environment),
    GYM_PREFIX: _Suite(gym_adapter.check_id, gym_adapter.make_environment),
})


def names() -> tuple[str, ...]:
  """Names of the registered pure-JAX environments."""
  return tuple(sorted(_FUNCTIONAL))


def _split(name: str) -> tuple[str, str]:
  """`(prefix, id)` of an external name, or `('', name)`."""
  for prefix in _EXTERNAL:
    if isinstance(name, str) and name.startswith(prefix):
      return prefix, name[len(prefix):]
  return '', name


def check_name(name: str) -> None:
  """Raises ValueError, listing the valid names, unless `name` is valid.

  Prefixed names are checked against their suite too (an unknown bsuite or
  Gymnasium id raises with that suite's list of ids).
  """
  prefix, suite_id = _split(name)
  if prefix and suite_id:
    _EXTERNAL[prefix].check_id(suite_id)
  elif not prefix and name in _FUNCTIONAL:
    return
  else:
    raise ValueError(
        f'Unknown environment {name!r}. Valid names: {", ".join(names())}, '
        f'or {BSUITE_PREFIX}<id> (e.g. {BSUITE_PREFIX}catch/0) or '
        f'{GYM_PREFIX}<id> (e.g. {GYM_PREFIX}CartPole-v1).')


def has_functional(name: str) -> bool:
  """Whether valid name `name` has a pure-JAX core (raises if invalid)."""
  check_name(name)
  return name in _FUNCTIONAL


def make_functional(name: str,
                    **kwargs: Any) -> functional.FunctionalEnvironment:
  """The pure-JAX core of environment `name` (for compiled loops)."""
  if not has_functional(name):
    raise ValueError(
        f'Environment {name!r} has no JAX core: it runs in the Python loop '
        f'only. Environments with one: {", ".join(names())}.')
  return _FUNCTIONAL[name](**kwargs)


def make_environment(name: str,
                     seed: Optional[int] = None,
                     **kwargs: Any) -> dm_env.Environment:
  """Environment `name` as a seeded `dm_env.Environment`.

  Args:
    name: a name of `names()`, or 'bsuite:<id>' or 'gym:<id>'.
    seed: seeds the episodes (see each adapter for how external suites use
      it).
    **kwargs: options of the core's constructor, or of `gymnasium.make`;
      bsuite ids take none (the id fixes the settings).

  Returns:
    The environment.
  """
  check_name(name)
  prefix, suite_id = _split(name)
  if prefix:
    return _EXTERNAL[prefix].make_environment(suite_id, seed=seed,
                                              **kwargs)
  return dm_env_wrapper.DmEnvironment(make_functional(name, **kwargs), seed)
