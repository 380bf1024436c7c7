"""How fast each agent learns: metrics of each run's learning curve.

The final score says where an agent ends; a paper also asks how quickly it
gets there. From each seed's periodic greedy evaluations (`eval.csv`), on
normalised scores where the environment has a reference (raw scores
otherwise):

- area under the curve (AUC): the mean score over the run, i.e. the
  trapezoid integral of score over environment steps from the first to the
  last evaluation, divided by that span of steps;
- the score at 25/50/75/100% of the run's budget: the evaluation nearest
  to that fraction of the environment steps the run trained, if one is
  nearer than half the evaluations' spacing (evaluations land a little
  after the nominal points, as steps come in whole updates; "the last one
  before" would then take the previous evaluation, or none);
- the environment steps to reach a threshold: the step of the first
  evaluation whose normalised score is at least `THRESHOLD` (only with a
  reference: raw scores have no common scale).

Intervals over seeds are the report's (rliable, `statistics.over_seeds`).
"""

from typing import Any, Dict, Mapping, Optional, Sequence, Tuple

import numpy as np

from experiments.comparison import statistics

# Normalised: 90% of the way from the weak to the strong reference.
THRESHOLD = 0.9
FRACTIONS = (0.25, 0.5, 0.75, 1.0)


def fraction_key(fraction: float) -> str:
  return f'{fraction:.0%}'


def _check(steps: np.ndarray, scores: np.ndarray) -> None:
  if steps.shape != scores.shape or steps.ndim != 1:
    raise ValueError(f'steps and scores must be 1-D of one length; got '
                     f'{steps.shape} and {scores.shape}.')
  if not (np.all(np.isfinite(steps)) and np.all(np.isfinite(scores))):
    raise ValueError('steps and scores must be finite.')
  if np.any(np.diff(steps) <= 0):
    raise ValueError(f'steps must increase; got {steps.tolist()}.')


def area_under_curve(steps: Sequence[float],
                     scores: Sequence[float]) -> Optional[float]:
  """Mean score over the evaluated span: trapezoid area / (last - first
  step); a single evaluation is its own mean; None without any."""
  steps, scores = np.asarray(steps, np.float64), np.asarray(scores,
                                                              np.float64)
  _check(steps, scores)
  if steps.size == 0:
    return None
  if steps.size == 1:
    return float(scores[0])
  area = np.sum((scores[1:] + scores[:-1]) / 2 * np.diff(steps))
  return float(area / (steps[-1] - steps[0]))


def score_at(steps: Sequence[float], scores: Sequence[float],
             step: float) -> Optional[float]:
  """The score of the evaluation nearest to `step` (the later one on a
  tie), if it is nearer than half the median spacing of the evaluations
  (half the first one's step when there is one); else None."""
  steps, scores = np.asarray(steps, np.float64), np.asarray(scores,
                                                              np.float64)
  _check(steps, scores)
  if not steps.size:
    return None
  spacing = (float(np.median(np.diff(steps))) if steps.size > 1 else
             float(steps[0]))
  distance = np.abs(steps - step)
  nearest = int(np.flatnonzero(distance == distance.min())[-1])
  return (float(scores[nearest]) if distance[nearest] < spacing / 2
          else None)


def steps_to_reach(steps: Sequence[float], scores: Sequence[float],
                   threshold: float) -> Optional[int]:
  """The step of the first evaluation scoring >= `threshold`, or None."""
  steps, scores = np.asarray(steps, np.float64), np.asarray(scores,
                                                              np.float64)
  _check(steps, scores)
  reached = np.nonzero(scores >= threshold)[0]
  return int(steps[reached[0]]) if reached.size else None


def seed_metrics(steps: Sequence[float], scores: Sequence[float],
                 budget: float, threshold: Optional[float]) -> Dict[str, Any]:
  """One seed's metrics: `auc`, `score_at` (`{'25%': score or None, …}`,
  fractions of `budget`, the steps it trained) and `steps_to_threshold`
  (None when not reached; absent without `threshold`)."""
  metrics = {'auc': area_under_curve(steps, scores),
             'score_at': {fraction_key(f): score_at(steps, scores, f * budget)
                          for f in FRACTIONS}}
  if threshold is not None:
    metrics['steps_to_threshold'] = steps_to_reach(steps, scores, threshold)
  return metrics


def _interval(values: Sequence[Optional[float]], reps: int
             ) -> Optional[Dict[str, float]]:
  """Mean and interval over seeds, or None if some seed has no value."""
  if not values or any(v is None for v in values):
    return None
  return statistics.over_seeds(values, ('mean',), reps)['mean']


def agent_metrics(curves: Mapping[int, Tuple[np.ndarray, float]],
                  normalise, threshold: Optional[float],
                  reps: int) -> Dict[str, Any]:
  """One agent's metrics on one environment over its seeds.

  `curves`: `{seed: ([2, n] steps and raw scores, steps trained)}`;
  `normalise`: raw → reported scores (identity without a reference).
  Returns `per_seed` (`seed_metrics` with its `seed`, by seed) and, over
  seeds, `auc` and
  `score_at` intervals (None when a seed lacks the value), and
  `steps_to_threshold`: `reached` (how many seeds), `seeds`, and `mean`
  (an interval when every seed reached it, else None).
  """
  seeds = [{'seed': seed, **seed_metrics(points[0], normalise(points[1]),
                                         budget, threshold)}
           for seed, (points, budget) in sorted(curves.items())]
  out = {'per_seed': seeds,
         'auc': _interval([m['auc'] for m in seeds], reps),
         'score_at': {fraction_key(f): _interval(
             [m['score_at'][fraction_key(f)] for m in seeds], reps)
                      for f in FRACTIONS}}
  if threshold is not None:
    steps = [m['steps_to_threshold'] for m in seeds]
    out['steps_to_threshold'] = {
        'reached': sum(s is not None for s in steps), 'seeds': len(steps),
        'mean': _interval(steps, reps)}
  return out


def env_metrics(runs: Mapping[str, Mapping[int, Tuple[Optional[dict],
                                                      np.ndarray]]],
                reference, reps: int,
                threshold: float = THRESHOLD) -> Dict[str, Any]:
  """Every agent's metrics on one environment.

  `runs`: `{agent: {seed: (result or None, [2, n] eval points)}}` (the
  report's; unfinished seeds have no result and are skipped); `reference`:
  the environment's `ReferenceScore`, or None for raw scores.
  """
  normalised = reference is not None
  normalise = reference.normalise if normalised else (
      lambda x: np.asarray(x, np.float64))
  agents = {}
  for agent, by_seed in runs.items():
    curves = {seed: (points, float(result['env_steps']))
              for seed, (result, points) in by_seed.items() if result}
    if curves:
      agents[agent] = agent_metrics(curves, normalise,
                                    threshold if normalised else None, reps)
  return {'normalised': normalised,
          'threshold': threshold if normalised else None,
          'fractions': [fraction_key(f) for f in FRACTIONS],
          'agents': agents}
