"""A training run's workdir as an object: config, result, curves, policy.

`Run` reads what a run saved (`config.json`, `result.json`, each lane's
`train.csv` and `eval.csv`, its checkpoints and exported model) when asked,
so it serves a run still training as well as a finished one. It is what
`api.train` returns and `api.load_run` opens:

  run = api.load_run('/tmp/cartpole')
  run.curves.eval.plot(y='mean_return')   # pandas, in a notebook
  run.policy().predict(observation)
"""

import dataclasses
import os
from typing import Any, Dict, List, Optional, Tuple

from experiments.driver import results as results_lib
from experiments.driver import seed_logs
from experiments.driver import trained_policy
from experiments.driver import trained_run
from experiments.driver import workdir as workdir_lib
from experiments.setup import build as build_lib
from experiments.setup import config as config_lib
from experiments.setup import extras
from experiments.setup import settings as settings_lib
from experiments.storage import atomic_files


@dataclasses.dataclass(frozen=True)
class Curves:
  """A run's logs as pandas DataFrames indexed by environment step.

  Attributes:
    train: `train.csv`'s rows (the training metrics of each logged row).
    eval: `eval.csv`'s rows (`mean_return`, `mean_episode_length`,
      `episodes` and `wall_seconds` of each periodic evaluation).
    Several lanes (seeds, sweep trials) are stacked, with a `seed` column
    (and in a sweep's program `trial` and each of its swept settings).
  """
  train: Any
  eval: Any

  def plot(self, y: str = 'mean_return', x: str = 'step',
           logs: str = 'eval', ax: Any = None) -> Any:
    """One line per lane of `y` against `x` (`step` or `wall_seconds`)
    from the `logs` ('eval' or 'train'); the matplotlib Axes."""
    frame = self.plottable(logs, x, y)
    lanes = [c for c in ('trial', 'seed') if c in frame.columns]
    groups = frame.groupby(lanes) if lanes else [(None, frame)]
    for lane, rows in groups:
      label = (None if lane is None else ', '.join(
          f'{c} {v}' for c, v in zip(lanes, lane if isinstance(lane, tuple)
                                     else (lane,))))
      ax = rows.plot(x=x, y=y, ax=ax, label=label or y)
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    return ax

  def plottable(self, logs: str, x: str, y: str) -> Any:
    """The `logs` frame, its index a column, once it has `x` and `y`.

    Raises:
      UsageError: other logs than 'eval' or 'train', no rows yet, or no
        such column (the columns named).
    """
    frame = {'eval': self.eval, 'train': self.train}.get(logs)
    if frame is None:
      raise settings_lib.UsageError(
          f"logs must be 'eval' or 'train'; got {logs!r}.")
    frame = frame.reset_index()
    if frame.empty:
      raise settings_lib.UsageError(
          f'{logs}.csv has no rows yet (nothing logged yet'
          + (', or evaluations only at the end: --eval_every_steps=0'
             if logs == 'eval' else '') + '); try the other logs, '
          f'logs={"train" if logs == "eval" else "eval"!r}.')
    for name, what in ((y, 'y'), (x, 'x')):
      if name not in frame.columns:
        raise settings_lib.UsageError(
            f'{what}={name!r} is not a column of {logs}.csv; its '
            f'columns: {", ".join(frame.columns)}.')
    return frame


def as_policy(policy: Any) -> trained_policy.Policy:
  """`policy` itself, or the newest checkpoint's policy of a `Run` or a
  workdir.

  Raises:
    UsageError: anything else, or a workdir without a run.
  """
  if isinstance(policy, (str, os.PathLike)):
    policy = Run(policy)
  if isinstance(policy, Run):
    policy = policy.policy()
  if not isinstance(policy, trained_policy.Policy):
    raise settings_lib.UsageError(
        f'policy must be a Policy (api.load_policy), a Run (api.load_run) '
        f'or a workdir; got {type(policy).__name__}.')
  return policy


def stacked_logs(lanes: List[Tuple[str, Dict[str, Any]]],
                 what: str) -> Curves:
  """The `train.csv` and `eval.csv` of each `(directory, labels)` lane,
  stacked, each row with its lane's labels (pandas: the 'report' extra,
  which `what` needs)."""
  extras.require('report', what, modules=['pandas'])
  import pandas as pd  # pylint: disable=g-import-not-at-top
  frames = {'train': [], 'eval': []}
  for directory, labels in lanes:
    for logs, name in (('train', seed_logs.TRAIN_LOG),
                       ('eval', seed_logs.EVAL_LOG)):
      path = os.path.join(directory, name)
      if os.path.isfile(path) and os.path.getsize(path):
        frames[logs].append(pd.read_csv(path).assign(**labels))
  return Curves(**{
      logs: (pd.concat(found, ignore_index=True) if found
             else pd.DataFrame({'step': []})).set_index('step')
      for logs, found in frames.items()})


