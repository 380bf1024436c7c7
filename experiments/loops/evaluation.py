"""Greedy evaluation of an agent's deployable policy.

`evaluate` plays a `dm_env` from Python, one episode after another;
`evaluate_streams` plays the same episodes of an episode stream N at a
time, one batched greedy call per step of all N; `evaluate_core` plays a
JAX core's episodes all at once under jit, with the same episode keys as a
`DmEnvironment` seeded alike. All three give the same figures.
"""

from typing import Any, Callable, Dict, List, Optional, Sequence

import dm_env
import jax
import jax.numpy as jnp
import numpy as np

from agents import agent as agent_lib
from agents import greedy
from environments import continuous_actions
from environments import episode_streams
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


# Jitted `(params, observations [N, ...]) -> actions [N]`.
BatchedPolicy = Callable[[agent_lib.Params, Any], jax.Array]


def make_batched_greedy_policy(agent: agent_lib.Agent,
                               environment_spec: specs.EnvironmentSpec
                              ) -> BatchedPolicy:
  """Jitted greedy actions (`greedy_actions`) of a batch of observations;
  compiled once per batch size."""
  return jax.jit(lambda params, observations: greedy_actions(
      agent, environment_spec, params, observations))


class GreedyPolicy:
  """A trained policy's greedy actions (`greedy_actions`), compiled.

  `policy(observation)` gives one action; `policy(observations)` with a
  leading batch axis gives one per observation (NumPy arrays).
  """

  def __init__(self, agent: agent_lib.Agent,
               environment_spec: specs.EnvironmentSpec,
               params: agent_lib.Params):
    self.environment_spec = environment_spec
    self.params = params
    self._act = make_batched_greedy_policy(agent, environment_spec)

  def __call__(self, observations: Any) -> np.ndarray:
    spec = self.environment_spec.observations
    observations = np.asarray(observations, spec.dtype)
    single = observations.shape == tuple(spec.shape)
    batch = observations[None] if single else observations
    actions = np.asarray(self._act(self.params, batch))
    return actions[0] if single else actions


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
             params: agent_lib.Params, num_episodes: int,
             policy: Optional[BatchedPolicy] = None) -> Dict[str, float]:
  """Plays `num_episodes` greedy episodes; returns mean return and length.

  `policy`: `make_batched_greedy_policy`'s, kept by a caller that evaluates
  again (None compiles one for this call)."""
  if num_episodes < 1:
    raise ValueError(f'num_episodes must be >= 1; got {num_episodes}.')
  greedy = policy or make_batched_greedy_policy(
      agent, specs.make_environment_spec(environment))
  returns, lengths = [], []
  for _ in range(num_episodes):
    timestep = environment.reset()
    episode_return, length = 0.0, 0
    while not timestep.last():
      timestep = environment.step(continuous_actions.host_action(
          greedy(params, np.asarray(timestep.observation)[None])[0]))
      episode_return += float(timestep.reward)
      length += 1
    returns.append(episode_return)
    lengths.append(length)
  return {
      'mean_return': float(np.mean(returns)),
      'mean_episode_length': float(np.mean(lengths)),
  }


def evaluate_streams(environments: Sequence[episode_streams.EpisodeStream],
                     agent: agent_lib.Agent, params: agent_lib.Params,
                     stream: int, first_episode: int, num_episodes: int,
                     policy: Optional[BatchedPolicy] = None
                    ) -> Dict[str, float]:
  """Episodes `first_episode …` of `stream`, N at a time (N: the number of
  `environments`): what `evaluate` gives one environment seeked to
  `first_episode`, in a fraction of the actor calls.

  Each environment takes the next episode of the stream as it finishes
  one; every step, the live ones act in one batched call (finished ones
  pass their last observation, their actions unused, so one compiled shape
  serves every step).
  """
  if num_episodes < 1:
    raise ValueError(f'num_episodes must be >= 1; got {num_episodes}.')
  environments = list(environments)[:num_episodes]
  greedy = policy or make_batched_greedy_policy(
      agent, specs.make_environment_spec(environments[0]))
  returns: List[float] = [0.0] * num_episodes
  lengths: List[int] = [0] * num_episodes
  playing: List[int] = []  # Episode each environment plays (-1: none).
  observations = []
  for i, environment in enumerate(environments):
    environment.seek(stream, first_episode + i)
    observations.append(environment.reset().observation)
    playing.append(i)
  next_episode = len(environments)
  while any(episode >= 0 for episode in playing):
    actions = np.asarray(greedy(params, np.stack(observations)))
    for i, environment in enumerate(environments):
      episode = playing[i]
      if episode < 0:
        continue
      timestep = environment.step(continuous_actions.host_action(
          actions[i]))
      returns[episode] += float(timestep.reward)
      lengths[episode] += 1
      observations[i] = timestep.observation
      if timestep.last():
        if next_episode < num_episodes:
          environment.seek(stream, first_episode + next_episode)
          observations[i] = environment.reset().observation
          playing[i] = next_episode
          next_episode += 1
        else:
          playing[i] = -1
  return {
      'mean_return': float(np.mean(returns)),
      'mean_episode_length': float(np.mean(lengths)),
  }
