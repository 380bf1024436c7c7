"""ε-greedy acting over legal actions, for the agents that act by Q-values.

Not `rlax.epsilon_greedy`: its random branch is uniform over all actions,
illegal ones included. Here both branches respect the legal mask
(`agents.action_masking`): the greedy action is the best legal one and
the random one is uniform over the legal ones. ε decays linearly in
environment steps (`schedule`).
"""

import jax
import jax.numpy as jnp
import optax

from agents import action_masking
from environments import specs


def schedule(start: float, end: float, decay_steps: int) -> optax.Schedule:
  """ε as a function of environment steps: linear, then constant."""
  return optax.linear_schedule(start, end, decay_steps)


def act(environment_spec: specs.EnvironmentSpec, key: jax.Array,
        observations: jax.Array, q_values: jax.Array,
        epsilon: jax.Array) -> jax.Array:
  """int32 `[N]` actions: with probability ε a uniformly random legal
  action, else the legal action of highest `q_values` (`[N, A]`)."""
  legal = action_masking.legal_actions(environment_spec, observations)
  greedy = jnp.argmax(action_masking.mask_logits(q_values, legal), -1)
  explore_key, random_key = jax.random.split(key)
  uniform_legal = action_masking.mask_logits(jnp.zeros_like(q_values), legal)
  random = jax.random.categorical(random_key, uniform_legal)
  explore = jax.random.uniform(
      explore_key, (observations.shape[0],)) < epsilon
  return jnp.where(explore, random, greedy).astype(jnp.int32)
