"""`experiments.export_tflite`'s settings (and `api.export`'s keywords),
each declared once (`setup.settings`): the command's flags are made from
these fields, and given values are checked against them."""

import dataclasses
from typing import Optional

from agents import optimizers
from experiments.export import tflite
from experiments.setup import settings as settings_lib

_setting = settings_lib.setting
# plain: the app's model (infer only); trainable: it keeps learning on the
# device (`export.trainable`).
EXPORTS = ('plain', 'trainable')


@dataclasses.dataclass(frozen=True)
class ExportSettings:
  """What to export from a training run, and how to verify it."""
  output: Optional[str] = _setting(
      None, 'Path of the .tflite file; default WORKDIR/<env>.tflite.')
  seed: Optional[int] = _setting(
      None, 'Which seed of a --num_seeds run to export; default the run\'s '
      '--seed.', lower=0)
  export: str = _setting(
      'plain', 'plain: the app\'s model (infer only); trainable: also '
      'train/get_weights/set_weights/save/restore signatures for on-device '
      'training (output name gets _trainable).', choices=EXPORTS)
  quantize: Optional[str] = _setting(
      None, 'Quantise the weights: int8 dynamic range or float16. The '
      'default output name gets a _<quantize> suffix.',
      choices=tflite.QUANTIZATIONS)
  verify_games: int = _setting(
      1000, 'Greedy games played through the interpreter.', lower=1)
  train_optimizer: Optional[str] = _setting(
      None, '--export=trainable: the on-device optimizer; default the agent '
      'config\'s (else adam).', choices=optimizers.OPTIMIZERS)
  train_learning_rate: Optional[float] = _setting(
      None, '--export=trainable: on-device learning rate; default the agent '
      'config\'s (else 1e-3).')
  fine_tune_games: int = _setting(
      0, '--export=trainable: after verifying, fine-tune a copy on this many '
      'games played through the interpreter and report greedy strikes '
      'before and after.', lower=0)
