"""The report of an agent comparison: statistics, figures and `report.md`.

Reads the run directories that `experiments.compare` lists in
`WORKDIR/comparison.json` (no training), and writes into WORKDIR `report.md`,
`report.json` (every number of the report; same runs, same bytes),
`curves_<env>.png`, `aggregate.png`, `probability_of_improvement.png` (each
figure also as PDF, for papers) and `tables/` (every table as CSV and LaTeX).
`python -m experiments.report` is its command line.
"""

import os
from typing import Any, Dict, List, Sequence

import numpy as np

from environments import registry as env_registry
from experiments.comparison import budgets
from experiments.comparison import plan as comparison_lib
from experiments.comparison import plots
from experiments.comparison import programs
from experiments.comparison import report_markdown
from experiments.comparison import report_sections
from experiments.comparison import run_groups
from experiments.comparison import run_status
from experiments.comparison import settings_summary
from experiments.comparison import statistics
from experiments.setup import config as config_lib
from experiments.storage import atomic_files

AGGREGATE_PNG = 'aggregate.png'
IMPROVEMENT_PNG = 'probability_of_improvement.png'
PROFILE_PNG = 'performance_profile.png'
# The performance profile's thresholds, on the normalised scale.
PROFILE_TAUS = np.linspace(-0.25, 1.25, 61)
_SETTINGS = ('agents', 'envs', 'seeds', 'num_steps', 'eval_points',
             'eval_episodes', 'periodic_eval_episodes', 'eval_protocol',
             'overrides', 'agent_overrides', 'presets')
# What each run's result.json says it trained with (`driver.results`).
_RUN_SETTINGS = ('preset', 'agent_config', 'network', 'hidden_sizes',
                 'num_envs', 'eval_protocol')


def run_settings(runs) -> Dict[str, Dict[str, Any]]:
  """`{env: {agent: settings}}`: the preset, agent config, network and
  environments per seed each pair's finished runs trained with (all its
  seeds share them); results before presets lack some keys."""
  settings = {}
  for env, by_agent in runs.items():
    for agent, by_seed in by_agent.items():
      results = [r for r, _ in by_seed.values() if r is not None]
      if results:
        settings.setdefault(env, {})[agent] = {
            k: results[0].get(k) for k in _RUN_SETTINGS}
  return settings


def wall_seconds(results: Sequence[Dict[str, Any]]) -> float:
  """Training time of one agent on one env, over its seeds' results.

  Seeds trained together in one compiled program (`num_seeds` > 1) all report
  that program's time, so they count once (the max); others add up
  (`programs.once_per_program`, which device-seconds use too).
  """
  return programs.once_per_program(results, lambda r: r['wall_seconds'])


def _eval_points(rows: List[Dict[str, Any]], metric: str) -> np.ndarray:
  """`[3, n]` (steps, scores, wall seconds) of a checked `eval.csv`,
  sorted by step."""
  points = {int(r['step']): (float(r[metric]), float(r['wall_seconds']))
            for r in rows}
  return np.array([(step, *rest) for step, rest in sorted(points.items())],
                  np.float64).reshape(-1, 3).T


def _curve(evals: List[np.ndarray], comparison: Dict[str, Any], env: str,
           reps: int):
  """Pointwise mean and CI over seeds of their eval scores, or None.

  Each seed is interpolated onto `k * num_steps / eval_points` (k >= 1),
  clipped to the steps every seed has evaluated in (no extrapolation).
  """
  evals = [e for e in evals if e.shape[1]]
  if not evals:
    return None
  first = max(e[0, 0] for e in evals)
  last = min(e[0, -1] for e in evals)
  if first > last:
    return None
  points = comparison.get('eval_points')
  if points and comparison.get('num_steps'):
    grid = (np.arange(1, points + 1) * budgets.budget_of(comparison, env) /
            points)
  else:
    grid = np.concatenate([e[0] for e in evals])
  grid = np.unique(np.clip(grid, first, last))
  values = np.stack([np.interp(grid, e[0], e[1]) for e in evals])
  mean, low, high = statistics.pointwise_mean(values, reps)
  return {'steps': grid.tolist(), 'mean': mean.tolist(), 'low': low.tolist(),
          'high': high.tolist()}


_interval = statistics.as_dict


def _intervals(scores: np.ndarray, names: Sequence[str], reps: int):
  """Intervals over runs of one task's `(num_runs, 1)` scores."""
  return statistics.over_seeds(np.ravel(scores), names, reps)


def outcome_intervals(results: Sequence[Dict[str, Any]], reps: int
                     ) -> Dict[str, Any]:
  """`{won|drawn|lost: mean share over seeds [95% interval], opponent:
  whom they played}` of a two-player game's finished runs (each result's
  `eval_outcomes`, `eval_opponent`); empty for other games."""
  if not results or not all('eval_outcomes' in r for r in results):
    return {}
  opponents = sorted({r.get('eval_opponent', '?') for r in results})
  return {**{name: _intervals(np.array([r['eval_outcomes'][name]
                                        for r in results])[:, None],
                              ['mean'], reps)['mean']
             for name in results[0]['eval_outcomes']},
          'opponent': ', '.join(opponents)}


