"""Greedy evaluation of an agent's deployable policy.

`evaluate` plays a `dm_env` from Python; `evaluate_core` plays a JAX core's
episodes all at once under jit, with the same episode keys as a
`DmEnvironment` seeded alike, so both give the same figures.
"""

from typing import Dict

import dm_env
import jax
import jax.numpy as jnp
import numpy as np

from agents import agent as agent_lib
from agents import greedy
from environments import continuous_actions
from environments import functional
from environments import specs


def greedy_actions(agent: agent_lib.Agent,
                   environment_spec: specs.EnvironmentSpec,
                   params: agent_lib.Params,
                   observations: jax.Array) -> jax.Array:
  """`[N]` greedy actions of the deployable policy (`greedy.greedy_play`:
  the most probable legal action, or the deterministic continuous one)."""
  observations = jnp.asarray(observations)
  return greedy.greedy_play(environment_spec,
                            agent.deployable_policy(params, observations),
                            observations)


def make_greedy_policy(agent: agent_lib.Agent,
                       environment_spec: specs.EnvironmentSpec):
  """Jitted `(params, observation) -> action`, greedy (`greedy_actions`)."""
  return jax.jit(lambda params, observation: greedy_actions(
      agent, environment_spec, params, observation[None])[0])


def evaluate_core(core: functional.FunctionalEnvironment,
                  agent: agent_lib.Agent,
                  environment_spec: specs.EnvironmentSpec,
                  params: agent_lib.Params, env_key: jax.Array,
                  num_episodes: int) -> Dict[str, jax.Array]:
  """Greedy episodes `fold_in(env_key, j)`, j < num_episodes, in parallel.

  Pure (jit- and vmap-able); returns the mean return and episode length.
  """
  if num_episodes < 1:
    raise ValueError(f'num_episodes must be >= 1; got {num_episodes}.')
  keys = jax.vmap(jax.random.fold_in, (None, 0))(
      env_key, jnp.arange(num_episodes, dtype=jnp.int32))
  states, first = jax.vmap(core.reset)(keys)

  def body(carry):
    t, states, observations, done, returns, lengths = carry
    actions = greedy_actions(agent, environment_spec, params, observations)
    new_states, timesteps = jax.vmap(core.step)(states, actions)
    live = ~done
    keep = lambda a, b: jnp.where(
        live.reshape(live.shape + (1,) * (a.ndim - 1)), a, b)
    states = jax.tree.map(keep, new_states, states)
    returns = returns + jnp.where(live, timesteps.reward, 0.0)
    lengths = lengths + live.astype(jnp.int32)
    done = done | (timesteps.step_type == functional.LAST)
    return t + 1, states, timesteps.observation, done, returns, lengths

  carry = (jnp.zeros((), jnp.int32), states, first.observation,
           jnp.zeros(num_episodes, bool), jnp.zeros(num_episodes, jnp.float32),
           jnp.zeros(num_episodes, jnp.int32))
  *_, returns, lengths = jax.lax.while_loop(
      lambda c: (c[0] < core.max_episode_steps) & ~jnp.all(c[3]), body, carry)
  return {'mean_return': returns.mean(),
          'mean_episode_length': lengths.mean(dtype=jnp.float32)}


def evaluate(environment: dm_env.Environment, agent: agent_lib.Agent,
             params: agent_lib.Params, num_episodes: int) -> Dict[str, float]:
  """Plays `num_episodes` greedy episodes; returns mean return and length."""
  if num_episodes < 1:
    raise ValueError(f'num_episodes must be >= 1; got {num_episodes}.')
  greedy = make_greedy_policy(agent, specs.make_environment_spec(environment))
  returns, lengths = [], []
  for _ in range(num_episodes):
    timestep = environment.reset()
    episode_return, length = 0.0, 0
    while not timestep.last():
      timestep = environment.step(continuous_actions.host_action(
          greedy(params, timestep.observation)))
      episode_return += float(timestep.reward)
      length += 1
    returns.append(episode_return)
    lengths.append(length)
  return {
      'mean_return': float(np.mean(returns)),
      'mean_episode_length': float(np.mean(lengths)),
  }
