"""A run's workdir: its saved config, per-seed directories and file names.

Workdir layout (one seed; with `num_seeds` > 1, `config.json`,
`checkpoints/` and a summary `result.json` stay at the top and each seed
gets `seed_<n>/` with the per-seed files):

  config.json     the resolved experiment config (checked on resume; a
                  checkpoint without it is not resumed)
  .lock           held (flock) by the one process training here: its pid,
                  host and command
  checkpoints/    Orbax checkpoints named by seed 0's environment steps:
                  state {'loop': the loop's arrays, 'wall_seconds'} and
                  host {'loop': e.g. a part-filled batch, 'evaluations'}
  damaged_checkpoints/  checkpoints that failed to restore, set aside
  train.csv       logged scalars, one row per logging interval
  eval.csv        the periodic greedy evaluations: step, mean_return,
                  mean_episode_length, episodes, wall_seconds (exactly the
                  `evaluations` the checkpoint and result.json count)
  tensorboard/    the same scalars as TensorBoard events, and the run's
                  settings for TensorBoard's HParams tab
  wandb/, wandb_run_id  with --wandb_project: Weights & Biases' files, and
                  the run id a resumed run continues
  result.json     status ('finished' or 'diverged'), final counters, greedy
                  evaluation and export results (strict JSON)
  seeds_summary.json  with several seeds (experiments.train): their mean
                  score and its 95% interval
  <env>.tflite    the exported policy (e.g. planestrike.tflite), renamed
                  into place only once verified

A process killed while saving or exporting leaves `checkpoints/<step>.orbax-
checkpoint-tmp…` or `.unverified-<pid>-<name>.tflite` behind; the next run
in the workdir removes them (`remove_litter`), and nothing else.
"""

import os
import re
from typing import List, Sequence

from agents import registry as agent_registry
from experiments.setup import build as build_lib
from experiments.setup import config as config_lib
from experiments.setup import config_drift
from experiments.setup import env_settings
from experiments.setup import user_modules
from experiments.storage import atomic_files
from experiments.storage import checkpointing
from experiments.storage import workdir_format

CONFIG = 'config.json'
RESULT = 'result.json'


def checkpoint_directory(workdir: str) -> str:
  return os.path.join(workdir, 'checkpoints')


def seed_workdir(config: config_lib.ExperimentConfig, workdir: str,
                 lane: int) -> str:
  """Where lane `lane`'s logs, result and model go (`build.lane_names`:
  the workdir for one seed, `seed_<n>/` for several, `trial_<t>/seed_<n>/`
  in a sweep)."""
  return os.path.join(workdir, build_lib.lane_names(config)[lane]).rstrip(
      os.sep) or workdir


def export_filename(env_name: str) -> str:
  """`plane_strike` -> `planestrike.tflite`."""
  return re.sub(r'[^a-z0-9]', '', env_name.lower()) + '.tflite'


def remove_litter(config: config_lib.ExperimentConfig,
                  workdir: str) -> List[str]:
  """Removes what a killed process left unfinished in `workdir`: Orbax's
  unfinished checkpoints (`checkpoints/<step>.orbax-checkpoint-tmp…`) and
  unverified exports (`.unverified-<pid>-<name>.tflite` of a process that
  is gone) in the workdir and its seeds' directories; nothing else. Only
  the holder of the workdir's lock may call this.

  Returns:
    The removed paths, relative to `workdir`.
  """
  removed = checkpointing.remove_unfinished(checkpoint_directory(workdir))
  for lane in range(len(build_lib.lane_names(config))):
    directory = seed_workdir(config, workdir, lane)
    removed += atomic_files.remove_unverified(directory)
  return [os.path.relpath(path, workdir) for path in removed]


def kept_checkpoints(config: config_lib.ExperimentConfig,
                     workdir: str) -> int:
  """How many checkpoints the run in `workdir` keeps (0: every one): its
  `keep_checkpoints`, else what the saved run was started with, else
  `config_lib.KEPT_CHECKPOINTS`."""
  if config.keep_checkpoints is not None:
    return config.keep_checkpoints
  if os.path.exists(os.path.join(workdir, CONFIG)):
    saved = _read_saved(workdir).get('keep_checkpoints')
    if isinstance(saved, int) and not isinstance(saved, bool):
      return saved
  return config_lib.KEPT_CHECKPOINTS


