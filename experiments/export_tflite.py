r"""Exports a trained policy to TFLite and verifies it against JAX.

Run on a training workdir (uses its config and newest checkpoint):

  python -m experiments.export_tflite --workdir=/tmp/ps [--quantize=dynamic]

`--quantize` shrinks the weights (int8 `dynamic` range or `float16`); the I/O
stays float32, so the app needs no change. A quantised export is compared with
the float one on the same games instead of being held to `tflite.TOLERANCE`.
`--export=trainable` writes a model that keeps learning on the device
(`experiments/export/trainable.py`), for agents whose registry entry says
they can; it gets its final name only once verified, its save/restore too
where a Flex interpreter is set up (scripts/setup_flex_env.sh, see
`experiments/export/flex_check.py`). A run's own `--imports` (recorded in
its config.json) are imported before its agent and environment are looked
up.
"""

import json
import os
import signal
import sys
import tempfile
from typing import Optional

from experiments.cli import startup_interrupt

if __name__ == '__main__':  # Ctrl-C while the libraries load: no traceback.
  startup_interrupt.exit_at_once()

from absl import app
from absl import flags

from experiments import api
from experiments.cli import flag_keywords
from experiments.cli import help_text
from experiments.cli import settings_flags
from experiments.driver import export_settings


# What --help shows, in this order (every flag in exactly one group:
# tests/experiments/cli/help_text_test.py).
FLAG_GROUPS = {
    'What to export': ('workdir', 'seed', 'output', 'export', 'quantize'),
    'Verification': ('verify_games',),
    'On-device training (--export=trainable)': (
        'train_optimizer', 'train_learning_rate', 'fine_tune_games'),
}


def _check_output(path: Optional[str]) -> None:
  """Refuses an --output the model cannot be written at, before anything
  is converted: a directory, a path under a file, or a folder where no file
  can be made (the model is written beside its final name first).

  Raises:
    app.UsageError: naming --output, the path and what is wrong.
  """
  if path is None:
    return
  path = os.path.abspath(path)
  if os.path.isdir(path):
    raise app.UsageError(
        f'--output={path} is a directory: name the .tflite file, e.g. '
        f'{os.path.join(path, "model.tflite")}.')
  existing = os.path.dirname(path)
  while not os.path.exists(existing):
    existing = os.path.dirname(existing)
  if not os.path.isdir(existing):
    raise app.UsageError(
        f'--output={path}: {existing} is a file, not a folder, so nothing '
        f'can be written under it. Name a path in a folder, e.g. '
        f'/tmp/{os.path.basename(path)}.')
  try:  # What the export will do there: make a file (and remove it).
    with tempfile.TemporaryFile(dir=existing):
      pass
  except OSError as e:
    raise app.UsageError(
        f'--output={path}: no file can be written in {existing} '
        f'({e.strerror or e}). Name a path in a folder you can write.'
    ) from e


def _define_flags() -> None:
  """Each setting's flag from its declaration
  (`driver.export_settings.ExportSettings`, which `api.export`'s keywords
  come from too), then the command's own."""
  flags.DEFINE_string('workdir', None, 'Workdir of a training run to export.')
  settings_flags.define(export_settings.ExportSettings)


def _interrupted(signum, frame) -> None:
  """Ctrl-C: one line, and exit at once (the converter's threads are not
  waited for). A model takes its name only once verified, so nothing
  half-made is left under it; a later run removes the unverified file."""
  del frame
  os.write(2, b'\nInterrupted: nothing was exported (a model already at '
           b'the output is intact). Run the same command again to export.\n')
  os._exit(128 + signum)  # pylint: disable=protected-access


def main(argv):
  del argv
  signal.signal(signal.SIGINT, _interrupted)
  _check_output(flags.FLAGS.output)
  print(f'Exporting the run in {flags.FLAGS.workdir} and verifying the '
        f'model in LiteRT...', file=sys.stderr, flush=True)
  try:
    report = api.export(**flag_keywords.flag_keywords(api.export))
  except api.UsageError as e:
    raise app.UsageError(str(e)) from e
  except api.RUN_FAILURES as e:
    sys.exit(f'FATAL {e}')
  except ValueError as e:  # tflite.VerificationError, or a failed check.
    sys.exit(f'FATAL {e}')
  except OSError as e:  # E.g. a full disk: a model is written atomically.
    sys.exit(f'FATAL {e}. A model already at the output is intact; fix the '
             f'cause (e.g. free disk space) and export again.')
  print(json.dumps(report, indent=2))


if __name__ == '__main__':
  _define_flags()
  help_text.run(main, FLAG_GROUPS, __doc__)
