"""A sweep's results: configurations ranked, with intervals and curves.

Each configuration is scored by its seeds' final greedy evaluations (the
environment's score: strikes per game on Plane Strike, lower is better;
the mean return elsewhere) with a 95% stratified-bootstrap interval of the
mean over seeds (rliable). Configurations where any seed diverged, or is
not finished, are ranked after the others and say why: no seed is dropped
silently. The best one's score is the best of many noisy estimates, so
it flatters it: once its fresh seeds have trained
(`sweep_plan.held_out_groups`), their score is reported beside it. A best
value at the edge of the values tried is named: the optimum may lie
beyond. Writes `sweep.md`, `sweep_results.json`, `curves.png` and
`curves.pdf` (the best configurations' learning curves) and
`best_preset.json`.
"""

import glob
import os
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from environments import registry as env_registry
from experiments.comparison import figure_style
from experiments.comparison import plots
from experiments.comparison import run_status
from experiments.comparison import statistics
from experiments.loops import evaluation
from experiments.setup import config as config_lib
from experiments.storage import atomic_files
from experiments.sweeps import sweep_plan

CURVES_PNG = 'curves.png'
BEST_PRESET = 'best_preset.json'
_CURVES_SHOWN = 5


def _lower_is_better(env: str) -> bool:
  reference = env_registry.reference_score(env)
  return reference is not None and reference.high < reference.low


def _lane_status(workdir: str, saved: Dict[str, Any], lane: Dict[str, Any]):
  budget = config_lib.ExperimentConfig(
      agent=saved['agent'], env=saved['env'], num_episodes=None,
      num_steps=saved['num_steps'])
  return run_status.check(os.path.join(workdir, lane['directory']), budget,
                          lane['seed'])


def rank(workdir: str, reps: int = statistics.DEFAULT_REPS
        ) -> Dict[str, Any]:
  """Every configuration's scores and interval, best first."""
  saved = sweep_plan.load(workdir)
  metric = env_registry.score_metric(saved['env'])
  lower = _lower_is_better(saved['env'])
  rows: List[Dict[str, Any]] = [
      {'configuration': i, 'values': c, 'seeds': {}, 'left_out': []}
      for i, c in enumerate(saved['configurations'])]
  for lane in saved['lanes']:
    status = _lane_status(workdir, saved, lane)
    row = rows[lane['configuration']]
    if status.state == run_status.FINISHED:
      row['seeds'][lane['seed']] = {
          'score': float(status.result[f'eval_{metric}']),
          'curve': _curve(status.evaluations, metric)}
    else:
      row['left_out'].append({'seed': lane['seed'], 'state': status.state,
                              'reason': status.reason,
                              'directory': lane['directory']})
  for row in rows:
    row['complete'] = not row['left_out']
    if row['seeds']:
      row['scores'] = [row['seeds'][s]['score'] for s in sorted(row['seeds'])]
      row['mean'] = _mean(row['scores'], reps)
  sign = 1.0 if lower else -1.0
  rows.sort(key=lambda r: (not r['complete'], 'mean' not in r,
                           sign * r['mean']['point'] if 'mean' in r else 0))
  for position, row in enumerate(rows, 1):
    row['rank'] = position
  best = rows[0] if rows else None
  return {'agent': saved['agent'], 'env': saved['env'],
          'metric': metric, 'lower_is_better': lower,
          'num_steps': saved['num_steps'], 'command': saved.get('command'),
          'preset': saved.get('preset'), 'base': saved.get('base', {}),
          'eval_protocol': evaluation.describe(
              {'policy': saved.get('eval_policy'),
               'epsilon': saved.get('eval_epsilon')}),
          'configurations': rows,
          'held_out': best and _held_out(workdir, best['configuration'],
                                         metric, reps),
          'edges': best and edges(saved['configurations'], best['values'])}


def _mean(scores: Sequence[float], reps: int) -> Dict[str, float]:
  """The mean over seeds with its 95% interval."""
  (interval,) = statistics.aggregate_intervals(
      {'x': np.array(scores)[:, None]}, ['mean'], reps,
      table=statistics.ONE_TASK)['x'].values()
  return {'point': interval.point, 'low': interval.low,
          'high': interval.high}


def _held_out(workdir: str, configuration: int, metric: str,
              reps: int) -> Optional[Dict[str, Any]]:
  """The finished fresh seeds of `configuration` and their score; None
  before any has finished."""
  found = {}
  for path in glob.glob(os.path.join(sweep_plan.held_out_directory(
      workdir, configuration), '**', 'result.json'), recursive=True):
    try:
      result = atomic_files.read_json_object(path)
    except (OSError, ValueError):
      continue
    if result.get('status') == 'finished':
      found[int(result['seed'])] = float(result[f'eval_{metric}'])
  if not found:
    return None
  scores = [found[s] for s in sorted(found)]
  return {'configuration': configuration, 'seeds': sorted(found),
          'scores': scores, 'mean': _mean(scores, reps)}


def edges(configurations: Sequence[Dict[str, Any]],
          best: Dict[str, Any]) -> List[str]:
  """A line per numeric swept value of `best` that is the smallest or the
  largest value tried: the optimum may lie beyond it."""
  found = []
  for key, value in sorted(best.items()):
    tried = sorted({c[key] for c in configurations
                    if isinstance(c.get(key), (int, float)) and
                    not isinstance(c.get(key), bool)})
    if len(tried) < 2 or value not in (tried[0], tried[-1]):
      continue
    side = 'smallest' if value == tried[0] else 'largest'
    found.append(f'{key}={value:g} is the {side} value tried '
                 f'({tried[0]:g} to {tried[-1]:g}): the best may lie beyond '
                 f'it; extend the grid or range past it.')
  return found