def _env_report(env: str, runs: Dict[str, Dict[int, Any]],
                comparison: Dict[str, Any], workdir: str, reps: int):
  """Per-agent statistics of `env` over its finished seeds; draws its curves.

  Also returns `{agent: {seed: normalised score}}` (empty without reference).
  """
  reference = env_registry.reference_score(env)
  metric = env_registry.score_metric(env)
  label = reference.label if reference else metric.replace('_', ' ')
  agents, curves, by_time, normalised = {}, {}, {}, {}
  for agent in comparison['agents']:
    finished = {s: r for s, (r, _) in sorted(runs[agent].items()) if r}
    if not finished:
      continue
    try:
      scores = np.array([r['eval_' + metric] for r in finished.values()],
                        np.float64)
    except KeyError as e:
      raise comparison_lib.ComparisonError(f'A result.json of {agent} on {env} lacks {e}; '
                            'was it written by experiments.compare?') from e
    agents[agent] = {
        'seeds': list(finished), 'scores': scores.tolist(),
        'score': _intervals(scores[:, None], ['mean'], reps)['mean'],
        'mean_env_steps': float(np.mean(
            [r['env_steps'] for r in finished.values()])),
        'wall_seconds': wall_seconds(list(finished.values()))}
    outcomes = outcome_intervals(list(finished.values()), reps)
    if outcomes:
      agents[agent]['outcomes'] = outcomes
    if reference is not None:
      normalised[agent] = dict(zip(finished, reference.normalise(scores)))
      agents[agent]['normalised'] = _intervals(
          reference.normalise(scores)[:, None], list(statistics.ONE_TASK),
          reps)
    curve = _curve([runs[agent][s][1] for s in finished], comparison, env,
                   reps)
    if curve:
      curves[agent] = curve
    # The same scores against the run's wall-clock time (its own grid).
    curve = _curve([runs[agent][s][1][[2, 1]] for s in finished], {}, env,
                   reps)
    if curve:
      by_time[agent] = curve
  png = f'curves_{run_groups.path_safe(env)}.png'
  wall_png = f'curves_wall_{run_groups.path_safe(env)}.png'
  for name, drawn, x_label in (
      (png, curves, 'environment steps'),
      (wall_png, by_time, 'wall-clock seconds since the run began')):
    plots.learning_curves(
        os.path.join(workdir, name), env,
        {a: tuple(np.array(c[k]) for k in ('steps', 'mean', 'low', 'high'))
         for a, c in drawn.items()},
        {a: len(agents[a]['seeds']) for a in drawn},
        colour_order=comparison['agents'], x_label=x_label)
  seeds_png = f'seeds_{run_groups.path_safe(env)}.png'
  plots.seed_scores(os.path.join(workdir, seeds_png), env,
                    {a: agents[a]['scores'] for a in agents},
                    colour_order=comparison['agents'])
  return {'metric': metric, 'label': label,
          'reference': None if reference is None else {
              'low': reference.low, 'high': reference.high,
              'source': reference.source},
          'agents': agents, 'curves': curves, 'curves_png': png,
          'curves_wall_png': wall_png, 'seeds_png': seeds_png}, normalised


def _aggregate(normalised: Dict[str, Dict[str, Dict[int, float]]],
               agents: Sequence[str], reps: int):
  """Normalised aggregates over envs with a reference, and improvement odds.

  `normalised` is `{env: {agent: {seed: score}}}` of those envs; an agent
  counts only the seeds finished on every one of them.
  """
  seeds = {}
  for agent in agents:
    per_env = [set(normalised[e].get(agent, {})) for e in normalised]
    common = sorted(set.intersection(*per_env)) if per_env else []
    if common:
      seeds[agent] = common
  scores = {a: np.array([[normalised[e][a][s] for e in normalised]
                         for s in seeds[a]]) for a in seeds}
  estimates = statistics.aggregate_intervals(scores, reps=reps)
  pairs = statistics.probability_of_improvement(scores, reps=reps)
  profiles = statistics.performance_profiles(scores, PROFILE_TAUS, reps=reps)
  return {
      'envs': list(normalised),
      'agents': {a: {'seeds': seeds[a], **{n: _interval(i) for n, i in
                                           estimates[a].items()}}
                 for a in estimates},
      'dropped_agents': [a for a in agents if a not in seeds],
      'probability_of_improvement': [
          {'x': x, 'y': y, **_interval(i)} for x, y, i in pairs],
  }, estimates, pairs, profiles


