"""What an agent needs to know about an environment, in one value.

`EnvironmentSpec` bundles the dm_env specs with an optional legal-action
function. The legal-action function is a pure function of the observation, so
the same agent code can mask illegal moves in the Python loop, inside a jitted
compiled loop, and in an exported TFLite model.
"""

import dataclasses
from typing import Callable, Optional

import dm_env
from dm_env import specs
import jax
import numpy as np

from environments import continuous_actions

LegalActionsFn = Callable[[jax.Array], jax.Array]

DISCRETE = 'discrete'  # Actions of a dm_env DiscreteArray.
CONTINUOUS = 'continuous'  # Float actions `[action_dim]` (BoundedArray).


@dataclasses.dataclass(frozen=True)
class EnvironmentSpec:
  """Specs of an environment plus its legal-action function.

  Attributes:
    observations: spec of one (unbatched) observation.
    actions: spec of one action: a `DiscreteArray`, or for continuous
      control a float `BoundedArray` of shape `[action_dim]`.
    rewards: spec of one reward.
    discounts: spec of one discount.
    legal_actions: maps observations `[..., *obs_shape]` to a boolean mask
      `[..., num_actions]` (True = legal). None when every action is legal.
    num_players: 1, or 2 for a two-player game (`environments.two_player`:
      rewards and observations are the mover's), which only agents that
      learn by self-play take.
  """

  observations: specs.Array
  actions: specs.Array
  rewards: specs.Array
  discounts: specs.Array
  legal_actions: Optional[LegalActionsFn] = None
  num_players: int = 1

  @property
  def is_continuous(self) -> bool:
    """Whether actions are continuous (a float array spec)."""
    return continuous_actions.is_continuous(self.actions)

  @property
  def action_space(self) -> Optional[str]:
    """`DISCRETE` (a `DiscreteArray`), `CONTINUOUS` (float `[action_dim]`)
    or None (anything else, which no agent here acts in)."""
    if isinstance(self.actions, specs.DiscreteArray):
      return DISCRETE
    if self.is_continuous and len(self.actions.shape) == 1:
      return CONTINUOUS
    return None

  @property
  def num_actions(self) -> int:
    """Number of discrete actions; ValueError on other action specs."""
    if not isinstance(self.actions, specs.DiscreteArray):
      raise ValueError(
          f'This needs a discrete action space (dm_env DiscreteArray); the '
          f'environment has {continuous_actions.describe(self.actions)}.')
    return self.actions.num_values

  @property
  def action_dim(self) -> int:
    """Size of a continuous action `[action_dim]`; ValueError on others."""
    if not self.is_continuous or len(self.actions.shape) != 1:
      raise ValueError(
          f'This needs continuous actions of shape [action_dim] (a float '
          f'dm_env BoundedArray); the environment has '
          f'{continuous_actions.describe(self.actions)}.')
    return int(self.actions.shape[0])


def make_spec(observations: specs.Array, actions: specs.Array,
              legal_actions: Optional[LegalActionsFn] = None
             ) -> EnvironmentSpec:
  """A spec of `observations` and `actions` with float32 scalar rewards
  and discounts in [0, 1], as one-player games have: for building an agent
  without an environment (a test, a notebook)."""
  return EnvironmentSpec(
      observations=observations, actions=actions,
      rewards=specs.Array((), np.float32, 'reward'),
      discounts=specs.BoundedArray((), np.float32, 0.0, 1.0, 'discount'),
      legal_actions=legal_actions)


def make_environment_spec(environment: dm_env.Environment) -> EnvironmentSpec:
  """Reads the specs (and `legal_actions`, if defined) off an environment."""
  return EnvironmentSpec(
      observations=environment.observation_spec(),
      actions=environment.action_spec(),
      rewards=environment.reward_spec(),
      discounts=environment.discount_spec(),
      legal_actions=getattr(environment, 'legal_actions', None),
      num_players=getattr(environment, 'num_players', 1),
  )
