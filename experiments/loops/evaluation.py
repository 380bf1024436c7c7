"""Evaluation of an agent's deployable policy, under an evaluation protocol.

`evaluate` plays a `dm_env` from Python, one episode after another;
`evaluate_streams` plays the same episodes of an episode stream N at a
time, one batched call per step of all N; `evaluate_core` plays a JAX
core's episodes all at once under jit, with the same episode keys as a
`DmEnvironment` seeded alike. All three give the same figures.
`play_episodes` and `core_episodes` give each episode's return and length
(`evaluate`'s and `evaluate_core`'s episodes).

The protocol (`Protocol`) says how the policy acts: `greedy` (the most
probable legal action, or the deterministic continuous one: what the
exported model does), `sampled` (drawn from the policy's probabilities)
or `epsilon_greedy` (a uniform legal action with probability ε, else
greedy: the value agents' usual evaluation), or for an agent that searches
`search` (the move its search picks, without exploration:
`Agent.play_with_search`; AlphaZero's searches from the core's states, so
only where there is a core). Its random draws come from
the evaluation stream's key, by episode and step, so every loop draws
alike; each evaluation reports whether all its episodes were identical
(a deterministic game under a greedy policy).
"""

import dataclasses
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

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


PROTOCOLS = ('greedy', 'sampled', 'epsilon_greedy', 'search')
# A two-player game's shares of games (`evaluate_core`'s `outcomes`).
OUTCOMES = ('won', 'drawn', 'lost')
# Folded into an evaluation stream's key for the policy's own draws.
_POLICY_DRAWS = 0x7EA1


@dataclasses.dataclass(frozen=True)
class Protocol:
  """How evaluation episodes are acted in (see the module docstring).

  Attributes:
    policy: one of `PROTOCOLS`; None (in settings that many runs share, as
      a comparison's): each run's default (`setup.eval_defaults`).
    epsilon: the exploration rate of `epsilon_greedy` (unused otherwise);
      None: each run's default.
  """
  policy: Optional[str] = 'greedy'
  epsilon: Optional[float] = 0.0

  def __post_init__(self):
    if self.policy is not None and self.policy not in PROTOCOLS:
      raise ValueError(f'eval_policy must be one of {", ".join(PROTOCOLS)}; '
                       f'got {self.policy!r}.')
    if self.epsilon is not None and not 0.0 <= self.epsilon <= 1.0:
      raise ValueError(f'eval_epsilon must be in [0, 1]; got '
                       f'{self.epsilon!r}.')


GREEDY = Protocol()
RUN_DEFAULT = Protocol(None, None)


def describe(protocol: Any) -> str:
  """A protocol for people ('greedy', 'sampled', 'ε-greedy (ε 0.05)'),
  from a `Protocol` or its JSON form (`{'policy', 'epsilon'}` as
  `result.json` records it); None or no policy: 'greedy'."""
  if isinstance(protocol, Protocol):
    protocol = dataclasses.asdict(protocol)
  policy = (protocol or {}).get('policy') or 'greedy'
  if policy == 'epsilon_greedy':
    return f'ε-greedy (ε {protocol["epsilon"]:g})'
  return policy


def policy_key(stream_key: jax.Array) -> jax.Array:
  """The key of a protocol's draws in the evaluation stream `stream_key`
  (`PRNGKey` of the stream's seed)."""
  return jax.random.fold_in(stream_key, _POLICY_DRAWS)


def step_keys(key: jax.Array, episodes: jax.Array,
              steps: jax.Array) -> jax.Array:
  """`[N, 2]` keys of step `steps[i]` of episode `episodes[i]`."""
  return jax.vmap(lambda e, t: jax.random.fold_in(
      jax.random.fold_in(key, e), t))(episodes, steps)


def protocol_step(agent: agent_lib.Agent,
                  environment_spec: specs.EnvironmentSpec,
                  protocol: Protocol, params: agent_lib.Params,
                  observations: jax.Array, keys: jax.Array,
                  first: Optional[jax.Array] = None,
                  state: agent_lib.RecurrentState = (),
                  model_states: Any = None
                 ) -> Tuple[jax.Array, agent_lib.RecurrentState]:
  """`(actions [N], state)` of `protocol` for `[N, ...]` observations
  (`keys`: `step_keys`; unused when greedy); a recurrent agent's state is
  threaded, `first` flagging the episodes' first steps. `model_states`:
  the environments' states in the agent's model, for the `search`
  protocol (None where the loop has none)."""
  observations = jnp.asarray(observations)
  if protocol.policy == 'search':
    return _searched(agent, params, observations, keys, model_states), state
  if first is None:
    first = jnp.zeros(observations.shape[0], bool)
  outputs, state = agent_lib.deployable_with_state(agent, params,
                                                   observations, first, state)
  return _protocol_choice(environment_spec, protocol, outputs, observations,
                          keys), state


