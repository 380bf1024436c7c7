"""Exporting a trained run's policy to TFLite, verified against JAX.

What `api.export` and `python -m experiments.export_tflite` do once their
settings are read: the run's lock held while its checkpoint is read, the
model written next to the seed's result (or to `--output`) and checked.
"""

import contextlib
import os
from typing import Any, Dict

from environments import registry as env_registry
from experiments.driver import export_settings
from experiments.driver import trained_run
from experiments.driver import workdir as workdir_lib
from experiments.export import tflite
from experiments.export import trainable_run
from experiments.setup import build as build_lib
from experiments.storage import workdir_lock


def export(workdir: str, s: export_settings.ExportSettings
          ) -> Dict[str, Any]:
  """Exports `workdir`'s newest checkpoint as `s` says; the report
  (`tflite_path`, the verification's figures).

  Raises:
    ExperimentError: no run or checkpoint there, a diverged seed, or a
      run that cannot become a trainable model; before any export.
  """
  # Held while reading the checkpoint: not mid-training, nor while
  # checkpoints rotate. (No run there: `trained_run.load` says so,
  # creating nothing.)
  is_run = bool(workdir) and os.path.isfile(
      os.path.join(workdir, workdir_lib.CONFIG))
  with (workdir_lock.WorkdirLock(workdir) if is_run else
        contextlib.nullcontext()):
    return _export(workdir, s)


def _export(workdir: str, s: export_settings.ExportSettings
           ) -> Dict[str, Any]:
  """`export`, once the workdir's lock is held."""
  try:
    built, seed, params = trained_run.load(workdir, s.seed,
                                           refuse_diverged=True)
  except build_lib.ExperimentError:
    raise
  except ValueError as e:  # E.g. the run's --imports module.
    raise build_lib.ExperimentError(str(e)) from e
  config = built.config
  filename = workdir_lib.export_filename(config.env)
  if s.quantize or s.export == 'trainable':  # Next to the float model.
    root, extension = os.path.splitext(filename)
    filename = f'{root}_{s.quantize or "trainable"}{extension}'
  path = s.output or os.path.join(
      workdir_lib.seed_workdir(config, workdir,
                               build_lib.seeds(config).index(seed)),
      filename)
  seed_built = built.for_seed(seed)
  if s.export == 'trainable':
    try:
      report = trainable_run.export(
          seed_built, params, path, s.train_optimizer,
          s.train_learning_rate, s.fine_tune_games)
    except trainable_run.NotTrainable as e:
      raise build_lib.ExperimentError(str(e)) from e
  else:
    report = tflite.export_and_verify(
        built.agent, params, built.environment_spec, path,
        seed_built.export_environment, num_games=s.verify_games,
        quantize=s.quantize, input_name=env_registry.input_name(config.env))
  return {'tflite_path': os.path.abspath(path), **report}
