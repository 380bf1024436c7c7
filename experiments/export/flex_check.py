"""Checks a trainable export's save/restore in an interpreter with Flex.

`save`/`restore` use TF's Save/Restore ops, which need the Flex delegate; the
pip LiteRT interpreter lacks it, and TF 2.18 (whose `tf.lite.Interpreter`
links it) cannot run our jax2tf conversion. So the check runs in a side env,
.venv-flex (scripts/setup_flex_env.sh; `$FLEX_PYTHON` overrides it), through
`flex_side/save_restore.py`: train, save, restore in a fresh interpreter,
and `infer` must be bit-identical to the trained one's.
"""

import json
import os
import pathlib
import subprocess
import tempfile
from typing import Any, Dict, Optional, Tuple

import dm_env
import numpy as np

from environments import specs
from experiments.export import on_device
from experiments.export import trainable as trainable_export

PYTHON_ENV_VAR = 'FLEX_PYTHON'
NO_FLEX_REASON = 'no Flex interpreter: run scripts/setup_flex_env.sh'
_REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
_SCRIPT = pathlib.Path(__file__).resolve().parent / 'flex_side' / (
    'save_restore.py')
# TF's C++ logs would bury a failure's traceback in the side process's
# stderr. (Its Python runs with -I: PYTHONPATH cannot mix this env in.)
_TF_QUIET = {'TF_CPP_MIN_LOG_LEVEL': '2'}


def _is_executable(path: str) -> bool:
  return os.path.isfile(path) and os.access(path, os.X_OK)


def flex_python() -> Optional[str]:
  """The side env's Python: `$FLEX_PYTHON`, else .venv-flex's; None when it
  is not an executable file."""
  path = os.environ.get(PYTHON_ENV_VAR) or str(
      _REPO_ROOT / '.venv-flex' / 'bin' / 'python')
  return path if _is_executable(path) else None


def check_save_restore(tflite_path: str, boards: np.ndarray,
                       batch: Tuple[np.ndarray, np.ndarray, np.ndarray],
                       train_steps: int = 3, timeout_s: float = 300.0,
                       python: Optional[str] = None) -> Dict[str, Any]:
  """Save after `train_steps` steps on `batch` (boards, actions, returns),
  restore in a fresh interpreter, compare `infer` on `boards`.

  Returns:
    `{'checked': False, 'reason': ...}` without a Flex interpreter (`python`,
    default `flex_python()`), else `{'checked': True, 'identical': True,
    'max_abs_diff': 0.0, 'interpreter': ..., ...}`.

  Raises:
    ValueError: if restore does not reproduce the trained `infer` and
      weights exactly, or training did not change `infer` (then the check
      could not tell a restore from none).
    RuntimeError: if the side process fails, times out or prints no result.
  """
  python = python or flex_python()
  if python is None or not _is_executable(python):
    return {'checked': False, 'reason': NO_FLEX_REASON}
  with tempfile.TemporaryDirectory() as directory:
    data = os.path.join(directory, 'data.npz')
    np.savez(data, boards=np.asarray(boards, np.float32),
             train_boards=np.asarray(batch[0], np.float32),
             actions=np.asarray(batch[1], np.int32),
             returns=np.asarray(batch[2], np.float32))
    command = [python, '-I', str(_SCRIPT), os.path.abspath(tflite_path), data,
               os.path.join(directory, 'weights.ckpt'), str(train_steps)]
    try:
      process = subprocess.run(command, capture_output=True, text=True,
                               timeout=timeout_s, check=False,
                               env={**_TF_QUIET, **os.environ})
    except subprocess.TimeoutExpired as e:
      raise RuntimeError(f'Flex save/restore check of {tflite_path} took '
                         f'over {timeout_s:g} s.') from e
  result = _parse(process, tflite_path)
  summary = {'checked': True, 'identical': result['identical'],
             'max_abs_diff': result['max_abs_diff'],
             'interpreter': result['interpreter'],
             'train_steps': result['train_steps']}
  if not (result['identical'] and result['weights_identical']):
    raise ValueError(
        f'{tflite_path}: restore in a fresh interpreter does not reproduce '
        f'the saved one (infer differs by {result["max_abs_diff"]:.3g}, '
        f'weights by {result["weights_max_abs_diff"]:.3g}; '
        f'{result["interpreter"]}).')
  if not result['restore_changed_infer']:
    raise ValueError(f'{tflite_path}: {train_steps} train steps left infer '
                     'unchanged, so the save/restore check proves nothing.')
  return summary


def check_trainable_export(tflite_path: str,
                           environment_spec: specs.EnvironmentSpec,
                           environment: dm_env.Environment,
                           discount: float, num_games: int = 4,
                           seed: int = 0) -> Dict[str, Any]:
  """`check_save_restore` on games the model plays (sampled, as it learns on
  the device), the batch their discounted returns; plays none without a
  Flex interpreter."""
  if flex_python() is None:
    return {'checked': False, 'reason': NO_FLEX_REASON}
  model = trainable_export.TrainableTFLitePolicy(tflite_path)
  games = on_device.play(model, environment_spec, environment, num_games,
                         np.random.default_rng(seed))
  batch = on_device.training_batch(games, discount)
  return check_save_restore(tflite_path, batch[0], batch)


def _parse(process: subprocess.CompletedProcess,
           tflite_path: str) -> Dict[str, Any]:
  """The JSON result on the side process's last stdout line."""
  lines = process.stdout.strip().splitlines()
  if process.returncode == 0 and lines:
    try:
      return json.loads(lines[-1])
    except json.JSONDecodeError:
      pass
  raise RuntimeError(
      f'Flex save/restore check of {tflite_path} failed (exit '
      f'{process.returncode}):\n{process.stderr[-2000:]}'
      f'{process.stdout[-500:]}')