def _runs(workdir: str, comparison: Dict[str, Any]):
  """`{env: {agent: {seed: (result or None, eval points)}}}` of the finished
  seeds, and the seeds left out: `{agent, env, seed, directory, state,
  reason}` (diverged, unfinished or damaged; `run_status`)."""
  runs = {e: {a: {} for a in comparison['agents']} for e in comparison['envs']}
  left_out = []
  for run in comparison['runs']:
    if run['env'] not in runs or run['agent'] not in comparison['agents']:
      continue
    budget = config_lib.ExperimentConfig(
        agent=run['agent'], env=run['env'], num_episodes=None,
        num_steps=budgets.budget_of(comparison, run['env']))
    status = run_status.check(os.path.join(workdir, run['directory']),
                              budget, run['seed'])
    finished = status.state == run_status.FINISHED
    runs[run['env']][run['agent']][run['seed']] = (
        status.result if finished else None,
        _eval_points(status.evaluations, env_registry.score_metric(
            run['env'])) if finished else np.zeros((3, 0)))
    if not finished:
      left_out.append({**{k: run[k] for k in ('agent', 'env', 'seed',
                                              'directory')},
                       'state': status.state, 'reason': status.reason})
  return runs, left_out


def build_report(workdir: str, bootstrap_reps: int = statistics.DEFAULT_REPS) -> Dict[str, Any]:
  """Computes the report of `workdir`; writes its figures, not its text."""
  comparison = comparison_lib.load(workdir)
  lacking = [k for k in ('agents', 'envs', 'runs') if k not in comparison]
  if lacking:
    raise comparison_lib.ComparisonError(
        f'{workdir!r}/comparison.json lacks {lacking}; rerun '
        'experiments.compare with this --workdir to rewrite it.')
  runs, left_out = _runs(workdir, comparison)
  if not any(r for env in runs.values() for a in env.values()
             for r, _ in a.values()):
    raise comparison_lib.ComparisonError(
        f'No finished run in {workdir!r} (no complete result.json yet); let '
        'experiments.compare finish at least one run, then report again.')
  envs, normalised = {}, {}
  for env in comparison['envs']:
    envs[env], scores = _env_report(env, runs[env], comparison, workdir,
                                    bootstrap_reps)
    if envs[env]['reference'] is not None:
      normalised[env] = scores
  aggregate, estimates, pairs, profiles = _aggregate(
      normalised, comparison['agents'], bootstrap_reps)
  aggregate['excluded_envs'] = [e for e in envs if e not in normalised]
  drawn = [png for e in envs.values()
           for png in (e['curves_png'], e['curves_wall_png'],
                       e['seeds_png'])]
  seeds = {a: len(e['seeds']) for a, e in aggregate['agents'].items()}
  for name, values, draw in (
      (AGGREGATE_PNG, estimates, lambda path: plots.aggregate_metrics(
          path, estimates, seeds, aggregate['envs'], comparison['agents'])),
      (IMPROVEMENT_PNG, pairs, lambda path: plots.probability_of_improvement(
          path, pairs, seeds, aggregate['envs'])),
      (PROFILE_PNG, profiles, lambda path: plots.performance_profile(
          path, profiles, PROFILE_TAUS, seeds, aggregate['envs'],
          comparison['agents']))):
    path = os.path.join(workdir, name)
    if values:
      draw(path)
      drawn.append(name)
    else:
      for stale in plots.files(path):  # From an earlier report.
        if os.path.exists(stale):
          os.remove(stale)
  return report_sections.finish({
      'command': comparison.get('command', ''),
      'settings': {k: comparison.get(k) for k in _SETTINGS},
      # What the budgets cut short (`budgets.warnings`), said up front.
      'budget_warnings': comparison.get('warnings', []),
      # Finished runs whose learning collapsed or never started (each
      # result.json's `warnings`): counted, and named.
      'run_warnings': [
          {'agent': agent, 'env': env, 'seed': seed, 'warning': warning}
          for env, by_agent in runs.items()
          for agent, by_seed in by_agent.items()
          for seed, (result, _) in sorted(by_seed.items())
          for warning in ((result or {}).get('warnings') or [])],
      'run_settings': settings_summary.with_defaults(run_settings(runs)),
      'bootstrap': {'reps': bootstrap_reps,
                    'confidence': statistics.CONFIDENCE,
                    'method': 'stratified bootstrap over seeds, percentile'},
      'envs': envs, 'aggregate': aggregate,
      # Every seed not in the statistics, and why: the report is complete
      # only when this is empty.
      'complete': not left_out,
      'left_out_runs': left_out,
      'figures': {'aggregate': AGGREGATE_PNG if estimates else None,
                  'performance_profile': PROFILE_PNG if profiles else None,
                  'probability_of_improvement':
                      IMPROVEMENT_PNG if pairs else None,
                  # Every figure file: each figure as PNG (report.md links
                  # it) and as PDF (for papers).
                  'files': [f for name in drawn for f in plots.files(name)]},
      **report_sections.from_runs(runs, left_out, bootstrap_reps),
  })


def write_report(workdir: str, bootstrap_reps: int = statistics.DEFAULT_REPS) -> Dict[str, Any]:
  """Writes report.md, report.json, the figures and `tables/` (CSV and
  LaTeX); returns the report."""
  report = build_report(workdir, bootstrap_reps)
  report_sections.write_tables(report, workdir)
  atomic_files.write_json(os.path.join(workdir, 'report.json'), report)
  atomic_files.write_bytes(os.path.join(workdir, 'report.md'),
                           report_markdown.render(report, workdir).encode())
  return report
