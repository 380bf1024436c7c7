"""Greedy evaluation of an agent's deployable policy on a dm_env."""

from typing import Dict

import dm_env
import jax
import jax.numpy as jnp
import numpy as np

from agents import action_masking
from agents import agent as agent_lib
from environments import specs


def make_greedy_policy(agent: agent_lib.Agent,
                       environment_spec: specs.EnvironmentSpec):
  """Jitted `(params, observation) -> action`: argmax among legal actions."""

  def greedy(params, observation):
    observations = observation[None]
    probabilities = agent.action_probabilities(params, observations)
    legal = action_masking.legal_actions(environment_spec, observations)
    if legal is not None:
      probabilities = jnp.where(legal, probabilities, -1.0)
    return jnp.argmax(probabilities[0], axis=-1)

  return jax.jit(greedy)


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
      timestep = environment.step(int(greedy(params, timestep.observation)))
      episode_return += float(timestep.reward)
      length += 1
    returns.append(episode_return)
    lengths.append(length)
  return {
      'mean_return': float(np.mean(returns)),
      'mean_episode_length': float(np.mean(lengths)),
  }
