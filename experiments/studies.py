"""A comparison's or a sweep's workdir as an object: its runs, their curves
and what the study wrote.

What `api.compare` and `api.sweep` return and `api.load_study` opens:

  study = api.load_study('/tmp/compare')
  study.report['aggregate']           # report.json (a sweep: its ranking)
  study.curves.eval                   # every run's eval.csv, labelled
  study.plot(env='catch')             # one line per agent, mean of seeds
"""

import glob
import os
from typing import Any, Dict, List, Optional

from experiments.comparison import plan as comparison_plan
from experiments.driver import saved_run
from experiments.setup import extras
from experiments.setup import settings as settings_lib
from experiments.storage import atomic_files
from experiments.sweeps import sweep_plan

# Kind -> (the plan file that marks its workdir, the file it writes last).
KINDS = {'comparison': (comparison_plan.FILENAME, 'report.json'),
         'sweep': (sweep_plan.FILENAME, 'sweep_results.json')}


class Study:
  """A comparison's or a sweep's workdir (finished or not).

  Attributes:
    workdir: where it saved everything.
    kind: 'comparison' or 'sweep'.
  """

  def __init__(self, workdir: str,
               report: Optional[Dict[str, Any]] = None):
    """Opens `workdir` (`report`: what the study wrote, when the caller
    holds it, as `api.compare` does; else read when asked).

    Raises:
      UsageError: `workdir` holds neither kind of study.
    """
    self.workdir = os.fspath(workdir)
    self._report = report
    kinds = [kind for kind, (plan, _) in KINDS.items()
             if os.path.isfile(os.path.join(self.workdir, plan))]
    if not kinds:
      raise settings_lib.UsageError(
          f'--workdir: {self.workdir!r} holds no comparison '
          f'({comparison_plan.FILENAME}) and no sweep '
          f'({sweep_plan.FILENAME}); a training run opens with '
          f'api.load_run.')
    self.kind = kinds[0]

  def __repr__(self) -> str:
    return (f'Study({self.workdir!r}: a {self.kind} of {len(self.runs)} '
            f'program(s), {"finished" if self.report else "not finished"})')

  @property
  def report(self) -> Optional[Dict[str, Any]]:
    """What the study wrote last: a comparison's `report.json`, a sweep's
    ranking (`sweep_results.json`, best configuration first); None until
    it has."""
    if self._report is not None:
      return self._report
    path = os.path.join(self.workdir, KINDS[self.kind][1])
    try:
      return atomic_files.read_json_object(path)
    except (OSError, ValueError):
      return None

  @property
  def runs(self) -> List[saved_run.Run]:
    """Every training program of the study (a comparison's pair, a sweep's
    group of configurations), by workdir."""
    paths = sorted(glob.glob(os.path.join(self.workdir, '**', 'config.json'),
                             recursive=True))
    return [saved_run.Run(os.path.dirname(p)) for p in paths]

  @property
  def curves(self) -> saved_run.Curves:
    """Every run's logs stacked, each row labelled with its `agent`, `env`
    and `seed` (a sweep's also with its configuration's values)."""
    extras.require('report', 'Study.curves', modules=['pandas'])
    import pandas as pd  # pylint: disable=g-import-not-at-top
    frames = {'train': [], 'eval': []}
    for run in self.runs:
      curves = run.curves
      labels = {'agent': run.config.agent, 'env': run.config.env}
      for logs in frames:
        frame = getattr(curves, logs)
        if 'seed' not in frame.columns:
          frame = frame.assign(seed=run.config.seed)
        frames[logs].append(frame.assign(**labels))
    return saved_run.Curves(**{
        logs: (pd.concat(found) if found else
               pd.DataFrame({'step': []}).set_index('step'))
        for logs, found in frames.items()})

  def plot(self, y: str = 'mean_return', x: str = 'step',
           logs: str = 'eval', env: Optional[str] = None,
           ax: Any = None) -> Any:
    """One line per agent (a comparison, on `env`: needed when it has
    several) or per configuration (a sweep): the mean over seeds of `y`
    against `x`, the seeds' range shaded; the matplotlib Axes."""
    curves = self.curves
    frame = {'eval': curves.eval, 'train': curves.train}.get(logs)
    if frame is None:
      raise settings_lib.UsageError(
          f"logs must be 'eval' or 'train'; got {logs!r}.")
    frame = frame.reset_index()
    envs = sorted(frame['env'].unique()) if 'env' in frame else []
    if env is None and len(envs) > 1:
      raise settings_lib.UsageError(
          f'env: this {self.kind} has {len(envs)} environments; name one '
          f'of {", ".join(envs)}.')
    if env is not None:
      if env not in envs:
        raise settings_lib.UsageError(
            f'env={env!r} is not one of this {self.kind}\'s: '
            f'{", ".join(envs) or "(none logged yet)"}.')
      frame = frame[frame['env'] == env]
    if frame.empty or y not in frame or x not in frame:
      raise settings_lib.UsageError(
          f'{logs}.csv has no column {y if y not in frame else x!r} with '
          f'rows yet; its columns: {", ".join(frame.columns)}.')
    import matplotlib.pyplot as plt  # pylint: disable=g-import-not-at-top
    ax = ax or plt.subplots()[1]
    excluded = {'seed', 'env', 'agent', 'trial', x, y}
    keys = (['agent'] if self.kind == 'comparison' else
            [c for c in frame.columns if c not in excluded and
             c in _swept_keys(self.runs)])
    for label, rows in frame.groupby(keys):
      by_x = rows.groupby(x)[y]
      mean = by_x.mean()
      name = ', '.join(f'{k} {v}' for k, v in zip(
          keys, label if isinstance(label, tuple) else (label,)))
      ax.plot(mean.index, mean.values, label=name)
      ax.fill_between(mean.index, by_x.min().values, by_x.max().values,
                      alpha=0.2)
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.legend()
    return ax


def _swept_keys(runs: List[saved_run.Run]) -> List[str]:
  """The agent settings a sweep's configurations vary."""
  return sorted({key for run in runs for trial in run.config.trials
                 for key in trial})