def _searched(agent: agent_lib.Agent, params: agent_lib.Params,
              observations: jax.Array, keys: jax.Array,
              model_states: Any) -> jax.Array:
  """`[N]` moves of the agent's search, one search per observation with
  its own key (as the compiled loop's acting does)."""
  if agent.play_with_search is None:
    raise ValueError('The search protocol plays an agent\'s search; this '
                     'agent does not search.')
  return agent.play_with_search(params, keys, observations, model_states)


def _protocol_choice(environment_spec: specs.EnvironmentSpec,
                     protocol: Protocol, outputs: jax.Array,
                     observations: jax.Array, keys: jax.Array) -> jax.Array:
  chosen = greedy.greedy_play(environment_spec, outputs, observations)
  if protocol.policy == 'greedy':
    return chosen
  legal = greedy.legal_mask(environment_spec, observations)
  if protocol.policy == 'sampled':
    logits = jnp.where(legal, jnp.log(jnp.maximum(outputs, 1e-30)), -jnp.inf)
    return jax.vmap(jax.random.categorical)(keys, logits).astype(jnp.int32)
  split = jax.vmap(jax.random.split)(keys)
  uniform = jax.vmap(jax.random.categorical)(
      split[:, 0], jnp.where(legal, 0.0, -jnp.inf)).astype(jnp.int32)
  explore = jax.vmap(jax.random.uniform)(split[:, 1]) < protocol.epsilon
  return jnp.where(explore, uniform, chosen)


# Jitted `(params, observations [N, ...], draws key, episodes [N],
# steps [N], state) -> (actions [N], state)`: the protocol's draws for step
# `steps[i]` of episode `episodes[i]` come from the `draws` key
# (`policy_key`); a recurrent agent's state (() for others: `agent_lib.
# initial_state`) resets where `steps` is 0.
BatchedPolicy = Callable[[agent_lib.Params, Any, Any, Any, Any, Any],
                         Tuple[jax.Array, Any]]


def make_batched_policy(agent: agent_lib.Agent,
                        environment_spec: specs.EnvironmentSpec,
                        protocol: Protocol = GREEDY) -> BatchedPolicy:
  """Jitted `protocol_step` of a batch of observations; compiled once
  per batch size."""
  return jax.jit(lambda params, observations, draws, episodes, steps, state: (
      protocol_step(agent, environment_spec, protocol, params, observations,
                    step_keys(draws, episodes, steps), steps == 0, state)))


def _identical(returns: Sequence[float], lengths: Sequence[int]) -> float:
  """1.0 when every episode had the same return and length (of several)."""
  return float(len(returns) > 1 and len(set(returns)) == 1 and
               len(set(lengths)) == 1)


def core_episodes(core: functional.FunctionalEnvironment,
                  agent: agent_lib.Agent,
                  environment_spec: specs.EnvironmentSpec,
                  params: agent_lib.Params, env_key: jax.Array,
                  num_episodes: int, protocol: Protocol = GREEDY
                 ) -> Tuple[jax.Array, jax.Array]:
  """Episodes `fold_in(env_key, j)`, j < num_episodes, in parallel.

  Pure (jit- and vmap-able); returns each episode's return (float32) and
  length (int32), `[num_episodes]` each.
  """
  if num_episodes < 1:
    raise ValueError(f'num_episodes must be >= 1; got {num_episodes}.')
  episodes = jnp.arange(num_episodes, dtype=jnp.int32)
  keys = jax.vmap(jax.random.fold_in, (None, 0))(env_key, episodes)
  states, first = jax.vmap(core.reset)(keys)
  draws = policy_key(env_key)

  # The states the agent's search steps from (a game against an opponent
  # keeps the game's own inside its state).
  model_state = getattr(core, 'model_state', lambda states: states)

  def body(carry):
    t, states, observations, done, returns, lengths, core_states = carry
    actions, core_states = protocol_step(
        agent, environment_spec, protocol, params, observations,
        step_keys(draws, episodes, jnp.full_like(episodes, t)),
        jnp.full(num_episodes, t == 0), core_states,
        model_state(states) if protocol.policy == 'search' else None)
    new_states, timesteps = jax.vmap(core.step)(states, actions)
    live = ~done
    keep = lambda a, b: jnp.where(
        live.reshape(live.shape + (1,) * (a.ndim - 1)), a, b)
    states = jax.tree.map(keep, new_states, states)
    returns = returns + jnp.where(live, timesteps.reward, 0.0)
    lengths = lengths + live.astype(jnp.int32)
    done = done | (timesteps.step_type == functional.LAST)
    return (t + 1, states, timesteps.observation, done, returns, lengths,
            core_states)

  carry = (jnp.zeros((), jnp.int32), states, first.observation,
           jnp.zeros(num_episodes, bool), jnp.zeros(num_episodes, jnp.float32),
           jnp.zeros(num_episodes, jnp.int32),
           agent_lib.initial_state(agent, num_episodes))
  *_, returns, lengths, _ = jax.lax.while_loop(
      lambda c: (c[0] < core.max_episode_steps) & ~jnp.all(c[3]), body, carry)
  return returns, lengths


