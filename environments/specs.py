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

LegalActionsFn = Callable[[jax.Array], jax.Array]


@dataclasses.dataclass(frozen=True)
class EnvironmentSpec:
  """Specs of an environment plus its legal-action function.

  Attributes:
    observations: spec of one (unbatched) observation.
    actions: spec of one action; agents here need a `DiscreteArray`.
    rewards: spec of one reward.
    discounts: spec of one discount.
    legal_actions: maps observations `[..., *obs_shape]` to a boolean mask
      `[..., num_actions]` (True = legal). None when every action is legal.
  """

  observations: specs.Array
  actions: specs.Array
  rewards: specs.Array
  discounts: specs.Array
  legal_actions: Optional[LegalActionsFn] = None

  @property
  def num_actions(self) -> int:
    if not isinstance(self.actions, specs.DiscreteArray):
      raise ValueError(
          f'This agent needs a discrete action space (dm_env DiscreteArray); '
          f'the environment has {self.actions!r}.')
    return self.actions.num_values


def make_environment_spec(environment: dm_env.Environment) -> EnvironmentSpec:
  """Reads the specs (and `legal_actions`, if defined) off an environment."""
  return EnvironmentSpec(
      observations=environment.observation_spec(),
      actions=environment.action_spec(),
      rewards=environment.reward_spec(),
      discounts=environment.discount_spec(),
      legal_actions=getattr(environment, 'legal_actions', None),
  )
