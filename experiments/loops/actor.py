"""The actor: picks actions for one environment with the latest params.

Action keys are addressed by position, not drawn from a chain of splits:
step `t` of training episode `e` acts with `step_key(key, e, t)`. The
compiled loop derives the same key for the same (episode, step) however many
environments run side by side, so both loops sample the same actions.
"""

from typing import Tuple

import jax
import numpy as np

from agents import agent as agent_lib


def step_key(key: jax.Array, episode: jax.Array, step: jax.Array) -> jax.Array:
  """The PRNG key for step `step` of episode `episode` (both int32)."""
  return jax.random.fold_in(jax.random.fold_in(key, episode), step)


class Actor:
  """Wraps `agent.act` for single, unbatched observations from a dm_env.

  Call `start_episode` at each episode start; `select_action` then counts
  steps. `update` swaps in new params from the learner.
  """

  def __init__(self, agent: agent_lib.Agent, params: agent_lib.Params,
               key: jax.Array, next_episode: int = 0):

    def act(params, key, episode, step, observation):
      actions, extras = agent.act(params, step_key(key, episode, step),
                                  observation[None])
      return actions[0], jax.tree.map(lambda x: x[0], extras)

    self._act = jax.jit(act)
    self._params = params
    self._key = key
    self._next_episode = next_episode
    self._episode = None
    self._step = 0

  def start_episode(self) -> None:
    """The following actions belong to the next training episode."""
    self._episode = np.int32(self._next_episode)
    self._next_episode += 1
    self._step = 0

  def select_action(self,
                    observation: np.ndarray) -> Tuple[int, agent_lib.Extras]:
    if self._episode is None:
      raise RuntimeError('Call start_episode before the first action.')
    action, extras = self._act(self._params, self._key, self._episode,
                               np.int32(self._step), observation)
    self._step += 1
    return int(action), extras

  def update(self, params: agent_lib.Params) -> None:
    self._params = params

  @property
  def next_episode(self) -> int:
    """The training episode `start_episode` begins next."""
    return self._next_episode

  @property
  def key(self) -> jax.Array:
    """The actor's PRNG key, for checkpoints."""
    return self._key
