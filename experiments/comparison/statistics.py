"""Interval estimates of agents' scores over seeds: a thin wrapper of rliable.

Every estimate is a point and a 95% stratified-bootstrap percentile interval
over runs (seeds), as recommended by Agarwal et al. (2021), "Deep RL at the
edge of the statistical precipice". Scores are `(num_runs, num_tasks)` arrays.

Reproducibility: rliable draws its bootstrap indices from NumPy's *global*
generator (`np.random.choice` in `StratifiedBootstrap.update_indices` and
`StratifiedIndependentBootstrap._get_indices`), whatever `random_state` says.
So each estimate runs under `_seeded(seed)`, which seeds the global generator
and restores its previous state afterwards: the same inputs and seed give
bit-identical outputs, and callers' random streams are left untouched. Each
agent (or pair) is reseeded, so its estimate does not depend on the others.

rliable loads SciPy and arch (about a second): it is imported on first use,
so commands that only train never pay for it.
"""

import contextlib
import dataclasses
import itertools
import types
import warnings
from typing import Callable, Dict, Iterator, List, Mapping, Sequence, Tuple

import numpy as np

CONFIDENCE = 0.95
DEFAULT_REPS = 2000  # Bootstrap resamples per interval.


def _rliable_metric(name: str) -> Callable[..., np.ndarray]:
  """`rliable.metrics.<name>`, imported when first called."""

  def metric(*args):
    from rliable import metrics  # pylint: disable=g-import-not-at-top
    return getattr(metrics, name)(*args)

  metric.__name__ = name
  return metric


# Aggregates of `(num_runs, num_tasks)` normalised scores, in report order.
# As rliable defines them: the median is over tasks of each task's mean over
# runs (on one task, the mean); IQM pools every run of every task; the
# optimality gap is the mean shortfall below 1.
AGGREGATES = types.MappingProxyType({
    'mean': _rliable_metric('aggregate_mean'),
    'median': _rliable_metric('aggregate_median'),
    'iqm': _rliable_metric('aggregate_iqm'),
    'optimality_gap': _rliable_metric('aggregate_optimality_gap'),
})
# The same on one task's `(num_runs, 1)` scores (per-environment tables),
# except that the median is over runs, where rliable's would be the mean.
ONE_TASK = types.MappingProxyType({
    **AGGREGATES, 'median': lambda scores: np.median(scores)})
_PROBABILITY_OF_IMPROVEMENT = _rliable_metric('probability_of_improvement')


@dataclasses.dataclass(frozen=True)
class Interval:
  """A point estimate and its confidence interval `[low, high]`."""
  point: float
  low: float
  high: float


@contextlib.contextmanager
def _seeded(seed: int) -> Iterator[np.random.RandomState]:
  """Seeds NumPy's global generator (rliable's index source), then restores.

  Also yields a `RandomState(seed)` for rliable's `random_state` argument
  (used by `arch` for anything not drawn globally), and silences `arch`'s
  deprecation warning about that argument.
  """
  saved = np.random.get_state()
  np.random.seed(seed)
  try:
    with warnings.catch_warnings():
      warnings.filterwarnings('ignore', message='random_state is deprecated',
                              category=FutureWarning)
      yield np.random.RandomState(seed)
  finally:
    np.random.set_state(saved)


def _estimate(scores, func: Callable[..., np.ndarray], reps: int,
              seed: int) -> Tuple[np.ndarray, np.ndarray]:
  """Point estimates `[K]` and intervals `[2, K]` of `func` over runs."""
  from rliable import library as rly  # pylint: disable=g-import-not-at-top
  with _seeded(seed) as random_state:
    points, intervals = rly.get_interval_estimates(
        {'x': scores}, func, method='percentile', reps=reps,
        confidence_interval_size=CONFIDENCE, random_state=random_state)
  return (np.atleast_1d(np.asarray(points['x'], np.float64)),
          np.asarray(intervals['x'], np.float64).reshape(2, -1))


def _check_runs(name: str, scores: np.ndarray) -> np.ndarray:
  scores = np.asarray(scores, np.float64)
  if scores.ndim != 2 or scores.shape[0] < 1 or scores.shape[1] < 1:
    raise ValueError(f'{name}: scores must be (num_runs >= 1, num_tasks >= 1);'
                     f' got shape {scores.shape}.')
  return scores


