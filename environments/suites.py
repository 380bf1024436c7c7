"""The external suites behind prefixed environment ids ('gymnax:CartPole-v1').

Each suite is one prefix and one adapter: the adapter checks its ids and
makes their environments. bsuite ('bsuite:catch/0') and Gymnasium
('gym:CartPole-v1') have a dm_env face only (the Python loop), as has
EnvPool ('envpool:Pong-v5'), whose N environments the Python loop steps in
one call (`environment_batch`); brax
('brax:hopper'), Craftax ('craftax:Craftax-Classic-Symbolic-v1'), gymnax
('gymnax:CartPole-v1'), Jumanji ('jumanji:Snake-v1'), Navix
('navix:Navix-Empty-5x5-v0'), pgx ('pgx:2048'), POPGym Arcade
('popgym_arcade:CountRecallEasy') and XLand-MiniGrid
('xminigrid:MiniGrid-Empty-8x8') games are JAX, so they come as pure-JAX
cores and run in both loops.

`environments.registry` resolves names through this module; this module
knows nothing of the registry's own entries.
"""

import inspect
from typing import Any, Callable, Dict, List, Mapping, NamedTuple, Optional
from typing import Tuple

import dm_env

from environments import brax_adapter
from environments import bsuite_adapter
from environments import craftax_adapter
from environments import environment_batch
from environments import envpool_adapter
from environments import functional
from environments import gym_adapter
from environments import gymnax_adapter
from environments import jumanji_adapter
from environments import navix_adapter
from environments import pgx_adapter
from environments import popgym_arcade_adapter
from environments import reference_scores
from environments import xminigrid_adapter

BRAX_PREFIX = 'brax:'
BSUITE_PREFIX = 'bsuite:'
CRAFTAX_PREFIX = 'craftax:'
ENVPOOL_PREFIX = 'envpool:'
GYM_PREFIX = 'gym:'
GYMNAX_PREFIX = 'gymnax:'
JUMANJI_PREFIX = 'jumanji:'
NAVIX_PREFIX = 'navix:'
PGX_PREFIX = 'pgx:'
POPGYM_ARCADE_PREFIX = 'popgym_arcade:'
XMINIGRID_PREFIX = 'xminigrid:'

# How the field evaluates on a game (`registry.EnvironmentEntry.evaluation`):
# the deployable greedy policy, or the policy as it acts.
GREEDY_EVALUATION = 'greedy'
ACTING_EVALUATION = 'acting'
EVALUATIONS = (GREEDY_EVALUATION, ACTING_EVALUATION)

# Setting name -> keyword parameter (its default and annotation).
Settings = Dict[str, inspect.Parameter]


class Suite(NamedTuple):
  """An external suite: validates ids and makes its environments.

  Attributes:
    check_id: raises ValueError unless the suite has the id.
    example: an id, for help texts.
    make_environment: `(id, seed, **kwargs) -> dm_env.Environment`, for a
      suite without a JAX core (Python loop only); None: the core's face.
    make_core: `(id, **kwargs) -> FunctionalEnvironment`, for a suite of
      JAX games (both loops); None: no core.
    references: id -> reference score, for the ids that have one.
    settings: `id -> Settings`, where the factory's signature cannot tell
      them (it takes `**kwargs`); None: the factory's keywords.
    evaluation: `id -> how the field evaluates on it` (`EVALUATIONS`).
    make_batch: `(id, seed, num_envs, **kwargs) -> EnvironmentBatch`, N
      environments the Python loop steps in one call; None: it steps
      `make_environment`'s one after another.
  """
  check_id: Callable[[str], None]
  example: str
  make_environment: Optional[Callable[..., dm_env.Environment]] = None
  make_core: Optional[Callable[..., functional.FunctionalEnvironment]] = None
  references: Mapping[str, reference_scores.ReferenceScore] = {}
  settings: Optional[Callable[[str], Settings]] = None
  evaluation: Callable[[str], str] = lambda suite_id: GREEDY_EVALUATION
  make_batch: Optional[Callable[..., environment_batch.EnvironmentBatch]] = (
      None)


def _minatar_acting(is_minatar: Callable[[str], bool]
                   ) -> Callable[[str], str]:
  """MinAtar games are reported from the acting policy (Young & Tian,
  2019; gymnax's and PureJaxRL's baselines); the rest greedily."""
  return lambda suite_id: (ACTING_EVALUATION if is_minatar(suite_id)
                           else GREEDY_EVALUATION)