def _read_saved(workdir: str) -> dict:
  """config.json of `workdir` as saved, refusing other layouts and
  unreadable files (named, with the fix)."""
  path = os.path.join(workdir, CONFIG)
  try:
    saved = atomic_files.read_json_object(path)
  except (OSError, ValueError) as e:
    raise build_lib.ExperimentError(
        f'{path} cannot be read ({e}): the run\'s settings cannot be '
        f'checked, so it is not resumed. Restore the file (e.g. from a '
        f'backup), or train in a new --workdir.') from e
  try:
    return workdir_format.unstamped(saved, workdir)
  except workdir_format.OtherFormat as e:
    raise build_lib.ExperimentError(str(e)) from e


def load_config(workdir: str) -> config_lib.ExperimentConfig:
  """The config saved in `workdir` by a training run, to read the run (e.g.
  export it): without its W&B project, which only training logs to (so a
  machine without `wandb` can export it), and on one device per seed (the
  checkpoint holds whole arrays, so a run trained over several devices is
  read on a machine with fewer).

  Raises:
    FileNotFoundError: if `workdir` holds no config.json.
    ExperimentError: if it cannot be read, or was written in another
      workdir format.
  """
  if not os.path.exists(os.path.join(workdir, CONFIG)):
    raise FileNotFoundError(
        f'No {CONFIG} in {workdir!r}; is it the --workdir of a training '
        f'run?')
  saved = _read_saved(workdir)
  import_run_modules(workdir, saved.get('imports', ()))
  try:
    saved['agent_config'] = agent_registry.make_config(
        saved['agent'], **saved['agent_config'])
    saved['wandb_project'] = None
    saved['devices_per_seed'] = 1
    config = config_lib.ExperimentConfig(**saved)
    env_settings.check_values(config.env, config.env_kwargs)
    return config
  except (KeyError, TypeError, ValueError) as e:
    raise build_lib.ExperimentError(
        f'{os.path.join(workdir, CONFIG)} does not describe a run this '
        f'framework can load ({type(e).__name__}: {e}). Restore the file, '
        f'or train in a new --workdir.') from e


def import_run_modules(workdir: str, entries: Sequence[str]) -> None:
  """Imports the modules a run's config.json records (`--imports`): they
  may register its agent, environment or network.

  Raises:
    ExperimentError: naming the module that cannot be imported and how to
      make it importable; the workdir is left as it is.
  """
  try:
    user_modules.import_modules(entries)
  except ValueError as e:
    raise build_lib.ExperimentError(
        f'the run in {workdir!r} registered its pieces with '
        f'--imports={",".join(entries)}, and {str(e)[len("--imports: "):]} '
        f'The workdir is intact: make the module importable and run '
        f'again.') from e


def prepare(config: config_lib.ExperimentConfig, workdir: str) -> None:
  """Writes config.json, or refuses a workdir of another experiment.

  Raises:
    ExperimentError: naming the settings that differ.
  """
  check(config, workdir)
  os.makedirs(workdir, exist_ok=True)
  atomic_files.write_json(os.path.join(workdir, CONFIG),
                          workdir_format.stamped(config.to_dict()))


def check(config: config_lib.ExperimentConfig, workdir: str) -> None:
  """Refuses a workdir of another experiment (or one whose checkpoints
  cannot be checked); writes nothing.

  Raises:
    ExperimentError: naming the settings that differ.
  """
  path = os.path.join(workdir, CONFIG)
  checkpoints = checkpoint_directory(workdir)
  if not os.path.exists(path) and os.path.isdir(checkpoints) and any(
      name.isdigit() for name in os.listdir(checkpoints)):
    raise build_lib.ExperimentError(
        f'{path} is missing but {checkpoints} holds checkpoints: their '
        f'settings cannot be checked against these flags, so they are not '
        f'resumed. Restore config.json, or move checkpoints/ aside (or use '
        f'a new --workdir) to train from scratch.')
  if os.path.exists(path):
    differing = config_drift.differences(_read_saved(workdir), config)
    if differing:
      raise build_lib.ExperimentError(
          f'--workdir {workdir!r} holds a different experiment: '
          f'{"; ".join(differing)}. To resume it, rerun with the settings '
          f'it was started with ({path}); to train these, use a new '
          f'--workdir.')
