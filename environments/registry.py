"""The one registry of environments: each name's factories and facts.

Names are either a registered environment ('cartpole', 'catch',
'plane_strike', or one a user registers with `register`) or a prefixed id of
an external suite (`suites`): bsuite ('bsuite:catch/0') and Gymnasium
('gym:CartPole-v1') have a dm_env face only, so they run in the Python loop
only; the JAX suites' games (brax, Craftax, gymnax, Jumanji, Navix, pgx,
XLand-MiniGrid: 'gymnax:CartPole-v1') come as pure-JAX cores and run in
both loops, like our own games.

Everything the framework needs to know about a game lives in its
`EnvironmentEntry` (network widths, reference scores, the exported model's
input name), so no code elsewhere tests an environment's name.

A user's own environment, from their own module (see `examples/`):

    from environments import registry
    registry.register(registry.EnvironmentEntry(
        name='corridor', make_core=corridor.Corridor))

then `python -m experiments.train --imports=my_module --env=corridor`.
"""

import dataclasses
import functools
import inspect
import re
from typing import Any, Callable, Dict, Mapping, Optional, Tuple, Union

import dm_env

from environments import cartpole
from environments import catch
from environments import dm_env_wrapper
from environments import environment_batch
from environments import functional
from environments import name_hints
from environments import named_entries
from environments import plane_strike
from environments import reference_scores
from environments import suites

DEFAULT_INPUT_NAME = 'observation'
# Greedy episodes of a run's final evaluation (its score), and of the
# exported model's check in the TFLite interpreter (which steps the game in
# Python, one observation at a time: it shows the model plays as JAX does,
# and is sized to that), unless the game's entry fixes them.
DEFAULT_EVAL_EPISODES = 100
DEFAULT_EXPORT_CHECK_EPISODES = 10

CoreFactory = Callable[..., functional.FunctionalEnvironment]
DmEnvFactory = Callable[..., dm_env.Environment]
BatchFactory = Callable[..., environment_batch.EnvironmentBatch]
HiddenSizesFn = Callable[[Mapping[str, Any]], Optional[Tuple[int, ...]]]
HiddenSizes = Union[Tuple[int, ...], HiddenSizesFn]


