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

from absl import flags

from benchmarks import fingerprints
from experiments import api
from experiments.cli import help_text
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

FLAG_GROUPS = {'Export models': ('workdir', 'output_dir')}


def _define_flags() -> None:
  flags.DEFINE_string('workdir', None, 'Where the model trains; default a '
                      'temporary folder. A finished run there is reused.')
  flags.DEFINE_string('output_dir', None, 'Write the JSON files here '
                      '(e.g. benchmarks); default: print them only.')


def measure(workdir: str) -> Dict[str, Dict[str, Any]]:
  """`{file: report}` of each export of `./run.sh`'s model in `workdir`
  (trained there first unless already finished), each beside the float
  model's own check against JAX (`float_model`)."""
  float_model = api.train(workdir, progress=False, **TRAIN)['tflite']
  measured = fingerprints.measured([api.experiment_config(**TRAIN)])
  return {name: {**api.export(workdir, **settings), 'flags': settings,
                 'float_model': float_model, 'measured': measured}
          for name, settings in EXPORTS.items()}


def main(argv):
  del argv
  library_logs.quiet()
  workdir = flags.FLAGS.workdir or os.path.join(
      tempfile.mkdtemp(prefix='export-models-'), 'default')
  for name, report in measure(workdir).items():
    text = json.dumps(report, indent=2)
    print(f'{name}: {text}', flush=True)
    if flags.FLAGS.output_dir:
      atomic_files.write_bytes(os.path.join(flags.FLAGS.output_dir, name),
                               (text + '\n').encode())


if __name__ == '__main__':
  _define_flags()
  help_text.run(main, FLAG_GROUPS, __doc__)
