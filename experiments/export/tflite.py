r"""Exports an agent's policy to TFLite and verifies it against JAX.

The exported model maps one observation batch `[1, *obs_shape]` (float32) to
action probabilities `[1, A]`, zero on illegal actions, or for continuous
control to the deterministic action `[1, action_dim]` (the policy's mean,
squashed and rescaled into the action bounds as when acting greedily;
`Agent.deployable_policy`). For Plane Strike this
is a drop-in for the Android example's model: input `[1, 8, 8]` (0 untried,
1 hit, -1 miss), output `[1, 64]`, index = row * 8 + col.

`python -m experiments.export_tflite` runs it on a training workdir.
Quantisation shrinks the weights (int8 `dynamic` range or `float16`); the I/O
stays float32, so the app needs no change. A quantised export is compared with
the float one on the same games instead of being held to `TOLERANCE`.
"""

import contextlib
import os
import tempfile
import types
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Union

import dm_env
import jax
import numpy as np

from agents import agent as agent_lib
from agents import greedy
from environments import continuous_actions
from environments import specs
from experiments.export import litert_policies
from experiments.export import recurrent_tflite
from experiments.storage import atomic_files


# Max |p_tflite - p_jax| of a faithful export. Both run float32, with
# different matmul orders (XNNPACK vs XLA); typical exports differ by 3e-6 to
# 7e-6, and sharp policies after long training reach 1e-5.
TOLERANCE = 5e-5
# The check's greedy play through the interpreter stops after this many
# observations even if games remain (games with long episodes, e.g. 10 games
# of MinAtar Breakout, would otherwise step the game in Python for minutes);
# the observations seen are all compared with JAX either way.
MAX_CHECK_STEPS = 20_000
# The input tensor's name unless the environment's registry entry names
# another (Plane Strike: 'board', as the app's model).
DEFAULT_INPUT_NAME = 'observation'


class VerificationError(ValueError):
  """An exported model that does not match its JAX policy."""


class Bar(NamedTuple):
  """How far an export may stray from JAX and still pass."""
  max_abs_diff: float
  min_greedy_agreement: float


# The weight quantisations `to_tflite` offers (None keeps float32 weights),
# with their bars. Measured on 9 trained Plane Strike policies (runs/default
# and the comparison's reinforce/a2c/dqn/ppo seeds 0-1; 1000 greedy games plus
# 1000 random boards each), as max |p_tflite - p_jax| / greedy agreement:
#   float16: 2e-4..6.9e-3 / 0.996..1.0.
#   dynamic: 0.014..0.20 / 0.946..0.995. The hidden activations are quantised
#     to int8 at run time too, and sharp policies turn the logit error into a
#     large probability error, so greedy agreement is the bar that matters.
# A wrong model (runs/default's untrained weights, checked against its
# trained ones) scores 0.99 / 0.038.
QUANTIZED_BARS = types.MappingProxyType({
    'dynamic': Bar(max_abs_diff=0.5, min_greedy_agreement=0.9),
    'float16': Bar(max_abs_diff=2e-2, min_greedy_agreement=0.99),
})
QUANTIZATIONS = tuple(QUANTIZED_BARS)

EnvironmentOrFactory = Union[dm_env.Environment,
                             Callable[[], dm_env.Environment]]


def _check_quantize(quantize: Optional[str]) -> None:
  """Refuses an unknown `quantize` before any conversion work."""
  if quantize is not None and quantize not in QUANTIZATIONS:
    raise ValueError(f'quantize must be None or one of {QUANTIZATIONS}, got '
                     f'{quantize!r}.')


def import_converter() -> None:
  """Imports what `to_tflite` and the check need (TensorFlow, jax2tf, the
  LiteRT interpreter: about 3 s on a 2-core CPU), e.g. while a run's
  program compiles in another thread. A failed import is left for the
  export to report."""
  try:
    import tensorflow  # pylint: disable=g-import-not-at-top,unused-import
    from jax.experimental import jax2tf  # pylint: disable=g-import-not-at-top,unused-import
    from ai_edge_litert import interpreter  # pylint: disable=g-import-not-at-top,unused-import
  except ImportError:
    pass


