r"""Exports an agent's policy to TFLite and verifies it against JAX.

The exported model maps one observation batch `[1, *obs_shape]` (float32) to
action probabilities `[1, A]`, zero on illegal actions. For Plane Strike this
is a drop-in for the Android example's model: input `[1, 8, 8]` (0 untried,
1 hit, -1 miss), output `[1, 64]`, index = row * 8 + col.

Run alone on a training workdir (uses its config and newest checkpoint):

  python -m experiments.export_tflite --workdir=/tmp/ps
"""

import dataclasses
import json
import os
from typing import Any, Dict, List

from absl import app
from absl import flags
import dm_env
import jax
import numpy as np

from agents import agent as agent_lib
from environments import specs
from experiments import atomic_files


# Max |p_tflite - p_jax| of a faithful export. Both run float32, with
# different matmul orders (XNNPACK vs XLA); typical exports differ by 3e-6 to
# 7e-6, and sharp policies after long training reach 1e-5.
TOLERANCE = 5e-5


def to_tflite(agent: agent_lib.Agent, params: agent_lib.Params,
              environment_spec: specs.EnvironmentSpec) -> bytes:
  """Converts `agent.action_probabilities(params, ·)` to a TFLite model.

  jax2tf (native serialization) → `tf.function` with a fixed `[1, *obs]`
  float32 signature → `TFLiteConverter`. Params become constants.
  """
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  from jax.experimental import jax2tf  # pylint: disable=g-import-not-at-top

  def probabilities(observations):
    return agent.action_probabilities(params, observations)

  shape = (1,) + tuple(environment_spec.observations.shape)
  tf_fn = tf.function(
      jax2tf.convert(probabilities),
      input_signature=[tf.TensorSpec(shape, tf.float32, name='board')],
      autograph=False)
  converter = tf.lite.TFLiteConverter.from_concrete_functions(
      [tf_fn.get_concrete_function()], tf_fn)
  return converter.convert()


class TFLitePolicy:
  """Runs an exported policy in the LiteRT interpreter, as the app does."""

  def __init__(self, path: str):
    from ai_edge_litert import interpreter  # pylint: disable=g-import-not-at-top
    self._interpreter = interpreter.Interpreter(model_path=path)
    self._interpreter.allocate_tensors()
    (self.input_details,) = self._interpreter.get_input_details()
    (self.output_details,) = self._interpreter.get_output_details()

  def __call__(self, observation: np.ndarray) -> np.ndarray:
    """`[*obs_shape]` observation -> `[A]` probabilities."""
    batch = np.asarray(observation, np.float32)[None]
    self._interpreter.set_tensor(self.input_details['index'], batch)
    self._interpreter.invoke()
    return self._interpreter.get_tensor(self.output_details['index'])[0]


def _legal_mask(environment_spec: specs.EnvironmentSpec,
                observation: np.ndarray) -> np.ndarray:
  """`[..., num_actions]` legal actions of `[..., *obs_shape]` observations."""
  if environment_spec.legal_actions is None:
    shape = observation.shape[:observation.ndim -
                              len(environment_spec.observations.shape)]
    return np.ones(shape + (environment_spec.num_actions,), bool)
  return np.asarray(environment_spec.legal_actions(observation))