def _curve(evaluations: Sequence[Dict[str, Any]], metric: str) -> List:
  return [[int(r['step']), float(r[metric])] for r in evaluations]


def write(workdir: str, reps: int = statistics.DEFAULT_REPS
         ) -> Dict[str, Any]:
  """Ranks the sweep and writes its table, curves and best preset."""
  ranking = rank(workdir, reps)
  rows = ranking['configurations']
  curves, seeds_drawn = {}, {}
  for row in rows[:_CURVES_SHOWN]:
    seeds = [np.array(s['curve'], np.float64).T for s in row['seeds'].values()
             if s['curve']]
    if seeds and row['complete']:
      steps = seeds[0][0]
      if all(len(s[0]) == len(steps) and np.all(s[0] == steps)
             for s in seeds):
        mean, low, high = statistics.pointwise_mean(
            np.stack([s[1] for s in seeds]), reps)
        label = f'#{row["rank"]} {_describe(row["values"])}'
        curves[label] = (steps, mean, low, high)
        seeds_drawn[label] = len(seeds)
  plots.learning_curves(
      os.path.join(workdir, CURVES_PNG), ranking['env'], curves, seeds_drawn,
      title=f'{figure_style.agent_label(ranking["agent"])} on '
      f'{env_registry.title(ranking["env"])}: best configurations',
      references=False)
  best = rows[0] if rows and rows[0]['complete'] and 'mean' in rows[0] \
      else None
  if best is not None:
    saved = sweep_plan.load(workdir)
    sweep = sweep_plan.Sweep(**{k: v for k, v in saved.items()
                                if k not in ('command', 'lanes')})
    preset = sweep_plan.best_preset(
        sweep, best['configuration'], saved.get('command', ''),
        f'rank 1 of {len(rows)} configurations: {ranking["metric"]} '
        f'{_interval(best["mean"])} over {len(best["scores"])} seeds '
        f'(95% bootstrap CI)' + (
            f'; {_interval(ranking["held_out"]["mean"])} on '
            f'{len(ranking["held_out"]["seeds"])} fresh seeds'
            if ranking['held_out'] else ''))
    atomic_files.write_json(os.path.join(workdir, BEST_PRESET),
                            preset.to_dict())
  ranking['best_preset'] = BEST_PRESET if best is not None else None
  for row in rows:
    for seed in row['seeds'].values():
      seed.pop('curve', None)
  atomic_files.write_json(os.path.join(workdir, 'sweep_results.json'),
                          ranking)
  atomic_files.write_bytes(os.path.join(workdir, 'sweep.md'),
                           render(ranking).encode())
  return ranking


def _describe(values: Dict[str, Any]) -> str:
  return ', '.join(f'{k}={v:g}' if isinstance(v, float) else f'{k}={v}'
                   for k, v in sorted(values.items()))


def _interval(mean: Dict[str, float]) -> str:
  return f'{mean["point"]:.3f} [{mean["low"]:.3f}, {mean["high"]:.3f}]'


def render(ranking: Dict[str, Any]) -> str:
  """The text of sweep.md."""
  better = 'lower' if ranking['lower_is_better'] else 'higher'
  rows = ranking['configurations']
  out = [f'# Sweep: {ranking["agent"]} on {ranking["env"]}', '',
         '```', ranking.get('command') or '', '```', '',
         f'{len(rows)} configurations, {ranking["num_steps"]:,} environment '
         f'steps per run; score: final {ranking["eval_protocol"]} '
         f'{ranking["metric"]} '
         f'({better} is better), mean over seeds with its 95% '
         f'stratified-bootstrap interval (rliable; it cannot be wider than '
         f'the range of the seeds, and with 3 or fewer it is exactly that '
         f'range). Every configuration '
         f'starts from preset {ranking.get("preset") or "none"} with '
         f'{_describe(ranking.get("base") or {}) or "no other changes"}; '
         f'its swept values replace these.',
         '', '| Rank | Configuration | Score [95% CI] | Per seed |',
         '| --- | --- | --- | --- |']
  for row in rows:
    score = _interval(row['mean']) if 'mean' in row else '—'
    seeds = ' / '.join(f'{v:.3f}' for v in row.get('scores', []))
    if row['left_out']:
      seeds += '; left out: ' + '; '.join(
          f'seed {m["seed"]} {m["state"]} ({m["reason"]})'
          for m in row['left_out'])
    out.append(f'| {row["rank"]} | {_describe(row["values"])} | {score} | '
               f'{seeds} |')
  held_out = ranking.get('held_out')
  if held_out and rows:
    seeds = held_out['seeds']
    out += ['', f'**Rank 1 on fresh seeds.** Picked as the best of '
            f'{len(rows)} on its own seeds ({_interval(rows[0]["mean"])}), '
            f'it scores {_interval(held_out["mean"])} on seeds '
            f'{seeds[0]}–{seeds[-1]}, which the ranking never saw: quote '
            f'this one.']
  for edge in ranking.get('edges') or []:
    out += ['', f'> **At the edge:** {edge}']
  out += ['', f'![learning curves]({CURVES_PNG})', '']
  if ranking.get('best_preset'):
    out += [f'The best configuration is written as a preset: '
            f'`python -m experiments.train --agent={ranking["agent"]} '
            f'--env={ranking["env"]} --preset={ranking["best_preset"]}` '
            f'(run from this directory) trains it.', '']
  else:
    out += ['No preset written: the best-ranked configuration is not '
            'complete (see its seeds above).', '']
  return '\n'.join(out)