def to_tflite(agent: agent_lib.Agent, params: agent_lib.Params,
              environment_spec: specs.EnvironmentSpec,
              quantize: Optional[str] = None,
              input_name: str = DEFAULT_INPUT_NAME) -> bytes:
  """Converts `agent.deployable_policy(params, ·)` to a TFLite model.

  jax2tf (native serialization) → `tf.function` with a fixed `[1, *obs]`
  float32 signature → `TFLiteConverter`. Params become constants; `quantize`
  (one of `QUANTIZATIONS`) stores them as int8 (`'dynamic'`) or float16. The
  model's inputs and outputs stay float32 in every mode.
  """
  _check_quantize(quantize)
  if agent.recurrence is not None:
    return recurrent_tflite.to_tflite(
        agent, params, environment_spec,
        lambda converter: _set_quantization(converter, quantize), input_name)
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  from jax.experimental import jax2tf  # pylint: disable=g-import-not-at-top

  def policy(observations):
    return agent.deployable_policy(params, observations)

  shape = (1,) + tuple(environment_spec.observations.shape)
  tf_fn = tf.function(
      jax2tf.convert(policy),
      input_signature=[tf.TensorSpec(shape, tf.float32, name=input_name)],
      autograph=False)
  converter = tf.lite.TFLiteConverter.from_concrete_functions(
      [tf_fn.get_concrete_function()], tf_fn)
  _set_quantization(converter, quantize)
  return converter.convert()


