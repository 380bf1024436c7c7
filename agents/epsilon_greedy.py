"""ε-greedy acting over legal actions, for the agents that act by Q-values.

Not `rlax.epsilon_greedy`: its random branch is uniform over all actions,
illegal ones included. Here both branches respect the legal mask
(`agents.action_masking`): the greedy action is the best legal one and
the random one is uniform over the legal ones. ε decays linearly in
environment steps (`schedule`). A recurrent Q-network acts the same way,
step by step with its state (`recurrence`).
"""

from typing import Any, Callable, Dict, Tuple

import jax
import jax.numpy as jnp
import optax

from agents import action_masking
from agents import agent as agent_lib
from agents import recurrent_policy
from environments import specs
from networks import recurrent

QValues = Callable[[Any, jax.Array], jax.Array]


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


def policy(environment_spec: specs.EnvironmentSpec, q_values: QValues
          ) -> Tuple[Callable[..., Tuple[jax.Array, Dict[str, jax.Array]]],
                     Callable[..., jax.Array]]:
  """`(act, deployable_policy)` of an agent acting by `q_values(params,
  observations [N, ...]) -> [N, A]`, whose actor params are `{'online':
  params, 'epsilon': ε}` (`Agent.act` and `Agent.deployable_policy`):
  ε-greedy actions (no extras), and the masked softmax of the Q-values,
  whose argmax is the greedy legal action the export converts."""

  def act_fn(params, key, observations):
    return act(environment_spec, key, observations,
               q_values(params['online'], observations),
               params['epsilon']), {}

  def deployable_policy(params, observations):
    return action_masking.policy_probabilities(
        environment_spec, observations,
        q_values(params['online'], observations))

  return act_fn, deployable_policy


def recurrence(environment_spec: specs.EnvironmentSpec,
               network: recurrent.RecurrentNetwork) -> agent_lib.Recurrence:
  """`policy`'s acting for a recurrent Q-network (outputs `[N, A]`
  Q-values), its state threaded: ε-greedy actions recording what the
  learner replays each sequence from (`recurrent_policy.FIRST` and
  `CORE_STATE`), and the masked softmax of the Q-values. Actor params are
  `{'online': params, 'epsilon': ε}`, as `policy`'s."""

  def act_fn(params, key, observations, first, state):
    q_values, new_state = network.step(params['online'], observations, first,
                                       state)
    actions = act(environment_spec, key, observations, q_values,
                  params['epsilon'])
    extras = {recurrent_policy.FIRST: jnp.asarray(first, bool),
              recurrent_policy.CORE_STATE: state}
    return actions, extras, new_state

  def deployable_policy(params, observations, first, state):
    q_values, new_state = network.step(params['online'], observations, first,
                                       state)
    return action_masking.policy_probabilities(
        environment_spec, observations, q_values), new_state

  return agent_lib.Recurrence(initial_state=network.initial_state,
                              act=act_fn, deployable_policy=deployable_policy)