def _env_params(make_core: Callable[..., Any]) -> Callable[[str], Settings]:
  """`id -> settings` of a suite written to gymnax's interface: the env
  params of the id's game, each with its default value."""
  return lambda suite_id: gymnax_adapter.params_settings(
      make_core(suite_id).params)


# name prefix -> suite, in the order help texts list them.
SUITES: Mapping[str, Suite] = {
    BRAX_PREFIX: Suite(brax_adapter.check_id, 'inverted_pendulum',
                       make_core=brax_adapter.make_core,
                       settings=brax_adapter.settings),
    BSUITE_PREFIX: Suite(bsuite_adapter.check_id, 'catch/0',
                         make_environment=bsuite_adapter.make_environment),
    CRAFTAX_PREFIX: Suite(craftax_adapter.check_id,
                          'Craftax-Classic-Symbolic-v1',
                          make_core=craftax_adapter.make_core,
                          references=craftax_adapter.REFERENCE_SCORES,
                          settings=_env_params(craftax_adapter.make_core)),
    ENVPOOL_PREFIX: Suite(envpool_adapter.check_id, 'Pong-v5',
                          make_environment=envpool_adapter.make_environment,
                          settings=envpool_adapter.settings,
                          make_batch=envpool_adapter.make_batch),
    GYM_PREFIX: Suite(gym_adapter.check_id, 'CartPole-v1',
                      make_environment=gym_adapter.make_environment),
    GYMNAX_PREFIX: Suite(gymnax_adapter.check_id, 'CartPole-v1',
                         make_core=gymnax_adapter.make_core,
                         references=gymnax_adapter.REFERENCE_SCORES,
                         settings=_env_params(gymnax_adapter.make_core),
                         evaluation=_minatar_acting(
                             lambda i: i.endswith('-MinAtar'))),
    JUMANJI_PREFIX: Suite(jumanji_adapter.check_id, 'Snake-v1',
                          make_core=jumanji_adapter.make_core,
                          references=jumanji_adapter.REFERENCE_SCORES),
    NAVIX_PREFIX: Suite(navix_adapter.check_id, 'Navix-Empty-5x5-v0',
                        make_core=navix_adapter.make_core,
                        references=navix_adapter.REFERENCE_SCORES),
    PGX_PREFIX: Suite(pgx_adapter.check_id, '2048',
                      make_core=pgx_adapter.make_core,
                      evaluation=_minatar_acting(
                          lambda i: i.startswith('minatar-'))),
    POPGYM_ARCADE_PREFIX: Suite(
        popgym_arcade_adapter.check_id, 'CountRecallEasy',
        make_core=popgym_arcade_adapter.make_core,
        references=popgym_arcade_adapter.REFERENCE_SCORES),
    XMINIGRID_PREFIX: Suite(xminigrid_adapter.check_id, 'MiniGrid-Empty-8x8',
                            make_core=xminigrid_adapter.make_core,
                            references=xminigrid_adapter.REFERENCE_SCORES),
}


def split(name: Any) -> Tuple[str, str]:
  """`(prefix, id)` of a suite's name, or `('', name)` for any other."""
  for prefix in SUITES:
    if isinstance(name, str) and name.startswith(prefix):
      return prefix, name[len(prefix):]
  return '', name


def descriptions() -> List[str]:
  """Each suite as '<prefix><id> (e.g. <prefix><example>)', for help."""
  return [f'{prefix}<id> (e.g. {prefix}{suite.example})'
          for prefix, suite in SUITES.items()]


def with_core() -> Tuple[str, ...]:
  """'<prefix><id>' of each suite whose games have a JAX core."""
  return tuple(f'{prefix}<id>' for prefix, suite in SUITES.items()
               if suite.make_core is not None)


def keyword_parameters(factory: Callable[..., Any],
                       skip: int = 0) -> Optional[Settings]:
  """The keyword parameters of `factory` after its first `skip` (a suite's
  factory takes its id first), less `seed`; None if it takes `**kwargs`
  (its keywords cannot be listed)."""
  parameters = list(inspect.signature(factory).parameters.values())[skip:]
  if any(p.kind is p.VAR_KEYWORD for p in parameters):
    return None
  return {p.name: p for p in parameters if p.name != 'seed' and
          p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def settings(prefix: str, suite_id: str) -> Optional[Settings]:
  """The settings of a valid suite id: the suite's own listing, else its
  factory's keywords; None where they cannot be listed (`gym:`)."""
  suite = SUITES[prefix]
  if suite.settings is not None:
    return suite.settings(suite_id)
  return keyword_parameters(suite.make_core or suite.make_environment, skip=1)
