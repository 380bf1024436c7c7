"""Acting and replaying with a recurrent policy or actor-critic network.

The actor steps the network one observation at a time, carrying its state
(`networks.recurrent`), and records in its extras what the learner needs
to replay each sequence exactly: the step's `first` flag and the state it
started from (`core_state`). The learner replays a `[T, B]` sequence from
its first step's state (`replay`), and finds the values that bootstrapping
needs (`next_values`) from the state after each step, which is the state
the next step started from (`core_state[t + 1]`, then the state after the
last step). Discrete actions, illegal ones masked as the feed-forward
agents mask them (`action_masking`).
"""

from typing import Tuple

import jax
import jax.numpy as jnp

from agents import action_masking
from agents import agent as agent_lib
from agents import policy_heads
from environments import specs
from networks import recurrent

FIRST = 'first'
CORE_STATE = 'core_state'


def _masked(environment_spec: specs.EnvironmentSpec, observations: jax.Array,
            logits: jax.Array) -> jax.Array:
  """Logits of any leading dims with illegal actions masked."""
  lead = logits.shape[:-1]
  flat = lambda x: x.reshape((-1,) + x.shape[len(lead):])
  return action_masking.mask_for(environment_spec, flat(observations),
                                 flat(logits)).reshape(logits.shape)


def check_environment(environment_spec: specs.EnvironmentSpec,
                      agent: str) -> None:
  """Raises ValueError unless the recurrent networks can act here."""
  if environment_spec.is_continuous:
    raise ValueError(f'{agent}: the recurrent networks act over discrete '
                     f'actions; this environment\'s are continuous. Use a '
                     f'feed-forward network (no --network, or '
                     f'mlp_gaussian_actor_critic).')


def _logits_and_values(outputs):
  """An actor-critic's `(logits, values)`, or a policy's logits and None."""
  return outputs if isinstance(outputs, tuple) else (outputs, None)


def recurrence(network: recurrent.RecurrentNetwork,
               environment_spec: specs.EnvironmentSpec
              ) -> agent_lib.Recurrence:
  """Stepwise acting: sampled actions with their log-probs (and values,
  for an actor-critic)."""

  def step(params, observations, first, state):
    outputs, new_state = network.step(params, observations, first, state)
    logits, values = _logits_and_values(outputs)
    return _masked(environment_spec, observations, logits), values, new_state

  def act(params, key, observations, first, state):
    logits, values, new_state = step(params, observations, first, state)
    actions = jax.random.categorical(key, logits).astype(jnp.int32)
    extras = {'log_prob': policy_heads.categorical_log_prob(logits, actions),
              FIRST: jnp.asarray(first, bool), CORE_STATE: state}
    if values is not None:
      extras['value'] = values
    return actions, extras, new_state

  def deployable_policy(params, observations, first, state):
    logits, _, new_state = step(params, observations, first, state)
    return action_masking.policy_probabilities(
        environment_spec, observations, logits), new_state

  return agent_lib.Recurrence(initial_state=network.initial_state, act=act,
                              deployable_policy=deployable_policy)


def replay(network: recurrent.RecurrentNetwork,
           environment_spec: specs.EnvironmentSpec, params,
           observations: jax.Array, extras: agent_lib.Extras
          ) -> Tuple[jax.Array, jax.Array, agent_lib.RecurrentState]:
  """`(masked logits [T, B, A], values [T, B] (None for a policy), state
  after the last step)` of sequences `observations [T, B, ...]` acted with
  `extras`."""
  start = jax.tree.map(lambda x: x[0], extras[CORE_STATE])
  outputs, final = network.unroll(params, observations, extras[FIRST], start)
  logits, values = _logits_and_values(outputs)
  return _masked(environment_spec, observations, logits), values, final


def final_state(network: recurrent.RecurrentNetwork, params,
                observations: jax.Array, extras: agent_lib.Extras
               ) -> agent_lib.RecurrentState:
  """The state after the last step of sequences acted with `extras`: the
  last step taken again from the state it started from (one step, not a
  replay of the sequence)."""
  _, state = network.step(
      params, observations[-1], extras[FIRST][-1],
      jax.tree.map(lambda x: x[-1], extras[CORE_STATE]))
  return state


def next_outputs(network: recurrent.RecurrentNetwork, params,
                 next_observations: jax.Array, extras: agent_lib.Extras,
                 final_state: agent_lib.RecurrentState):
  """The network's outputs (`[T, B, ...]` leaves) on `next_observations[t]`
  of each step's own episode, stepped from the state after step t (never a
  reset: the observation continues step t's episode)."""
  after = jax.tree.map(
      lambda states, last: jnp.concatenate([states[1:], last[None]]),
      extras[CORE_STATE], final_state)
  t, b = next_observations.shape[:2]
  flat = lambda x: x.reshape((t * b,) + x.shape[2:])
  outputs, _ = network.step(params, flat(next_observations),
                            jnp.zeros(t * b, bool), jax.tree.map(flat, after))
  return jax.tree.map(lambda x: x.reshape((t, b) + x.shape[1:]), outputs)


def next_values(network: recurrent.RecurrentNetwork, params,
                next_observations: jax.Array, extras: agent_lib.Extras,
                final_state: agent_lib.RecurrentState) -> jax.Array:
  """`[T, B]` v(o_{t+1}) of each step's own episode, an actor-critic's
  values of `next_outputs`."""
  _, values = next_outputs(network, params, next_observations, extras,
                           final_state)
  return values


def refuse_stateless(*args, **kwargs):
  """A recurrent agent's plain `act` and `deployable_policy`: they need a
  state, so they refuse to run without one."""
  del args, kwargs
  raise TypeError('A recurrent agent acts with a state: use '
                  'agent.recurrence (or agents.agent.act_with_state / '
                  'deployable_with_state, which serve every agent).')


def agent(init, actor_params, update, data: agent_lib.DataRequirements,
          network: recurrent.RecurrentNetwork,
          environment_spec: specs.EnvironmentSpec) -> agent_lib.Agent:
  """An agent that acts with `network`'s state (`Agent.recurrence`); its
  plain `act` and `deployable_policy` refuse to run (`refuse_stateless`:
  `agent.act_with_state` serves every agent)."""
  return agent_lib.Agent(
      init=init, actor_params=actor_params, act=refuse_stateless,
      update=update, deployable_policy=refuse_stateless, data=data,
      recurrence=recurrence(network, environment_spec))
