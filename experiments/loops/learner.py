"""The learner: owns the learner state and applies jitted updates."""

import jax
import jax.numpy as jnp

from agents import agent as agent_lib


def max_abs(tree) -> jax.Array:
  """Largest |value| over a pytree's float leaves; NaN if any is NaN (the
  divergence guard's view of the parameters)."""
  leaves = [jnp.max(jnp.abs(x)) for x in jax.tree.leaves(tree)
            if jnp.issubdtype(jnp.asarray(x).dtype, jnp.floating) and
            jnp.size(x)]
  return jnp.max(jnp.stack(leaves)) if leaves else jnp.zeros(())


class Learner:
  """Applies `agent.update` under `jax.jit` to batches of trajectories."""

  def __init__(self, agent: agent_lib.Agent, state, donate: bool = True):
    """`donate`: let each update reuse the old state's buffers; False where
    params taken from it may still be in use (actors in another thread)."""
    self._agent = agent
    self._update = jax.jit(agent.update,
                           donate_argnums=0 if donate else ())
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
