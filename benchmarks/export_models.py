r"""The exported models of `./run.sh`'s experiment: quantised and trainable;
writes one JSON per export.

  python -m benchmarks.export_models --output_dir=benchmarks

Trains `./run.sh`'s experiment (`python -m experiments.train --agent=ppo
--env=plane_strike`, seed 0) in `--workdir`, then exports its policy the
four ways of docs/benchmarks/export.md, each as its command would
(`python -m experiments.export_tflite --workdir=... <flags>`), and writes
each export's report (the command's printed JSON) with the commit and the
fingerprint of the code and settings that trained the model
(`benchmarks.fingerprints`), so `python -m benchmarks.tables --check`
notices when that code changes.
"""

import json
import os
import tempfile
from typing import Any, Dict

from absl import app
from absl import flags

from benchmarks import fingerprints
from experiments import api
from experiments.cli import help_text
from experiments.driver import workdir as workdir_lib
from experiments.setup import library_logs
from experiments.storage import atomic_files

# `./run.sh`'s experiment (run.sh passes these flags to experiments.train).
TRAIN = {'agent': 'ppo', 'env': 'plane_strike'}
# Each JSON and the export flags that make it.
EXPORTS = {
    'export_int8_dynamic.json': {'quantize': 'dynamic', 'verify_games': 1000},
    'export_float16.json': {'quantize': 'float16', 'verify_games': 1000},
    'export_trainable_adam.json': {'export': 'trainable',
                                   'fine_tune_games': 320},
    'export_trainable_sgd.json': {'export': 'trainable',
                                  'train_optimizer': 'sgd'},
}
# The two trainable models' files, apart (both default to one name).
OUTPUTS = {'export_trainable_adam.json': 'planestrike_trainable_adam.tflite',
           'export_trainable_sgd.json': 'planestrike_trainable_sgd.tflite'}

FLAG_GROUPS = {'Export models': ('workdir', 'output_dir')}


def _define_flags() -> None:
  flags.DEFINE_string('workdir', None, 'Where the model trains, a folder '
                      'holding no run (the JSON names the code that trains '
                      'it); default a temporary folder.')
  flags.DEFINE_string('output_dir', None, 'Write the JSON files here '
                      '(e.g. benchmarks); default: print them only.')


def measure(workdir: str) -> Dict[str, Dict[str, Any]]:
  """`{file: report}` of each export of `./run.sh`'s model, trained in
  `workdir`, each beside the float model's own check against JAX
  (`float_model`).

  Raises:
    ValueError: `workdir` holds a run already (a model that older code
      may have trained, which the fingerprint would not name).
  """
  if os.path.exists(os.path.join(workdir, workdir_lib.CONFIG)):
    raise ValueError(f'--workdir: {workdir} holds a run already, which '
                     f'older code may have trained; pass a new folder.')
  float_model = api.train(workdir, progress=False, **TRAIN).result['tflite']
  measured = fingerprints.measured([api.experiment_config(**TRAIN)])
  reports = {}
  for name, settings in EXPORTS.items():
    if name in OUTPUTS:
      settings = {**settings, 'output': os.path.join(workdir, OUTPUTS[name])}
    reports[name] = {**api.export(workdir, **settings), 'flags': settings,
                     'float_model': float_model, 'measured': measured}
  return reports


def main(argv):
  del argv
  library_logs.quiet()
  workdir = flags.FLAGS.workdir or os.path.join(
      tempfile.mkdtemp(prefix='export-models-'), 'default')
  try:
    reports = measure(workdir)
  except ValueError as e:
    raise app.UsageError(str(e)) from e
  for name, report in reports.items():
    text = json.dumps(report, indent=2)
    print(f'{name}: {text}', flush=True)
    if flags.FLAGS.output_dir:
      atomic_files.write_bytes(os.path.join(flags.FLAGS.output_dir, name),
                               (text + '\n').encode())


if __name__ == '__main__':
  _define_flags()
  help_text.run(main, FLAG_GROUPS, __doc__)