def aggregate_intervals(
    scores: Mapping[str, np.ndarray],
    names: Sequence[str] = tuple(AGGREGATES),
    reps: int = DEFAULT_REPS,
    seed: int = 0,
    table: Mapping[str, Callable[[np.ndarray], float]] = AGGREGATES,
) -> Dict[str, Dict[str, Interval]]:
  """`{agent: {aggregate: Interval}}` of `(num_runs, num_tasks)` scores.

  `names` picks among `table` (`AGGREGATES`, or `ONE_TASK` for one task);
  all are computed on the same bootstrap resamples, and one run gives a
  point-sized interval.
  """
  unknown = [n for n in names if n not in table]
  if unknown:
    raise ValueError(f'Unknown aggregates {unknown}; valid: {list(table)}')
  fns = [table[n] for n in names]
  func = lambda x: np.array([fn(x) for fn in fns])
  result = {}
  for agent, agent_scores in scores.items():
    points, intervals = _estimate(_check_runs(agent, agent_scores), func,
                                  reps, seed)
    result[agent] = {
        name: Interval(float(points[i]), float(intervals[0, i]),
                       float(intervals[1, i]))
        for i, name in enumerate(names)
    }
  return result


def as_dict(interval: Interval) -> Dict[str, float]:
  """`{'point', 'low', 'high'}` of `interval`, for report.json."""
  return {'point': interval.point, 'low': interval.low, 'high': interval.high}


def over_seeds(values: Sequence[float], names: Sequence[str] = ('mean',),
               reps: int = DEFAULT_REPS) -> Dict[str, Dict[str, float]]:
  """`{name: {'point', 'low', 'high'}}` of one task's per-seed `values`
  (`ONE_TASK` aggregates): the per-environment tables' intervals."""
  scores = np.asarray(values, np.float64).reshape(-1, 1)
  estimates = aggregate_intervals({'x': scores}, names, reps,
                                  table=ONE_TASK)['x']
  return {name: as_dict(estimate) for name, estimate in estimates.items()}


def probability_of_improvement(
    scores: Mapping[str, np.ndarray],
    reps: int = DEFAULT_REPS,
    seed: int = 0,
) -> List[Tuple[str, str, Interval]]:
  """`(X, Y, P(X > Y))` for each pair, X before Y in `scores`' order.

  P(X > Y) is the probability that a run of X beats a run of Y on a task,
  averaged over tasks (Mann-Whitney U); P(Y > X) = 1 - P(X > Y). Runs of X
  and Y are resampled independently, so their numbers may differ.
  """
  checked = {a: _check_runs(a, s) for a, s in scores.items()}
  pairs = []
  for x, y in itertools.combinations(checked, 2):
    if checked[x].shape[1] != checked[y].shape[1]:
      raise ValueError(f'{x} and {y} have scores on different numbers of '
                       f'tasks: {checked[x].shape} vs {checked[y].shape}.')
    points, intervals = _estimate((checked[x], checked[y]),
                                  _PROBABILITY_OF_IMPROVEMENT, reps,
                                  seed)
    pairs.append((x, y, Interval(float(points[0]), float(intervals[0, 0]),
                                 float(intervals[1, 0]))))
  return pairs


def pointwise_mean(curves: np.ndarray, reps: int = DEFAULT_REPS,
                   seed: int = 0) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
  """Mean, low and high `[num_points]` over runs of `[num_runs, num_points]`.

  Each point's interval resamples runs on its own (rliable's sample
  efficiency curves); the mean is vectorised over points, so it is fast.
  """
  curves = np.asarray(curves, np.float64)
  if curves.ndim != 2 or curves.shape[0] < 1:
    raise ValueError(f'curves must be (num_runs >= 1, num_points); got shape '
                     f'{curves.shape}.')
  if curves.shape[1] == 0:
    empty = np.zeros(0)
    return empty, empty, empty
  points, intervals = _estimate(curves[:, None, :],
                                lambda x: np.mean(x[:, 0, :], axis=0), reps,
                                seed)
  return points, intervals[0], intervals[1]


def performance_profiles(scores: Mapping[str, np.ndarray],
                         taus: np.ndarray, reps: int = DEFAULT_REPS,
                         seed: int = 0) -> Dict[str, np.ndarray]:
  """`{agent: [3, len(taus)]}`: the fraction of runs (seed × task) whose
  normalised score exceeds each τ, and its 95% interval's low and high
  (rliable's score distribution, stratified bootstrap over runs; Agarwal
  et al., 2021). Unlike a mean, it shows how the scores spread."""
  from rliable import library as rly  # pylint: disable=g-import-not-at-top
  checked = {agent: _check_runs(agent, s) for agent, s in scores.items()}
  with _seeded(seed):
    points, intervals = rly.create_performance_profile(
        checked, np.asarray(taus, np.float64), reps=reps,
        confidence_interval_size=CONFIDENCE)
  return {agent: np.stack([np.asarray(points[agent], np.float64),
                           *np.asarray(intervals[agent], np.float64)])
          for agent in checked}
