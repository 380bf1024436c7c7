"""The learner: owns the learner state and applies jitted updates."""

import jax

from agents import agent as agent_lib


class Learner:
  """Applies `agent.update` under `jax.jit` to batches of trajectories."""

  def __init__(self, agent: agent_lib.Agent, state):
    self._agent = agent
    self._update = jax.jit(agent.update, donate_argnums=0)
    self._state = state

  def step(self, trajectory: agent_lib.Trajectory) -> agent_lib.Metrics:
    """One update; returns its metrics (device arrays, not yet fetched)."""
    self._state, metrics = self._update(self._state, trajectory)
    return metrics

  @property
  def state(self):
    return self._state

  @property
  def params(self) -> agent_lib.Params:
    """Params for the actor."""
    return self._agent.actor_params(self._state)