def _set_quantization(converter: Any, quantize: Optional[str]) -> None:
  """Sets `converter` to store the weights as `quantize` says."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  if quantize is not None:
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
  if quantize == 'float16':
    converter.target_spec.supported_types = [tf.float16]
  elif quantize == 'dynamic':
    # One scale per weight matrix, not per output channel: per-channel adds a
    # float32 scale and an int64 zero point per channel (3 KB for Plane
    # Strike's 256), 32% of the float model instead of 29%. On runs/default
    # both agree with JAX's greedy action on 99.5% of boards; on the weaker
    # comparison policies per-channel agrees slightly more (0.968..0.996 vs
    # 0.946..0.992).
    converter._experimental_disable_per_channel = True  # pylint: disable=protected-access


def verify(path: str, agent: agent_lib.Agent, params: agent_lib.Params,
           environment_spec: specs.EnvironmentSpec,
           environment: dm_env.Environment, num_games: int = 1000,
           num_random_boards: int = 1000, seed: int = 0,
           max_steps: int = MAX_CHECK_STEPS,
           input_name: str = DEFAULT_INPUT_NAME) -> Dict[str, Any]:
  """Checks the exported model against JAX and plays it as the app does.

  Plays `num_games` greedy games through the interpreter (`greedy.
  greedy_play`: argmax among legal actions, or the continuous action
  itself; fewer if they reach `max_steps` observations, the last one then
  cut short and not scored), then compares interpreter and JAX outputs on
  every observation seen there plus `num_random_boards` observations from
  uniformly random (legal) play.

  Returns:
    `max_abs_diff`, `observations_checked`, `games` (completed),
    `mean_return` and `mean_episode_length` over them (for Plane Strike:
    the mean strikes per game; None if no game completed), `tolerance`
    is added by `export_and_verify`. A recurrent agent's model is checked
    with its state threaded (`recurrent_tflite.verify`).
  """
  if agent.recurrence is not None:
    return {**recurrent_tflite.verify(
        path, agent, params, environment_spec, environment, num_games,
        num_random_boards, seed, max_steps, input_name),
            'size_bytes': os.path.getsize(path)}
  policy = litert_policies.TFLitePolicy(path)
  expected_shape = (1,) + tuple(environment_spec.observations.shape)
  output_size = greedy.output_size(environment_spec)
  if (tuple(policy.input_details['shape']) != expected_shape or
      tuple(policy.output_details['shape']) != (1, output_size) or
      policy.input_details['dtype'] != np.float32 or
      policy.output_details['dtype'] != np.float32):
    raise ValueError(
        f'{path} does not have the expected float32 {expected_shape} -> '
        f'(1, {output_size}) signature.')
  observations: List[np.ndarray] = []
  outputs: List[np.ndarray] = []
  returns, lengths = [], []
  for _ in range(num_games):
    if len(observations) >= max_steps:
      break
    timestep = environment.reset()
    episode_return, length = 0.0, 0
    while not timestep.last():
      if len(observations) >= max_steps:
        break
      observation = np.asarray(timestep.observation)
      output = policy(observation)
      observations.append(observation)
      outputs.append(output)
      timestep = environment.step(continuous_actions.host_action(
          greedy.greedy_play(environment_spec, output, observation)))
      episode_return += float(timestep.reward)
      length += 1
    if timestep.last():
      returns.append(episode_return)
      lengths.append(length)
  rng = np.random.default_rng(seed)
  random_boards = 0
  while random_boards < num_random_boards:
    timestep = environment.reset()
    while not timestep.last() and random_boards < num_random_boards:
      observations.append(np.asarray(timestep.observation))
      outputs.append(policy(timestep.observation))
      timestep = environment.step(_random_action(
          environment_spec, np.asarray(timestep.observation), rng))
      random_boards += 1
  batch = np.stack(observations)
  expected = np.asarray(jax.jit(agent.deployable_policy)(params, batch))
  outputs = np.stack(outputs)
  return {**litert_policies.verification(environment_spec, outputs,
                                         expected, batch, returns, lengths),
          'size_bytes': os.path.getsize(path)}


def _random_action(environment_spec: specs.EnvironmentSpec,
                   observation: np.ndarray, rng: np.random.Generator) -> Any:
  """A uniformly random legal action (continuous: uniform in the bounds,
  standard normal where unbounded)."""
  if environment_spec.is_continuous:
    low, high = continuous_actions.bounds(environment_spec.actions)
    normal = rng.standard_normal(low.shape).astype(np.float32)
    uniform = rng.uniform(np.where(np.isfinite(low), low, 0.0),
                          np.where(np.isfinite(high), high, 1.0))
    finite = np.isfinite(low) & np.isfinite(high)
    return np.where(finite, uniform, normal).astype(np.float32)
  legal = np.flatnonzero(greedy.legal_mask(environment_spec, observation))
  return int(rng.choice(legal))


def _float_reference(agent: agent_lib.Agent, params: agent_lib.Params,
                     environment_spec: specs.EnvironmentSpec,
                     environment: dm_env.Environment, num_games: int,
                     report: Dict[str, Any], input_name: str
                    ) -> Dict[str, Any]:
  """Size and greedy play of the float model, next to a quantised `report`.

  `environment` must replay the games `report` was played on.
  """
  with tempfile.TemporaryDirectory() as directory:
    path = os.path.join(directory, 'float.tflite')
    with open(path, 'wb') as f:
      f.write(to_tflite(agent, params, environment_spec,
                        input_name=input_name))
    reference = verify(path, agent, params, environment_spec, environment,
                       num_games=num_games, input_name=input_name)
  return {
      'float_size_bytes': reference['size_bytes'],
      'size_ratio': report['size_bytes'] / reference['size_bytes'],
      'float_mean_episode_length': reference['mean_episode_length'],
      'mean_episode_length_change': _change(report, reference,
                                     'mean_episode_length'),
      'float_mean_return': reference['mean_return'],
      'mean_return_change': _change(report, reference, 'mean_return'),
  }


def _change(report: Dict[str, Any], reference: Dict[str, Any],
            key: str) -> Optional[float]:
  """`report[key] - reference[key]`, or None where either is missing."""
  if report[key] is None or reference[key] is None:
    return None
  return report[key] - reference[key]


def export_and_verify(agent: agent_lib.Agent, params: agent_lib.Params,
                      environment_spec: specs.EnvironmentSpec, path: str,
                      environment: EnvironmentOrFactory,
                      num_games: int = 1000,
                      tolerance: Optional[float] = None,
                      quantize: Optional[str] = None,
                      input_name: str = DEFAULT_INPUT_NAME,
                      publish: Optional[contextlib.ExitStack] = None
                     ) -> Dict[str, Any]:
  """Writes the model under a temporary name, `verify`s it, and only then
  renames it to `path`: a model that fails (or a process killed while
  verifying) leaves no file under `path`, and a good model already there
  stays.

  A float32 export must match JAX within `tolerance` (default `TOLERANCE`).
  A quantised one cannot; its report adds `quantize` and a comparison with
  the float model on the same games (`float_size_bytes`, `size_ratio`,
  `float_mean_episode_length`, `mean_episode_length_change` (strikes in
  Plane Strike), `float_mean_return`, `mean_return_change`), and it must
  pass its `QUANTIZED_BARS` entry (`tolerance` overrides the
  `max_abs_diff`).

  Args:
    environment: the games to play; with `quantize`, a zero-argument factory
      of identically seeded environments (e.g. `Built.export_environment`),
      so that both models play the same games.
    publish: renames the verified model when this stack closes (not at
      once), so that several models take their names only once all are
      verified.

  Raises:
    VerificationError: if the model fails its bar or outputs non-finite
      numbers (NaN fails every bar).
    ValueError: if `quantize` is unknown or comes with a single environment
      instead of a factory.
  """
  _check_quantize(quantize)
  if quantize is not None and not callable(environment):
    raise ValueError('A quantised export needs an environment factory, to '
                     'play the float model on the same games.')
  fresh = environment if callable(environment) else lambda: environment
  if not all(np.all(np.isfinite(x)) for x in jax.tree.leaves(params)
             if np.issubdtype(np.asarray(x).dtype, np.floating)):
    raise VerificationError(
        f'The parameters to export to {path} hold NaN or infinite values '
        f'(did training diverge?); nothing was written to {path}.')
  with contextlib.ExitStack() as here:
    unverified = (publish or here).enter_context(
        atomic_files.published_if_verified(path))
    atomic_files.write_bytes(
        unverified,
        to_tflite(agent, params, environment_spec, quantize, input_name))
    return _checked(unverified, path, agent, params, environment_spec,
                    fresh, num_games, tolerance, quantize, input_name)


def _checked(unverified: str, path: str, agent: agent_lib.Agent,
             params: agent_lib.Params,
             environment_spec: specs.EnvironmentSpec,
             fresh: Callable[[], dm_env.Environment], num_games: int,
             tolerance: Optional[float], quantize: Optional[str],
             input_name: str) -> Dict[str, Any]:
  """`export_and_verify`'s report of the model at `unverified`, or
  VerificationError."""
  try:
    report = verify(unverified, agent, params, environment_spec, fresh(),
                    num_games=num_games, input_name=input_name)
  except RuntimeError as e:  # The interpreter refuses the model.
    raise VerificationError(
        f'The model for {path} does not run in the TFLite interpreter '
        f'({str(e).splitlines()[0][:300]}); nothing was written to '
        f'{path}.') from e
  if quantize is None:
    bar = Bar(TOLERANCE, 0.0)
  else:
    bar = QUANTIZED_BARS[quantize]
    report = {'quantize': quantize, **report,
              **_float_reference(agent, params, environment_spec, fresh(),
                                 num_games, report, input_name)}
  if tolerance is not None:
    bar = bar._replace(max_abs_diff=tolerance)
  # The bar the model was held to, beside what it measured.
  report.update(tolerance=bar.max_abs_diff,
                min_greedy_agreement=bar.min_greedy_agreement)
  if not report['finite']:
    raise VerificationError(
        f'The model for {path} ({quantize or "float32"}) outputs NaN or '
        f'infinite probabilities (its parameters are not finite: did '
        f'training diverge?); nothing was written to {path}.')
  # `not <=` so that a NaN difference fails too.
  if (not report['max_abs_diff'] <= bar.max_abs_diff or
      not report['greedy_agreement'] >= bar.min_greedy_agreement):
    raise VerificationError(
        f'The model for {path} ({quantize or "float32"}) differs from JAX by '
        f'{report["max_abs_diff"]:.3g} (at most {bar.max_abs_diff:g}), greedy '
        f'agreement {report["greedy_agreement"]:.4f} (at least '
        f'{bar.min_greedy_agreement:g}); not a faithful export, so nothing '
        f'was written to {path}.')
  return report
