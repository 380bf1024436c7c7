"""Exported policies run in the LiteRT interpreter, as the app runs them.

`TFLitePolicy` runs a one-input model (the app's contract: an observation
in, the action output out); `RecurrentTFLitePolicy` a policy with memory,
through its signature (`experiments.export.recurrent_tflite`): the
observation and the state in, the output and the next state out.
"""

from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from agents import greedy
from environments import specs

# A policy with memory's signature and the name of its action output.
SIGNATURE = 'serving_default'
OUTPUT_NAME = 'policy'


class TFLitePolicy:
  """Runs an exported policy in the LiteRT interpreter, as the app does."""

  def __init__(self, path: str):
    from ai_edge_litert import interpreter  # pylint: disable=g-import-not-at-top
    self._interpreter = interpreter.Interpreter(model_path=path)
    self._interpreter.allocate_tensors()
    inputs = self._interpreter.get_input_details()
    if len(inputs) != 1:
      raise ValueError(
          f'{path} takes {len(inputs)} inputs (a policy with memory: the '
          f'observation and its state: `RecurrentTFLitePolicy`); this runs '
          f'one-input models, as the app\'s.')
    (self.input_details,) = inputs
    (self.output_details,) = self._interpreter.get_output_details()

  def __call__(self, observation: np.ndarray) -> np.ndarray:
    """`[*obs_shape]` observation -> `[A]` probabilities (or
    `[action_dim]` actions)."""
    batch = np.asarray(observation, np.float32)[None]
    self._interpreter.set_tensor(self.input_details['index'], batch)
    self._interpreter.invoke()
    return self._interpreter.get_tensor(self.output_details['index'])[0]


class RecurrentTFLitePolicy:
  """Steps an exported policy with memory in the LiteRT interpreter."""

  def __init__(self, path: str, input_name: str, names: List[str]):
    from ai_edge_litert import interpreter  # pylint: disable=g-import-not-at-top
    self._runner = interpreter.Interpreter(
        model_path=path).get_signature_runner(SIGNATURE)
    self._input_name = input_name
    self._names = names
    self.input_details = self._runner.get_input_details()
    self.output_details = self._runner.get_output_details()

  def initial_state(self) -> List[np.ndarray]:
    """Zeros of each state input: the state an episode starts from."""
    return [np.zeros(self.input_details[name]['shape'], np.float32)
            for name in self._names]

  def __call__(self, observation: np.ndarray, state: List[np.ndarray]
              ) -> Tuple[np.ndarray, List[np.ndarray]]:
    """`[*obs]` observation and the state -> (`[A]` output, next state)."""
    out = self._runner(**{
        self._input_name: np.asarray(observation, np.float32)[None],
        **dict(zip(self._names, state))})
    return out[OUTPUT_NAME][0], [out[f'next_{name}'] for name in self._names]


def verification(environment_spec: specs.EnvironmentSpec, got: np.ndarray,
                 expected: np.ndarray, observations: np.ndarray,
                 returns: Sequence[float],
                 lengths: Sequence[int]) -> Dict[str, Any]:
  """The figures of a model's check against JAX: its outputs `got` and
  JAX's `expected` on `observations`, over games of `returns` and
  `lengths` played through the model."""
  return {
      # Both sides must be finite: argmax of all-NaN outputs "agrees".
      'finite': bool(np.all(np.isfinite(got)) and
                     np.all(np.isfinite(expected))),
      'max_abs_diff': float(np.max(np.abs(got - expected))),
      'greedy_agreement': float(np.mean(greedy.agreement(
          environment_spec, got, expected, observations))),
      'observations_checked': len(observations),
      'games': len(returns),
      'mean_return': float(np.mean(returns)) if returns else None,
      'mean_episode_length': float(np.mean(lengths)) if lengths else None,
  }
