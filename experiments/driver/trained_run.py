"""A trained run read back to export or play it: its config, the chosen
seed and that seed's actor parameters from the newest checkpoint."""

from typing import Any, Optional, Tuple

from experiments.driver import results
from experiments.driver import run as driver
from experiments.driver import workdir as workdir_lib
from experiments.setup import build as build_lib


def load(workdir: str, seed: Optional[int], refuse_diverged: bool
                ) -> Tuple[build_lib.Built, int, Any]:
  """(built run, seed, actor params) of `workdir`'s newest checkpoint, to
  export or play it (`seed`: which seed of a several-seed run; default the
  run's).

  Raises:
    ExperimentError: no run or no checkpoint in `workdir`, a sweep's
      program, a seed the run lacks, or (`refuse_diverged`) a seed whose
      training diverged; each named with what to do instead.
  """
  if not workdir:
    raise build_lib.ExperimentError(
        '--workdir is required: the training run to read.')
  try:
    config = workdir_lib.load_config(workdir)
  except (FileNotFoundError, ValueError) as e:  # ExperimentError included.
    raise build_lib.ExperimentError(f'--workdir: {e}') from e
  if config.trials:
    raise build_lib.ExperimentError(
        f'--workdir {workdir!r} is a sweep\'s program (trials of several '
        f'configurations): train the configuration to export on its own, '
        f'e.g. with the preset file the sweep wrote (--preset=<file>).')
  seed = config.seed if seed is None else seed
  seeds = build_lib.seeds(config)
  why = (results.divergence(config, workdir, seeds.index(seed))
         if refuse_diverged and seed in seeds else None)
  if why:
    raise build_lib.ExperimentError(
        f'--workdir: not exported: {why}. A diverged run is not shipped; '
        f'train again in a new --workdir (e.g. with a lower learning '
        f'rate).')
  built = build_lib.build(config)
  try:
    params = driver.restore_actor_params(built, workdir, seed)
  except ValueError as e:
    raise build_lib.ExperimentError(f'--seed: {e}') from e
  if params is None:
    raise build_lib.ExperimentError(
        f'--workdir {workdir!r} has no checkpoint yet.')
  return built, seed, params
