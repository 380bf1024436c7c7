"""The real bsuite environments, by bsuite id (e.g. 'catch/0').

bsuite environments are `dm_env.Environment`s already, so they are returned
as they are; they run in the Python loop only (no JAX core).

Seeding: `bsuite.load_from_id` takes no seed (every sweep setting that has a
'seed' entry leaves it None, i.e. unseeded), and it prints a banner. So this
module does what `load_from_id` does — look the id's settings up in
`bsuite.sweep.SETTINGS` and call `bsuite.load` — quietly, and seeds the
environment when its constructor takes a `seed` argument (the RNG of
episodes and noise). Settings that define the experiment itself, such as
'mapping_seed', are never changed.

Episodes are addressable (`episode_streams.EpisodeStream`): a seeded
environment comes wrapped in `EpisodeSeeded`, which gives episode k of seed s
its own RNG, `np.random.RandomState(episode_seed(s, k))`, in place of the
`_rng` of bsuite's environment (and of its reward wrapper, for the noise and
scale experiments). Environments whose constructor takes no seed ignore it:
bandit and discounting_chain are deterministic given their settings (wrapped
too: every episode is the same game); deep_sea_stochastic is random and
cannot be seeded through bsuite, so it comes as it is.

bsuite loads pandas (a third of a second), so it is imported inside the
functions that use it: only bsuite runs pay for it.
"""

import inspect
from typing import Any, List, Optional

import dm_env
import numpy as np

from environments import episode_streams
from environments import name_hints

INSTALL_HINT = "pip install -e '.[suites]'"
_LIST_IDS = ('list them with `from bsuite import sweep; print(sweep.SWEEP)`, '
             'e.g. catch/0, cartpole/0, deep_sea/0')


def _bsuite() -> Any:
  """bsuite's `bsuite` and `sweep` modules, imported on first use
  (ValueError if bsuite is missing)."""
  try:
    from bsuite import bsuite as bsuite_lib  # pylint: disable=g-import-not-at-top
    from bsuite import sweep  # pylint: disable=g-import-not-at-top
  except ImportError as e:
    raise ValueError(f'bsuite is not installed: {INSTALL_HINT} ({e}).'
                     ) from e
  return bsuite_lib, sweep


def check_id(bsuite_id: str) -> None:
  """Raises ValueError naming `bsuite_id` unless it is in `sweep.SWEEP`."""
  _, sweep = _bsuite()
  if bsuite_id in sweep.SETTINGS:
    return
  hint = name_hints.did_you_mean(bsuite_id, sweep.SWEEP)
  raise ValueError(f'Unknown bsuite id {bsuite_id!r}.{hint} Valid ids are '
                   f'bsuite.sweep.SWEEP: {_LIST_IDS}.')


def takes_seed(bsuite_id: str) -> bool:
  """Whether `make_environment(bsuite_id, seed)` applies the seed."""
  bsuite_lib, _ = _bsuite()
  check_id(bsuite_id)
  experiment, _ = bsuite_lib.unpack_bsuite_id(bsuite_id)
  constructor = bsuite_lib.EXPERIMENT_NAME_TO_ENVIRONMENT[experiment]
  return 'seed' in inspect.signature(constructor).parameters


# Experiments whose constructor takes no seed and whose episodes are all
# alike, so they are addressable without one.
_DETERMINISTIC = frozenset({'bandit', 'discounting_chain'})


def _rng_owners(environment: dm_env.Environment) -> List[Any]:
  """The environment and its bsuite wrappers (linked by `_env`) that keep
  the RNG their constructor's `seed` made in `_rng` (not, e.g., the RNG of
  a bandit's `mapping_seed`)."""
  owners, current = [], environment
  while current is not None:
    attributes = getattr(current, '__dict__', {})
    takes = 'seed' in inspect.signature(type(current).__init__).parameters
    if takes and isinstance(attributes.get('_rng'), np.random.RandomState):
      owners.append(current)
    current = attributes.get('_env')
  return owners


class EpisodeSeeded(dm_env.Environment):
  """A bsuite environment whose episodes are addressable (`seek`).

  Before episode k of seed s, the seeded `_rng` of the environment (and of
  its reward wrapper) is replaced by `RandomState(episode_seed(s, k))`. Without
  a seed, episodes draw from bsuite's own RNG. `step` after a LAST time step
  starts a new episode, as the dm_env contract asks.
  """

  def __init__(self, environment: dm_env.Environment, seed: Optional[int],
               reseed: bool = True):
    """`reseed`: False for deterministic environments (nothing to seed)."""
    self._environment = environment
    self._owners = _rng_owners(environment) if reseed else []
    self._seeds = episode_streams.EpisodeSeeds(seed)
    self._needs_reset = True

  @property
  def environment(self) -> dm_env.Environment:
    """The bsuite environment (e.g. for its `bsuite_info`)."""
    return self._environment

  def seek(self, seed: int, episode: int = 0) -> None:
    """The next `reset` plays episode `episode` of seed `seed`."""
    self._seeds.seek(seed, episode)
    self._needs_reset = True

  def reset(self) -> dm_env.TimeStep:
    seed = self._seeds.next()
    if seed is not None:
      for owner in self._owners:
        setattr(owner, '_rng', np.random.RandomState(seed))
    self._needs_reset = False
    return self._environment.reset()

  def step(self, action) -> dm_env.TimeStep:
    if self._needs_reset:
      return self.reset()
    timestep = self._environment.step(action)
    self._needs_reset = timestep.last()
    return timestep

  def observation_spec(self):
    return self._environment.observation_spec()

  def action_spec(self):
    return self._environment.action_spec()

  def reward_spec(self):
    return self._environment.reward_spec()

  def discount_spec(self):
    return self._environment.discount_spec()

  def close(self) -> None:
    self._environment.close()


def make_environment(bsuite_id: str,
                     seed: Optional[int] = None) -> dm_env.Environment:
  """bsuite environment `bsuite_id`, seeded where bsuite allows it.

  Args:
    bsuite_id: an id of `bsuite.sweep.SWEEP`, such as 'catch/0'.
    seed: seeds the environment's episodes; None keeps bsuite's default (for
      most environments, unseeded). Ignored where the constructor has no seed
      (see the module docstring).

  Returns:
    The bsuite environment, wrapped in `EpisodeSeeded` (its `environment`)
    unless it is random and unseedable (deep_sea_stochastic).

  Raises:
    ValueError: `bsuite_id` is not a bsuite id.
  """
  bsuite_lib, sweep = _bsuite()
  check_id(bsuite_id)
  experiment, _ = bsuite_lib.unpack_bsuite_id(bsuite_id)
  kwargs = dict(sweep.SETTINGS[bsuite_id])
  seeded = takes_seed(bsuite_id)
  if seed is not None and seeded:
    kwargs['seed'] = int(seed)
  environment = bsuite_lib.load(experiment, kwargs)
  if (experiment in _DETERMINISTIC or
      (seeded and _rng_owners(environment))):  # Else: an unknown RNG.
    return EpisodeSeeded(environment, seed, reseed=seeded)
  return environment
