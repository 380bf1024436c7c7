"""What a run records as it goes: every seed's logs.

Per seed: `train.csv` and TensorBoard (each row's scalars, named and
grouped by `log_names`; TensorBoard also records the seed's settings for its
HParams tab, `run_settings`), Weights & Biases where the config names a
project, and `eval.csv` (the periodic greedy evaluations). On resume each
log is cut back to the checkpoint (a torn tail is dropped with a warning),
and `eval.csv` must then hold exactly the evaluations the checkpoint
counted: a curve with missing points is refused, never silently shortened.
No file stays open between writes, so thousands of seeds fit under the
usual open-file limit.
"""

import os
from typing import Collection, List, Optional

from experiments.driver import log_names
from experiments.driver import run_settings
from experiments.driver import workdir as workdir_lib
from experiments.loops import interface
from experiments.setup import build as build_lib
from experiments.setup import config as config_lib
from experiments.storage import loggers
from experiments.storage import wandb_logger

PerSeed = interface.PerSeed
TRAIN_LOG, EVAL_LOG, TENSORBOARD = 'train.csv', 'eval.csv', 'tensorboard'


class SeedLogs:
  """`train.csv`, TensorBoard and `eval.csv` of every seed (process 0)."""

  def __init__(self, config: config_lib.ExperimentConfig, workdir: str,
               seeds: List[int], counters: PerSeed,
               evaluations: Optional[int]):
    """`evaluations`: periodic evaluations the restored checkpoint counted;
    None for a run starting afresh (its old logs, if any, are restarted).

    Raises:
      loggers.CorruptLogError: naming a log that cannot be read, or an
        `eval.csv` whose evaluations do not match the checkpoint.
    """
    self._names = log_names.LogNames(config.environment)
    self._train, self._eval = [], []
    self._eval_paths = []
    self._unsynced = False
    self.evaluations = evaluations or 0
    network = build_lib.network_name(config)
    for i in range(len(seeds)):
      directory = workdir_lib.seed_workdir(config, workdir, i)
      resume_step = (None if evaluations is None else
                     int(counters['env_steps'][i]))
      settings = run_settings.lane_settings(config, i, network)
      train = [
          loggers.CSVLogger(os.path.join(directory, TRAIN_LOG), resume_step),
          loggers.TensorBoardLogger(os.path.join(directory, TENSORBOARD),
                                    resume_step, settings)]
      if config.wandb_project is not None:
        name, group = run_settings.wandb_names(config, workdir, i)
        train.append(wandb_logger.WandbLogger(
            config.wandb_project, directory, name, group, settings,
            resume=resume_step is not None))
      self._train.append(loggers.MultiLogger(train))
      path = os.path.join(directory, EVAL_LOG)
      self._eval_paths.append(path)
      eval_log = loggers.CSVLogger(path, resume_step)
      if eval_log.num_rows != self.evaluations:
        raise loggers.CorruptLogError(
            f'{path} holds {eval_log.num_rows} evaluations up to environment '
            f'step {resume_step}, but the checkpoint counted '
            f'{self.evaluations}: the file was damaged or edited, and the '
            f'learning curve cannot be rebuilt from the checkpoint. Train '
            f'again in a new --workdir (experiments.compare does this by '
            f'itself, moving the damaged run aside).')
      self._eval.append(eval_log)

  def write(self, rows: interface.Rows, greedy: Optional[PerSeed],
            counters: PerSeed, wall_seconds: float,
            stopped: Collection[int] = ()) -> None:
    """One log row of every seed; `greedy`: the periodic evaluation, if
    one ran. Lanes in `stopped` (a sweep's diverged trials) log nothing
    more."""
    for i, row in enumerate(rows):
      if i in stopped:
        continue
      step = int(counters['env_steps'][i])
      lane_greedy = None
      if greedy is not None:
        lane_greedy = {k: float(v[i]) for k, v in greedy.items()}
        self._eval[i].write({
            'mean_return': lane_greedy['mean_return'],
            'mean_episode_length': lane_greedy['mean_episode_length'],
            'episodes': int(counters['episodes'][i]),
            'wall_seconds': wall_seconds}, step)
      self._train[i].write(self._names.row(
          row, lane_greedy, int(counters['episodes'][i]),
          int(counters['updates'][i]), wall_seconds), step)
    if greedy is not None:
      self.evaluations += 1
      self._unsynced = True

  def sync(self) -> None:
    """Forces the evaluations written since the last call onto the disk,
    before a checkpoint that counts them (a crash of the machine must not
    leave the checkpoint ahead of eval.csv)."""
    if not self._unsynced:
      return
    for path in self._eval_paths:
      with open(path, 'rb') as f:
        os.fsync(f.fileno())
    self._unsynced = False

  def close(self) -> None:
    for logger in self._train + self._eval:
      logger.close()