class Run:
  """A training run's workdir (finished or not).

  Attributes:
    workdir: where the run saved everything.
  """

  def __init__(self, workdir: str,
               result: Optional[Dict[str, Any]] = None):
    """Opens `workdir` (`result`: the run's, when the caller holds it, as
    `api.train` does; else read from the workdir when asked).

    Raises:
      UsageError: no training run's config there.
      ExperimentError: one this framework cannot read (the file named).
    """
    self.workdir = os.fspath(workdir)
    try:
      self._config = workdir_lib.load_config(self.workdir)
    except FileNotFoundError as e:
      raise settings_lib.UsageError(f'--workdir: {e}') from e
    self._result = result

  def __repr__(self) -> str:
    c = self.config
    return (f'Run({self.workdir!r}: {c.agent} on {c.env}, '
            f'{len(build_lib.seeds(c))} lane(s), {self.status})')

  @property
  def config(self) -> config_lib.ExperimentConfig:
    """The run's resolved settings (its `config.json`)."""
    return self._config

  @property
  def status(self) -> str:
    """'finished' (every lane trained, evaluated and saved its result),
    'diverged' (a lane stopped by the divergence guard) or 'not finished'
    (training, or stopped before the end: rerun to resume)."""
    statuses = [r and r.get('status') for r in self.lane_results]
    if results_lib.DIVERGED in statuses:
      return results_lib.DIVERGED
    if all(s == results_lib.FINISHED for s in statuses):
      return results_lib.FINISHED
    return 'not finished'

  @property
  def finished(self) -> bool:
    """Whether every lane finished (`status`)."""
    return self.status == results_lib.FINISHED

  @property
  def result(self) -> Optional[Dict[str, Any]]:
    """`result.json` (for several seeds `{'seeds': [...]}`); None until
    the run ends."""
    if self._result is None:
      try:
        return atomic_files.read_json_object(
            os.path.join(self.workdir, workdir_lib.RESULT))
      except (OSError, ValueError):
        return None
    return self._result

  @property
  def lane_results(self) -> List[Optional[Dict[str, Any]]]:
    """Each lane's result (a seed's, a sweep trial's seed's), its model
    named in this workdir; None for a lane that has not ended."""
    return [results_lib.lane_result(self.config, self.workdir, lane)
            for lane in range(len(build_lib.lane_names(self.config)))]

  @property
  def checkpoints(self) -> List[int]:
    """The environment steps of the checkpoints saved, oldest first."""
    directory = workdir_lib.checkpoint_directory(self.workdir)
    if not os.path.isdir(directory):
      return []
    return sorted(int(name) for name in os.listdir(directory)
                  if name.isdigit())

  @property
  def model_paths(self) -> List[str]:
    """The TFLite models exported next to the lanes' results."""
    return [r['tflite_path'] for r in self.lane_results
            if r and r.get('tflite_path') and
            os.path.isfile(r['tflite_path'])]

  @property
  def curves(self) -> Curves:
    """The lanes' `train.csv` and `eval.csv` (pandas; the 'report'
    extra)."""
    config = self.config
    lanes = []
    for index, lane in enumerate(build_lib.lane_names(config)):
      labels = {}
      if config.trials:  # A sweep's program: the trial and its values.
        labels['trial'] = build_lib.lane_trial(config, index)
        labels.update(config.trials[labels['trial']])
      if config.num_seeds > 1:
        labels['seed'] = build_lib.seeds(config)[index]
      lanes.append((os.path.join(self.workdir, lane), labels))
    return stacked_logs(lanes, 'Run.curves')

  def policy(self, seed: Optional[int] = None) -> trained_policy.Policy:
    """The policy of the newest checkpoint (`seed`: which seed of a
    several-seed run; default the run's first).

    Raises:
      UsageError: a seed the run lacks, no checkpoint yet, a sweep's
        program (train the configuration on its own).
    """
    try:
      built, _, params = trained_run.load(self.workdir, seed,
                                          refuse_diverged=False)
    except build_lib.ExperimentError as e:
      raise settings_lib.UsageError(str(e)) from e
    return trained_policy.Policy(built, params)
