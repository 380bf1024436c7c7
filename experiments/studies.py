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
from typing import Any, Dict, List, Optional, Tuple

from experiments.comparison import plan as comparison_plan
from experiments.driver import saved_run
from experiments.driver import workdir as workdir_lib
from experiments.setup import build as build_lib
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
            f'program(s), {"finished" if self.finished else "not finished"})')

  @property
  def finished(self) -> bool:
    """Whether the study wrote its report of every run (a comparison's
    `complete`; every configuration of a sweep ranked on all its seeds)."""
    report = self.report
    if not report:
      return False
    if self.kind == 'comparison':
      return bool(report.get('complete'))
    return all(c.get('complete') for c in report.get('configurations', ()))

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
    group of configurations, its held-out seeds), by workdir."""
    paths = sorted(glob.glob(
        os.path.join(self.workdir, '**', workdir_lib.CONFIG),
        recursive=True))
    return [saved_run.Run(os.path.dirname(p)) for p in paths]

  @property
  def curves(self) -> saved_run.Curves:
    """Every run's logs stacked, each row labelled: a comparison's with its
    `agent`, `env` and `seed`; a sweep's with its `configuration` (the
    ranking's index), that configuration's values, its `seed` and whether
    it is one of the best configuration's `held_out` seeds."""
    if self.kind == 'comparison':
      lanes = []
      for run in self.runs:
        config = run.config
        for seed, lane in zip(build_lib.seeds(config),
                              build_lib.lane_names(config)):
          lanes.append((os.path.join(run.workdir, lane), {
              'agent': config.agent, 'env': config.env, 'seed': seed}))
      return saved_run.stacked_logs(lanes, 'Study.curves')
    return saved_run.stacked_logs(self._sweep_lanes(), 'Study.curves')

  def _sweep_lanes(self) -> List[Tuple[str, Dict[str, Any]]]:
    """`(directory, labels)` of every lane of a sweep, from `sweep.json`'s
    lanes and the held-out programs."""
    plan = atomic_files.read_json_object(
        os.path.join(self.workdir, sweep_plan.FILENAME))
    values = plan['configurations']
    lanes = [(os.path.join(self.workdir, lane['directory']), {
        'configuration': lane['configuration'], 'seed': lane['seed'],
        'held_out': False, **values[lane['configuration']]})
             for lane in plan['lanes']]
    for index, configuration in enumerate(values):
      directory = sweep_plan.held_out_directory(self.workdir, index)
      for run in (self._runs_under(directory)
                  if os.path.isdir(directory) else ()):
        config = run.config
        lanes += [(os.path.join(run.workdir, lane), {
            'configuration': index, 'seed': seed, 'held_out': True,
            **configuration})
                  for seed, lane in zip(build_lib.seeds(config),
                                        build_lib.lane_names(config))]
    return lanes

  @staticmethod
  def _runs_under(directory: str) -> List[saved_run.Run]:
    return [saved_run.Run(os.path.dirname(p)) for p in sorted(glob.glob(
        os.path.join(directory, '**', workdir_lib.CONFIG), recursive=True))]

  def plot(self, y: str = 'mean_return', x: str = 'step',
           logs: str = 'eval', env: Optional[str] = None,
           ax: Any = None) -> Any:
    """One line per agent (a comparison, on `env`: needed when it has
    several) or per configuration (a sweep; its held-out seeds apart): the
    mean over seeds of `y` against `x`, the seeds' range shaded; the
    matplotlib Axes."""
    frame = self.curves.plottable(logs, x, y)
    if self.kind == 'comparison':
      envs = sorted(frame['env'].unique())
      if env is None and len(envs) > 1:
        raise settings_lib.UsageError(
            f'env: this comparison has {len(envs)} environments; name one '
            f'of {", ".join(envs)}.')
      if env is not None and env not in envs:
        raise settings_lib.UsageError(
            f'env={env!r} is not one of this comparison\'s: '
            f'{", ".join(envs)}.')
      frame = frame[frame['env'] == (env or envs[0])]
      keys = ['agent']
    elif env is not None:
      raise settings_lib.UsageError(
          'env: a sweep trains one environment; leave env unset.')
    else:
      keys = ['configuration', 'held_out']
    import matplotlib.pyplot as plt  # pylint: disable=g-import-not-at-top
    ax = ax or plt.subplots()[1]
    for label, rows in frame.groupby(keys):
      by_x = rows.groupby(x)[y]
      mean = by_x.mean()
      ax.plot(mean.index, mean.values, label=self._label(keys, label, rows))
      ax.fill_between(mean.index, by_x.min().values, by_x.max().values,
                      alpha=0.2)
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.legend()
    return ax

  def _label(self, keys: List[str], label: Any, rows: Any) -> str:
    if keys == ['agent']:
      return f'agent {label[0] if isinstance(label, tuple) else label}'
    configuration, held_out = label
    values = self._values()[int(configuration)]
    text = ', '.join(f'{k} {v:g}' if isinstance(v, float) else f'{k} {v}'
                     for k, v in values.items())
    return text + (' (held-out seeds)' if held_out else '')

  def _values(self) -> List[Dict[str, Any]]:
    return atomic_files.read_json_object(
        os.path.join(self.workdir, sweep_plan.FILENAME))['configurations']