@dataclasses.dataclass(frozen=True)
class EnvironmentEntry:
  """One registered environment and the facts the framework uses about it.

  Attributes:
    name: the name `--env` takes.
    make_core: `(**env_kwargs) -> FunctionalEnvironment`, the pure-JAX core
      (runs in both loops); None for an environment that only has a dm_env
      face.
    make_environment: `(seed, **env_kwargs) -> dm_env.Environment`; None
      means the core's dm_env face (`DmEnvironment`). One of the two
      factories is needed.
    hidden_sizes: widths of the default network's hidden layers for this
      game, e.g. (64, 64), or `env_kwargs -> widths` where they depend on
      the settings; None (or returning None) means the network's default.
    reference_score: how a comparison scores and normalises a run here; None
      means raw returns, outside the aggregate.
    input_name: name of the exported TFLite model's input tensor.
    title: the game's name for people (figure titles, report headings);
      None: `name`.
    contract_episodes: games that a run's final evaluation and its exported
      model's check both play by default, where the game fixes how it is
      judged (Plane Strike: the app's model is judged on 1000 games); None:
      the framework's defaults (`DEFAULT_EVAL_EPISODES` and
      `DEFAULT_EXPORT_CHECK_EPISODES`).
    return_statistic: what the training logs call the mean return of the
      episodes played (`train/<it>`, `eval/<it>`); None leaves it out where
      it tells nothing: the same in every episode (Plane Strike: 8, every
      plane cell hit) or equal to the length (CartPole: +1 a step).
    length_statistic: the same for the mean episode length (Plane Strike:
      'strikes'); None where it tells nothing (Catch: the ball's fall).
    evaluation: how the field evaluates on this game, the default of
      `--eval_policy` (`EVALUATIONS`): 'greedy' (the deployable policy, as
      our exported model plays), or 'acting' (the policy as it acts, as
      MinAtar results are reported: sampled from a policy agent's
      probabilities, ε-greedy for value agents).
    make_batch: `(seed, num_envs, **env_kwargs) -> EnvironmentBatch`, N
      environments the Python loop steps in one call (EnvPool's pool);
      None: it steps N of `environment`'s one after another.
  """
  name: str
  make_core: Optional[CoreFactory] = None
  make_environment: Optional[DmEnvFactory] = None
  hidden_sizes: Optional[HiddenSizes] = None
  reference_score: Optional[reference_scores.ReferenceScore] = None
  input_name: str = DEFAULT_INPUT_NAME
  title: Optional[str] = None
  contract_episodes: Optional[int] = None
  return_statistic: Optional[str] = 'episode_return'
  length_statistic: Optional[str] = 'episode_length'
  evaluation: str = suites.GREEDY_EVALUATION
  make_batch: Optional[BatchFactory] = None

  def __post_init__(self):
    if not isinstance(self.name, str) or not self.name:
      raise ValueError(f'Environment name must be a non-empty string; got '
                       f'{self.name!r}.')
    if not self.title:
      object.__setattr__(self, 'title', self.name)
    if self.make_core is None and self.make_environment is None:
      raise ValueError(f'Environment {self.name!r} needs make_core (a '
                       f'pure-JAX core) or make_environment (a dm_env '
                       f'factory).')
    sizes = self.hidden_sizes
    if not (sizes is None or callable(sizes) or (
        isinstance(sizes, tuple) and sizes and
        all(isinstance(w, int) and w > 0 for w in sizes))):
      raise ValueError(f'Environment {self.name!r}: hidden_sizes must be a '
                       f'tuple of positive ints or a function of the '
                       f'environment settings; got {sizes!r}.')
    if not (self.reference_score is None or isinstance(
        self.reference_score, reference_scores.ReferenceScore)):
      raise ValueError(f'Environment {self.name!r}: reference_score must '
                       f'be a reference_scores.ReferenceScore; got '
                       f'{self.reference_score!r}.')
    episodes = self.contract_episodes
    if episodes is not None and (isinstance(episodes, bool) or
                                 not isinstance(episodes, int) or
                                 episodes < 1):
      raise ValueError(f'Environment {self.name!r}: contract_episodes must '
                       f'be a positive int or None; got {episodes!r}.')
    if self.evaluation not in suites.EVALUATIONS:
      raise ValueError(f'Environment {self.name!r}: evaluation must be one '
                       f'of {", ".join(suites.EVALUATIONS)}; got '
                       f'{self.evaluation!r}.')
    names = [n for n in (self.return_statistic, self.length_statistic)
             if n is not None]
    if len(set(names)) != len(names) or not all(
        isinstance(n, str) and re.fullmatch(r'[a-z][a-z0-9_]*', n)
        for n in names):
      raise ValueError(f'Environment {self.name!r}: return_statistic and '
                       f'length_statistic must be distinct lower-case '
                       f'names (letters, digits, _) or None; got '
                       f'{self.return_statistic!r}, '
                       f'{self.length_statistic!r}.')


  @property
  def has_core(self) -> bool:
    """Whether the game has a pure-JAX core (runs in the compiled loop)."""
    return self.make_core is not None

  def core(self, **kwargs: Any) -> functional.FunctionalEnvironment:
    """The game's pure-JAX core (for compiled loops)."""
    if self.make_core is None:
      raise ValueError(
          f'Environment {self.name!r} has no JAX core: it runs in the Python '
          f'loop only. Environments with one: {", ".join(with_core())}.')
    return self.make_core(**kwargs)

  def environment(self, seed: Optional[int] = None,
                  **kwargs: Any) -> dm_env.Environment:
    """The game as a seeded `dm_env.Environment`: its own dm_env factory,
    else its core's face. `kwargs`: the factory's options (see
    `make_environment`)."""
    if self.make_environment is not None:
      return self.make_environment(seed=seed, **kwargs)
    return dm_env_wrapper.DmEnvironment(self.core(**kwargs), seed)

  def batch(self, seed: Optional[int], num_envs: int, **kwargs: Any
           ) -> Optional[environment_batch.EnvironmentBatch]:
    """`num_envs` environments stepped in one call (seeded with `seed`), or
    None where the game has no such engine (the Python loop then steps
    `environment`'s one after another)."""
    if self.make_batch is None:
      return None
    return self.make_batch(seed, num_envs, **kwargs)

  def default_hidden_sizes(self, env_kwargs: Mapping[str, Any]
                          ) -> Optional[Tuple[int, ...]]:
    """Default network widths under settings `env_kwargs`; None: the
    network's."""
    sizes = self.hidden_sizes
    if callable(sizes):
      sizes = sizes(env_kwargs)
    return None if sizes is None else tuple(int(s) for s in sizes)

  @property
  def score_metric(self) -> str:
    """The evaluation quantity that scores the game (return by default)."""
    return ('mean_return' if self.reference_score is None
            else self.reference_score.metric)

  @property
  def eval_episodes(self) -> int:
    """Default greedy episodes of a run's final evaluation."""
    return self.contract_episodes or DEFAULT_EVAL_EPISODES

  @property
  def export_check_episodes(self) -> int:
    """Default greedy games the exported model plays in its check."""
    return self.contract_episodes or DEFAULT_EXPORT_CHECK_EPISODES

  @property
  def episode_statistics(self) -> Dict[str, str]:
    """What the logs call the informative episode statistics:
    `{'episode_return': …, 'episode_length': …}`, each only where the entry
    does not leave it out."""
    statistics = {'episode_return': self.return_statistic,
                  'episode_length': self.length_statistic}
    return {k: v for k, v in statistics.items() if v is not None}