def evaluate_core(core: functional.FunctionalEnvironment,
                  agent: agent_lib.Agent,
                  environment_spec: specs.EnvironmentSpec,
                  params: agent_lib.Params, env_key: jax.Array,
                  num_episodes: int,
                  protocol: Protocol = GREEDY,
                  outcomes: bool = False) -> Dict[str, jax.Array]:
  """`core_episodes`' mean return and episode length, and whether every
  episode was identical; with `outcomes` (a two-player game against an
  opponent, whose return is +1 won, 0 drawn, -1 lost) the shares of games
  won, drawn and lost (`OUTCOMES`). Pure (jit- and vmap-able)."""
  returns, lengths = core_episodes(core, agent, environment_spec, params,
                                   env_key, num_episodes, protocol)
  identical = ((num_episodes > 1) & jnp.all(returns == returns[0]) &
               jnp.all(lengths == lengths[0]))
  summary = {'mean_return': returns.mean(),
             'mean_episode_length': lengths.mean(dtype=jnp.float32),
             'identical_episodes': identical.astype(jnp.float32)}
  if outcomes:
    for name, share in zip(OUTCOMES, (returns > 0, returns == 0,
                                      returns < 0)):
      summary[name] = jnp.mean(share, dtype=jnp.float32)
  return summary


def evaluate(environment: dm_env.Environment, agent: agent_lib.Agent,
             params: agent_lib.Params, num_episodes: int,
             policy: Optional[BatchedPolicy] = None, stream: int = 0,
             first_episode: int = 0) -> Dict[str, float]:
  """Plays `num_episodes` episodes (episodes `first_episode …` of evaluation
  stream `stream`, for the protocol's draws); returns mean return, length
  and whether all were identical.

  `policy`: `make_batched_policy`'s, kept by a caller that evaluates again
  (None: greedy, compiled for this call)."""
  returns, lengths = play_episodes(environment, agent, params, num_episodes,
                                   policy, stream, first_episode)
  return {
      'mean_return': float(np.mean(returns)),
      'mean_episode_length': float(np.mean(lengths)),
      'identical_episodes': _identical(returns, lengths),
  }


def play_episodes(environment: dm_env.Environment, agent: agent_lib.Agent,
                  params: agent_lib.Params, num_episodes: int,
                  policy: Optional[BatchedPolicy] = None, stream: int = 0,
                  first_episode: int = 0) -> Tuple[List[float], List[int]]:
  """`evaluate`'s episodes, one after another: each one's return and
  length."""
  if num_episodes < 1:
    raise ValueError(f'num_episodes must be >= 1; got {num_episodes}.')
  act = policy or make_batched_policy(
      agent, specs.make_environment_spec(environment))
  draws = policy_key(jax.random.PRNGKey(stream))
  returns, lengths = [], []
  state = agent_lib.initial_state(agent, 1)
  for episode in range(first_episode, first_episode + num_episodes):
    timestep = environment.reset()
    episode_return, length = 0.0, 0
    while not timestep.last():
      actions, state = act(
          params, np.asarray(timestep.observation)[None], draws,
          np.array([episode], np.int32), np.array([length], np.int32), state)
      timestep = environment.step(continuous_actions.host_action(actions[0]))
      episode_return += float(timestep.reward)
      length += 1
    returns.append(episode_return)
    lengths.append(length)
  return returns, lengths


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
  act = policy or make_batched_policy(
      agent, specs.make_environment_spec(environments[0]))
  draws = policy_key(jax.random.PRNGKey(stream))
  returns: List[float] = [0.0] * num_episodes
  lengths: List[int] = [0] * num_episodes
  playing: List[int] = []  # Episode each environment plays (-1: none).
  observations = []
  for i, environment in enumerate(environments):
    environment.seek(stream, first_episode + i)
    observations.append(environment.reset().observation)
    playing.append(i)
  next_episode = len(environments)
  state = agent_lib.initial_state(agent, len(environments))
  while any(episode >= 0 for episode in playing):
    actions, state = act(
        params, np.stack(observations), draws,
        np.array([first_episode + max(e, 0) for e in playing], np.int32),
        np.array([lengths[e] if e >= 0 else 0 for e in playing], np.int32),
        state)
    actions = np.asarray(actions)
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
      'identical_episodes': _identical(returns, lengths),
  }
