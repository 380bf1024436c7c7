r"""Exports a policy with memory (a recurrent agent) to TFLite, and checks it.

The model steps the policy once: it takes the observation `[1, *obs]` and
the state the previous step returned, and returns the action output (as a
feed-forward export's) and the next state. Inputs and outputs are named
(one TFLite signature, `serving_default`), float32:

  inputs:  `<input name>` `[1, *obs]` (e.g. `observation`), then the state:
           `state_hidden`, `state_cell` `[1, size]` (LSTM) or `state`
           `[1, size]` (GRU)
  outputs: `policy` `[1, A]` (probabilities, zero on illegal actions) and
           `next_state_hidden`, `next_state_cell` (LSTM) or `next_state`

At each episode's start the app passes zeros as the state (the initial
state), then feeds back each step's next state. `verify` plays whole
greedy episodes (and episodes of random play) that way in the LiteRT
interpreter, and compares every output with JAX's, whose state is threaded
through the same episodes step by step.
"""

import tempfile
from typing import Any, Dict, List, Tuple

import dm_env
import jax
import jax.numpy as jnp
import numpy as np

from agents import agent as agent_lib
from agents import greedy
from environments import continuous_actions
from environments import specs
from experiments.export import litert_policies

OUTPUT_NAME = litert_policies.OUTPUT_NAME
SIGNATURE = litert_policies.SIGNATURE


def state_names(agent: agent_lib.Agent) -> List[str]:
  """The names of the state's tensors, in the order of its leaves:
  `state_<field>` for a named tuple's fields, else `state`."""
  state = agent.recurrence.initial_state(1)
  if hasattr(state, '_fields'):
    return [f'state_{field}' for field in state._fields]
  count = len(jax.tree.leaves(state))
  return ['state'] if count == 1 else [f'state_{i}' for i in range(count)]


def to_tflite(agent: agent_lib.Agent, params: agent_lib.Params,
              environment_spec: specs.EnvironmentSpec,
              converter_options: Any, input_name: str) -> bytes:
  """The one-step model (module docstring); `converter_options(converter)`
  sets quantisation as the feed-forward export does."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  from jax.experimental import jax2tf  # pylint: disable=g-import-not-at-top

  initial = agent.recurrence.initial_state(1)
  leaves, treedef = jax.tree.flatten(initial)
  names = state_names(agent)

  def step(observation, *state_leaves):
    outputs, state = agent.recurrence.deployable_policy(
        params, observation, jnp.zeros(1, bool),
        jax.tree.unflatten(treedef, state_leaves))
    return (outputs, *jax.tree.leaves(state))

  converted = jax2tf.convert(step)
  shape = (1,) + tuple(environment_spec.observations.shape)
  signature = [tf.TensorSpec(shape, tf.float32, name=input_name)] + [
      tf.TensorSpec(leaf.shape, tf.float32, name=name)
      for leaf, name in zip(leaves, names)]

  def named(observation, *state_leaves):
    outputs, *next_leaves = converted(observation, *state_leaves)
    return {OUTPUT_NAME: outputs,
            **{f'next_{name}': leaf for name, leaf in zip(names, next_leaves)}}

  tf_fn = tf.function(named, input_signature=signature, autograph=False)
  # Through a SavedModel, so that the model keeps a signature: its inputs
  # and outputs by name (a concrete function's outputs would be nameless).
  module = tf.Module()
  module.step = tf_fn
  with tempfile.TemporaryDirectory() as directory:
    tf.saved_model.save(module, directory, signatures={
        SIGNATURE: tf_fn.get_concrete_function()})
    converter = tf.lite.TFLiteConverter.from_saved_model(
        directory, signature_keys=[SIGNATURE])
    converter_options(converter)
    return converter.convert()


def _episodes(policy: litert_policies.RecurrentTFLitePolicy, environment: dm_env.Environment,
              environment_spec: specs.EnvironmentSpec, num_games: int,
              max_steps: int, act) -> Tuple[List[List[np.ndarray]],
                                            List[List[np.ndarray]],
                                            List[float], List[int]]:
  """Episodes played through the interpreter, the state threaded: their
  observations and outputs, and the returns and lengths of those that
  ended. `act(observation, output)` picks each action."""
  observations, outputs, returns, lengths = [], [], [], []
  seen = 0
  for _ in range(num_games):
    if seen >= max_steps:
      break
    timestep = environment.reset()
    state = policy.initial_state()
    episode_observations, episode_outputs = [], []
    episode_return = 0.0
    while not timestep.last() and seen < max_steps:
      observation = np.asarray(timestep.observation)
      output, state = policy(observation, state)
      episode_observations.append(observation)
      episode_outputs.append(output)
      seen += 1
      timestep = environment.step(act(observation, output))
      episode_return += float(timestep.reward)
    observations.append(episode_observations)
    outputs.append(episode_outputs)
    if timestep.last():
      returns.append(episode_return)
      lengths.append(len(episode_observations))
  del environment_spec
  return observations, outputs, returns, lengths


def _jax_outputs(agent: agent_lib.Agent, params: agent_lib.Params,
                 episode: List[np.ndarray]) -> np.ndarray:
  """JAX's outputs on one episode's observations, its state threaded."""
  step = jax.jit(lambda state, observation, first: (
      agent.recurrence.deployable_policy(params, observation[None],
                                         first[None], state)))
  state, outputs = agent.recurrence.initial_state(1), []
  for t, observation in enumerate(episode):
    output, state = step(state, jnp.asarray(observation), jnp.asarray(t == 0))
    outputs.append(np.asarray(output[0]))
  return np.stack(outputs)


def verify(path: str, agent: agent_lib.Agent, params: agent_lib.Params,
           environment_spec: specs.EnvironmentSpec,
           environment: dm_env.Environment, num_games: int,
           num_random_steps: int, seed: int, max_steps: int,
           input_name: str) -> Dict[str, Any]:
  """`tflite.verify` of a model with memory: greedy games through the
  interpreter, then random play, every output compared with JAX's over
  the same episodes."""
  names = state_names(agent)
  policy = litert_policies.RecurrentTFLitePolicy(path, input_name, names)
  expected_shape = (1,) + tuple(environment_spec.observations.shape)
  if tuple(policy.input_details[input_name]['shape']) != expected_shape:
    raise ValueError(f'{path} does not take a float32 {expected_shape} '
                     f'{input_name!r}.')
  greedy_play = lambda observation, output: continuous_actions.host_action(
      greedy.greedy_play(environment_spec, output, observation))
  observations, outputs, returns, lengths = _episodes(
      policy, environment, environment_spec, num_games, max_steps,
      greedy_play)
  rng = np.random.default_rng(seed)
  legal = lambda observation: np.flatnonzero(
      greedy.legal_mask(environment_spec, observation))
  random_observations, random_outputs, *_ = _episodes(
      policy, environment, environment_spec, num_games, num_random_steps,
      lambda observation, output: int(rng.choice(legal(observation))))
  observations += random_observations
  outputs += random_outputs
  episodes = [(o, p) for o, p in zip(observations, outputs) if o]
  got = np.concatenate([np.stack(p) for _, p in episodes])
  expected = np.concatenate([_jax_outputs(agent, params, o)
                             for o, _ in episodes])
  batch = np.concatenate([np.stack(o) for o, _ in episodes])
  return {**litert_policies.verification(environment_spec, got, expected,
                                         batch, returns, lengths),
          'state_inputs': names}