def _plane_strike_hidden_sizes(env_kwargs: Mapping[str, Any]
                              ) -> Tuple[int, ...]:
  """The reference app's layout (2·B², B²), so exports match its model."""
  cells = env_kwargs.get('board_size', 8)**2
  return (2 * cells, cells)


_BUILT_IN = (
    # +1 a step: the return is the length.
    EnvironmentEntry('cartpole', make_core=cartpole.CartPole,
                     reference_score=reference_scores.CARTPOLE,
                     title='CartPole', length_statistic=None),
    # Every game lasts the ball's fall.
    EnvironmentEntry('catch', make_core=catch.Catch,
                     reference_score=reference_scores.CATCH, title='Catch',
                     length_statistic=None),
    # Every game ends with the 8 plane cells hit (return 8): its length,
    # the strikes, is what tells.
    EnvironmentEntry('plane_strike', make_core=plane_strike.PlaneStrike,
                     hidden_sizes=_plane_strike_hidden_sizes,
                     reference_score=reference_scores.PLANE_STRIKE,
                     input_name='board', title='Plane Strike',
                     contract_episodes=1000, return_statistic=None,
                     length_statistic='strikes'),
)


# The registry: built-in entries, then whatever users `register`.
_ENTRIES = named_entries.NamedEntries('Environment', _BUILT_IN)


def register(entry: EnvironmentEntry,
             replace: bool = False) -> EnvironmentEntry:
  """Adds `entry` (see `NamedEntries.register`); its name may not hold ':',
  which marks a suite's id."""
  if ':' in entry.name:
    raise ValueError(f'Environment name must not contain ":" (reserved for '
                     f'suites); got {entry.name!r}.')
  return _ENTRIES.register(entry, replace)


def with_core() -> Tuple[str, ...]:
  """The registered games with a JAX core, then '<prefix><id>' of each
  suite whose games have one (for messages naming them)."""
  return (_ENTRIES.names(lambda e: e.make_core is not None) +
          suites.with_core())


def names() -> Tuple[str, ...]:
  """Names of the registered environments (suites' ids not included)."""
  return _ENTRIES.names()


def describe_names() -> str:
  """The valid `--env` values, for help texts and errors."""
  described = suites.descriptions()
  return (f'{", ".join(names())}, or {", ".join(described[:-1])} or '
          f'{described[-1]}')


