"""Runs a trainable TFLite model's save → restore in a Flex interpreter.

Run by `experiments.export.flex_check` with .venv-flex's Python
(tensorflow-cpu 2.18.1, whose `tf.lite.Interpreter` links the Flex delegate
that the model's Save/Restore ops need); it imports only the standard
library, numpy and TensorFlow, as that env holds nothing else:

  python save_restore.py MODEL.tflite DATA.npz CHECKPOINT_PATH TRAIN_STEPS

DATA.npz holds `boards` [M, *obs] to infer and one `train` batch
(`train_boards` [N, *obs], `actions` [N], `returns` [N]). Interpreter A
infers, trains TRAIN_STEPS times on the batch, infers again and saves to
CHECKPOINT_PATH; a fresh interpreter B restores it and infers. Prints one
JSON line of facts (which outputs and weights are identical, by how much
they differ); the caller judges them.
"""

import argparse
import importlib.metadata
import json
import os
from typing import Any, Dict

import numpy as np
import tensorflow as tf


def _interpreter_name() -> str:
  """The TensorFlow distribution that runs the model, e.g. 'tensorflow-cpu
  2.18.1'."""
  for distribution in ('tensorflow-cpu', 'tensorflow'):
    try:
      return f'{distribution} {importlib.metadata.version(distribution)}'
    except importlib.metadata.PackageNotFoundError:
      pass
  return f'tensorflow {tf.__version__}'


def _infer(interpreter: tf.lite.Interpreter, boards: np.ndarray) -> np.ndarray:
  """`infer` on each board (its input takes a batch of one)."""
  runner = interpreter.get_signature_runner('infer')
  (input_name,) = runner.get_input_details()
  (output_name,) = runner.get_output_details()
  return np.stack([np.array(runner(**{input_name: board[None]})[output_name][0])
                   for board in boards.astype(np.float32)])


def _weights(interpreter: tf.lite.Interpreter) -> Dict[str, np.ndarray]:
  """Every variable (params and optimizer state), copied out."""
  return {name: np.array(value) for name, value in
          interpreter.get_signature_runner('get_weights')().items()}


def _checkpoint(interpreter: tf.lite.Interpreter, signature: str,
                path: str) -> None:
  """Runs `save` or `restore` on the checkpoint at `path`."""
  interpreter.get_signature_runner(signature)(
      checkpoint_path=np.array(path.encode()))


def _max_abs_diff(a: np.ndarray, b: np.ndarray) -> float:
  return float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)),
                      initial=0.0))


def run(model_path: str, data_path: str, checkpoint_path: str,
        train_steps: int) -> Dict[str, Any]:
  """Save in A after training, restore in a fresh B; see the docstring."""
  with np.load(data_path) as data:
    boards = data['boards']
    batch = {'boards': data['train_boards'].astype(np.float32),
             'actions': data['actions'].astype(np.int32),
             'returns': data['returns'].astype(np.float32)}
  a = tf.lite.Interpreter(model_path=model_path)
  untrained = _infer(a, boards)
  train = a.get_signature_runner('train')
  losses = [float(train(**batch)['loss']) for _ in range(train_steps)]
  trained = _infer(a, boards)
  trained_weights = _weights(a)
  _checkpoint(a, 'save', checkpoint_path)
  b = tf.lite.Interpreter(model_path=model_path)
  _checkpoint(b, 'restore', checkpoint_path)
  restored = _infer(b, boards)
  restored_weights = _weights(b)
  return {
      'interpreter': _interpreter_name(),
      'boards': len(boards),
      'train_steps': train_steps,
      'losses': losses,
      'train_changed_infer': not np.array_equal(trained, untrained),
      'identical': bool(np.array_equal(restored, trained)),
      'max_abs_diff': _max_abs_diff(restored, trained),
      'restore_changed_infer': not np.array_equal(restored, untrained),
      'weights_identical': (
          sorted(restored_weights) == sorted(trained_weights) and
          all(np.array_equal(restored_weights[n], trained_weights[n])
              for n in trained_weights)),
      'weights_max_abs_diff': max(
          (_max_abs_diff(restored_weights[n], trained_weights[n])
           for n in trained_weights if n in restored_weights), default=0.0),
      'checkpoint_bytes': (os.path.getsize(checkpoint_path)
                           if os.path.isfile(checkpoint_path) else None),
  }


def main() -> None:
  parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
  parser.add_argument('model_path')
  parser.add_argument('data_path')
  parser.add_argument('checkpoint_path')
  parser.add_argument('train_steps', type=int)
  args = parser.parse_args()
  print(json.dumps(run(args.model_path, args.data_path, args.checkpoint_path,
                       args.train_steps)))


if __name__ == '__main__':
  main()