def verify(path: str, agent: agent_lib.Agent, params: agent_lib.Params,
           environment_spec: specs.EnvironmentSpec,
           environment: dm_env.Environment, num_games: int = 1000,
           num_random_boards: int = 1000, seed: int = 0) -> Dict[str, Any]:
  """Checks the exported model against JAX and plays it as the app does.

  Plays `num_games` greedy games through the interpreter (argmax among legal
  actions), then compares interpreter and JAX probabilities on every
  observation seen there plus `num_random_boards` observations from
  uniformly random legal play.

  Returns:
    `max_abs_diff`, `observations_checked`, `games`, `mean_return` and
    `mean_episode_length` (for Plane Strike: the mean strikes per game).
  """
  policy = TFLitePolicy(path)
  expected_shape = (1,) + tuple(environment_spec.observations.shape)
  if (tuple(policy.input_details['shape']) != expected_shape or
      tuple(policy.output_details['shape']) !=
      (1, environment_spec.num_actions) or
      policy.input_details['dtype'] != np.float32 or
      policy.output_details['dtype'] != np.float32):
    raise ValueError(
        f'{path} does not have the expected float32 {expected_shape} -> '
        f'(1, {environment_spec.num_actions}) signature.')
  observations: List[np.ndarray] = []
  outputs: List[np.ndarray] = []
  returns, lengths = [], []
  for _ in range(num_games):
    timestep = environment.reset()
    episode_return, length = 0.0, 0
    while not timestep.last():
      probabilities = policy(timestep.observation)
      observations.append(np.asarray(timestep.observation))
      outputs.append(probabilities)
      legal = _legal_mask(environment_spec, timestep.observation)
      timestep = environment.step(
          int(np.argmax(np.where(legal, probabilities, -1.0))))
      episode_return += float(timestep.reward)
      length += 1
    returns.append(episode_return)
    lengths.append(length)
  rng = np.random.default_rng(seed)
  random_boards = 0
  while random_boards < num_random_boards:
    timestep = environment.reset()
    while not timestep.last() and random_boards < num_random_boards:
      observations.append(np.asarray(timestep.observation))
      outputs.append(policy(timestep.observation))
      legal = np.flatnonzero(_legal_mask(environment_spec,
                                         timestep.observation))
      timestep = environment.step(int(rng.choice(legal)))
      random_boards += 1
  batch = np.stack(observations)
  expected = np.asarray(jax.jit(agent.action_probabilities)(params, batch))
  outputs = np.stack(outputs)
  legal = _legal_mask(environment_spec, batch)  # Works on batches too.
  greedy = lambda p: np.argmax(np.where(legal, p, -1.0), axis=-1)
  return {
      'max_abs_diff': float(np.max(np.abs(outputs - expected))),
      'greedy_agreement': float(np.mean(greedy(outputs) == greedy(expected))),
      'observations_checked': len(observations),
      'games': num_games,
      'mean_return': float(np.mean(returns)),
      'mean_episode_length': float(np.mean(lengths)),
      'size_bytes': os.path.getsize(path),
  }


def export_and_verify(agent: agent_lib.Agent, params: agent_lib.Params,
                      environment_spec: specs.EnvironmentSpec, path: str,
                      environment: dm_env.Environment,
                      num_games: int = 1000,
                      tolerance: float = TOLERANCE) -> Dict[str, Any]:
  """Writes the model to `path` atomically, then `verify`s it.

  Raises:
    ValueError: if the interpreter and JAX disagree by more than `tolerance`.
  """
  atomic_files.write_bytes(path, to_tflite(agent, params, environment_spec))
  report = verify(path, agent, params, environment_spec, environment,
                  num_games=num_games)
  if report['max_abs_diff'] > tolerance:
    raise ValueError(
        f'Exported model {path} differs from JAX by '
        f'{report["max_abs_diff"]:.3g} > {tolerance:g}; not a faithful export.')
  return report


def _define_flags() -> None:
  # Defined only when run as a program: train.py imports this module too.
  flags.DEFINE_string('workdir', None, 'Workdir of a training run to export.')
  flags.DEFINE_string('output', None,
                      'Path of the .tflite file; default WORKDIR/<env>.tflite.')
  flags.DEFINE_integer('seed', None, 'Which seed of a --num_seeds run to '
                       'export; default the run\'s --seed.')
  flags.DEFINE_integer('verify_games', 1000,
                       'Greedy games played through the interpreter.',
                       lower_bound=1)


def main(argv):
  del argv
  from experiments import experiment  # pylint: disable=g-import-not-at-top
  workdir = flags.FLAGS.workdir
  if not workdir:
    raise app.UsageError('--workdir is required: the training run to export.')
  experiment.quiet_library_logs()
  try:
    config = experiment.load_config(workdir)
  except FileNotFoundError as e:
    raise app.UsageError(f'--workdir: {e}') from e
  built = experiment.build(config)
  seed = config.seed if flags.FLAGS.seed is None else flags.FLAGS.seed
  try:
    params = experiment.restore_actor_params(built, workdir, seed)
  except ValueError as e:
    raise app.UsageError(f'--seed: {e}') from e
  if params is None:
    raise app.UsageError(f'--workdir {workdir!r} has no checkpoint yet.')
  from experiments import compiled_experiment  # pylint: disable=g-import-not-at-top
  path = flags.FLAGS.output or os.path.join(
      compiled_experiment.seed_workdir(config, workdir, seed),
      experiment.export_filename(config.env))
  seed_built = experiment.Built(dataclasses.replace(config, seed=seed),
                                built.environment_spec, built.agent)
  report = export_and_verify(built.agent, params, built.environment_spec,
                             path, seed_built.export_environment(),
                             num_games=flags.FLAGS.verify_games)
  print(json.dumps({'tflite_path': os.path.abspath(path), **report},
                   indent=2))


if __name__ == '__main__':
  _define_flags()
  app.run(main)