def check_name(name: str) -> None:
  """Raises ValueError, listing the valid names, unless `name` is valid.

  Suite names are checked against their suite too (an unknown id raises
  with that suite's list of ids; so does a suite that is not installed).
  """
  prefix, suite_id = suites.split(name)
  if prefix and suite_id:
    suites.SUITES[prefix].check_id(suite_id)
  elif not prefix and _ENTRIES.get(name) is not None:
    return
  else:
    hint = name_hints.did_you_mean(name, names())
    raise ValueError(f'Unknown environment {name!r}.{hint} Valid names: '
                     f'{describe_names()}. Your own environment: register it '
                     f'in a module named by --imports.')


def get(name: str) -> Optional[EnvironmentEntry]:
  """The registered entry of valid name `name`; None for a suite's id."""
  check_name(name)
  return _ENTRIES.get(name)


def resolve(name: str) -> EnvironmentEntry:
  """The entry of any valid name: a registered game's, or one made for a
  suite's id (its factories bound to the id; its reference score, title
  and evaluation from the suite). Resolve a name once and use the entry.

  Raises:
    ValueError: listing the valid names, unless `name` is valid.
  """
  entry = get(name)
  if entry is not None:
    return entry
  prefix, suite_id = suites.split(name)
  suite = suites.SUITES[prefix]
  return EnvironmentEntry(
      name=name,
      make_core=(None if suite.make_core is None else
                 functools.partial(suite.make_core, suite_id)),
      make_environment=(None if suite.make_environment is None else
                        functools.partial(suite.make_environment, suite_id)),
      reference_score=suite.references.get(suite_id),
      title=f'{suite_id} ({prefix[:-1]})',
      evaluation=suite.evaluation(suite_id),
      make_batch=(None if suite.make_batch is None else
                  functools.partial(suite.make_batch, suite_id)))


def has_functional(name: str) -> bool:
  """Whether valid name `name` has a pure-JAX core (raises if invalid)."""
  return resolve(name).has_core


def make_functional(name: str,
                    **kwargs: Any) -> functional.FunctionalEnvironment:
  """The pure-JAX core of environment `name` (for compiled loops)."""
  return resolve(name).core(**kwargs)


def make_environment(name: str,
                     seed: Optional[int] = None,
                     **kwargs: Any) -> dm_env.Environment:
  """Environment `name` as a seeded `dm_env.Environment`.

  Args:
    name: a name of `names()`, or a suite's '<prefix><id>' (see
      `describe_names`).
    seed: seeds the episodes (see each adapter for how external suites use
      it).
    **kwargs: options of the environment's factory (of `gymnasium.make`;
      gymnax env params; pgx's `max_steps`; a brax task's options and
      `episode_length`); bsuite ids take none (the id fixes the settings).

  Returns:
    The environment.
  """
  return resolve(name).environment(seed, **kwargs)


def settings(name: str) -> Optional[Dict[str, inspect.Parameter]]:
  """The settings (`env_kwargs` keys) of environment `name` as keyword
  parameters (default, annotation): its factory's, or its suite's listing
  (a gymnax game's env params, a brax task's options); None where they
  cannot be listed (a factory of `**kwargs`, as `gym:`'s gymnasium.make)."""
  prefix, suite_id = suites.split(name)
  entry = get(name)
  if entry is None:
    return suites.settings(prefix, suite_id)
  return suites.keyword_parameters(entry.make_core or entry.make_environment)


def hidden_sizes(name: str, env_kwargs: Mapping[str, Any]
                ) -> Optional[Tuple[int, ...]]:
  """Default network widths for environment `name`; None: the network's."""
  return resolve(name).default_hidden_sizes(env_kwargs)


def reference_score(name: str) -> Optional[reference_scores.ReferenceScore]:
  """How runs on `name` are scored; None for raw returns (suite ids too,
  unless their suite has a measured reference, as gymnax:CartPole-v1)."""
  return resolve(name).reference_score


def score_metric(name: str) -> str:
  """The evaluation quantity that scores `name` (return by default)."""
  return resolve(name).score_metric


def title(name: str) -> str:
  """Environment `name` for people: its entry's title, or a suite's id
  with the suite named (e.g. 'CartPole-v1 (gymnax)')."""
  return resolve(name).title


def input_name(name: str) -> str:
  """The exported model's input tensor name for environment `name`."""
  return resolve(name).input_name
