"""The actor: picks actions for one environment with the latest params."""

from typing import Tuple

import jax
import numpy as np

from agents import agent as agent_lib


class Actor:
  """Wraps `agent.act` for single, unbatched observations from a dm_env.

  The PRNG key is split inside the jitted call, so each step costs one
  dispatch. `update` swaps in new params from the learner.
  """

  def __init__(self, agent: agent_lib.Agent, params: agent_lib.Params,
               key: jax.Array):

    def act(params, key, observation):
      key, act_key = jax.random.split(key)
      actions, extras = agent.act(params, act_key, observation[None])
      return actions[0], jax.tree.map(lambda x: x[0], extras), key

    self._act = jax.jit(act)
    self._params = params
    self._key = key

  def select_action(self,
                    observation: np.ndarray) -> Tuple[int, agent_lib.Extras]:
    action, extras, self._key = self._act(self._params, self._key,
                                          observation)
    return int(action), extras

  def update(self, params: agent_lib.Params) -> None:
    self._params = params

  @property
  def key(self) -> jax.Array:
    """The actor's PRNG key, for checkpoints."""
    return self._key
