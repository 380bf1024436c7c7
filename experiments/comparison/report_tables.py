"""The report's tables, built from the report dict (`report.build_report`).

Each builder returns a `tables.Table`; `report.md` shows them in Markdown
and `tables/` holds each as CSV and LaTeX (`all_tables`), so the numbers a
paper quotes are the report's. Names are for people: 'PPO', 'Plane Strike'.
"""

from typing import Any, Dict, List, Mapping, Optional

from agents import registry as agent_registry
from environments import registry as env_registry
from experiments.comparison import run_groups
from experiments.comparison import settings_summary
from experiments.comparison import tables

Column = tables.Column
NORMALISED = (('Normalised IQM', 'iqm'), ('Normalised median', 'median'),
              ('Normalised mean', 'mean'), ('Optimality gap', 'optimality_gap'))


def agent_title(agent: str) -> str:
  """The agent's title, or its name if it is not registered here."""
  try:
    return agent_registry.title(agent)
  except ValueError:
    return agent


def score_label(env_report: Mapping[str, Any]) -> str:
  """What the env's score counts, and which way is better when it is not
  the usual (higher): 'strikes per game (lower is better)'."""
  reference = env_report.get('reference')
  lower = reference is not None and reference['high'] < reference['low']
  return env_report['label'] + (' (lower is better)' if lower else '')


def _per_env_rows(report: Mapping[str, Any], env: str) -> List[Dict[str, Any]]:
  env_report = report['envs'][env]
  rows = []
  for agent in report['settings']['agents']:
    row = {'env': env_registry.title(env),
           'score_measure': score_label(env_report),
           'agent': agent_title(agent)}
    stats = env_report['agents'].get(agent)
    if stats is None:
      rows.append({**row, 'seeds': 0, 'score': 'no finished run'})
      continue
    row.update(seeds=len(stats['seeds']), score=stats['score'],
               mean_env_steps=stats['mean_env_steps'],
               wall_seconds=stats['wall_seconds'])
    for _, key in NORMALISED:
      row[key] = (stats.get('normalised') or {}).get(key)
    rows.append(row)
  return rows


def _per_env_columns(normalised: bool) -> List[Column]:
  return ([Column(title, key, '.3f', 'r') for title, key in NORMALISED]
          if normalised else []) + [
              Column('Mean env steps', 'mean_env_steps', ',.0f', 'r'),
              Column('Training wall time (s)', 'wall_seconds', '.1f', 'r')]


def per_env(report: Mapping[str, Any], env: str) -> tables.Table:
  """One environment's final scores with 95% intervals (report.md)."""
  env_report = report['envs'][env]
  columns = [Column('Agent', 'agent'), Column('Seeds', 'seeds', '', 'r'),
             Column(f'{score_label(env_report)[:1].upper()}'
                    f'{score_label(env_report)[1:]}: mean [95% CI]', 'score',
                    '.3f', 'r')]
  columns += _per_env_columns(env_report['reference'] is not None)
  return tables.Table(f'per_env_{env}', tuple(columns),
                      tuple(_per_env_rows(report, env)))


def outcomes(report: Mapping[str, Any], env: str) -> Optional[tables.Table]:
  """A two-player game's shares of games won, drawn and lost against the
  opponent, means over seeds with 95% intervals; None for other games."""
  rows = []
  for agent in report['settings']['agents']:
    stats = report['envs'][env]['agents'].get(agent)
    if stats is not None and 'outcomes' in stats:
      rows.append({'agent': agent_title(agent), 'seeds': len(stats['seeds']),
                   **stats['outcomes']})
  if not rows:
    return None
  return tables.Table(f'outcomes_{run_groups.path_safe(env)}', (
      Column('Agent', 'agent'), Column('Opponent', 'opponent'),
      Column('Seeds', 'seeds', '', 'r'),
      Column('Won: mean [95% CI]', 'won', '.3f', 'r'),
      Column('Drawn', 'drawn', '.3f', 'r'),
      Column('Lost', 'lost', '.3f', 'r')), tuple(rows))


def per_env_all(report: Mapping[str, Any]) -> tables.Table:
  """Every environment's `per_env` rows in one table (the CSV/LaTeX file)."""
  rows = [r for env in report['envs'] for r in _per_env_rows(report, env)]
  normalised = any(e['reference'] for e in report['envs'].values())
  columns = [Column('Environment', 'env'), Column('Score', 'score_measure'),
             Column('Agent', 'agent'), Column('Seeds', 'seeds', '', 'r'),
             Column('Mean [95% CI]', 'score', '.3f', 'r')]
  return tables.Table('per_env', tuple(columns +
                                       _per_env_columns(normalised)),
                      tuple(rows), group=('env', 'score_measure'))


def aggregate(report: Mapping[str, Any]) -> Optional[tables.Table]:
  """Normalised aggregates over the environments with a reference."""
  agg = report['aggregate']
  if not agg['agents']:
    return None
  rows = [{'agent': agent_title(a), 'seeds': len(e['seeds']),
           **{k: e[k] for k in ('mean', 'median', 'iqm', 'optimality_gap')}}
          for a, e in agg['agents'].items()]
  return tables.Table('aggregate', (
      Column('Agent', 'agent'), Column('Seeds', 'seeds', '', 'r'),
      Column('Mean', 'mean', '.3f', 'r'), Column('Median', 'median', '.3f',
                                                 'r'),
      Column('IQM', 'iqm', '.3f', 'r'),
      Column('Optimality gap', 'optimality_gap', '.3f', 'r')), tuple(rows))


def improvement(report: Mapping[str, Any]) -> Optional[tables.Table]:
  """P(X > Y) of each pair of agents, with intervals."""
  pairs = report['aggregate']['probability_of_improvement']
  if not pairs:
    return None
  return tables.Table('probability_of_improvement', (
      Column('X', 'x'), Column('Y', 'y'),
      Column('P(X > Y) [95% CI]', 'p', '.3f', 'r')), tuple(
          {'x': agent_title(p['x']), 'y': agent_title(p['y']),
           'p': {k: p[k] for k in ('point', 'low', 'high')}} for p in pairs))


def per_seed(report: Mapping[str, Any]) -> tables.Table:
  """Every run: score, normalised score, its sample efficiency (AUC, steps
  to the threshold), steps, wall time and status (why a run is left out:
  report.md's section 7, report.json's rows)."""
  rows = [{**r, 'env': env_registry.title(r['env']),
           'agent': agent_title(r['agent'])} for r in report['per_seed']]
  return tables.Table('per_seed', (
      Column('Environment', 'env'), Column('Agent', 'agent'),
      Column('Seed', 'seed', '', 'r'), Column('Score', 'score', '.3f', 'r'),
      Column('Normalised', 'normalised', '.3f', 'r'),
      Column('AUC', 'auc', '.3f', 'r'),
      Column('Env steps to threshold', 'steps_to_threshold', ',', 'r'),
      Column('Env steps', 'env_steps', ',', 'r'),
      Column('Wall time of its program (s)', 'wall_seconds', '.1f', 'r'),
      Column('Seeds in its program', 'seeds_in_program', '', 'r'),
      Column('Status', 'status')), tuple(rows), group=('env',))


def _threshold_cell(stats: Optional[Mapping[str, Any]]) -> Any:
  if stats is None:
    return None
  if stats['mean'] is not None:
    return stats['mean']
  if not stats['reached']:
    return 'not reached'
  return f'reached by {stats["reached"]} of {stats["seeds"]} seeds'


def _at_key(fraction: str) -> str:
  """'25%' → 'score_at_25pct' (a CSV column name without '%')."""
  return f'score_at_{fraction.rstrip("%")}pct'


def _efficiency_rows(report: Mapping[str, Any], env: str
                    ) -> List[Dict[str, Any]]:
  metrics = report['sample_efficiency']['envs'][env]
  rows = []
  for agent in report['settings']['agents']:
    stats = metrics['agents'].get(agent)
    row = {'env': env_registry.title(env),
           'scores': 'normalised' if metrics['normalised'] else
                    f'raw {report["envs"][env]["label"]}',
           'agent': agent_title(agent)}
    if stats is None:
      rows.append({**row, 'seeds': 0, 'auc': 'no finished run'})
      continue
    row.update(seeds=len(stats['per_seed']), auc=stats['auc'],
               steps_to_threshold=_threshold_cell(
                   stats.get('steps_to_threshold')),
               **{_at_key(k): v for k, v in stats['score_at'].items()})
    rows.append(row)
  return rows


def _efficiency_columns(report: Mapping[str, Any], threshold: bool
                       ) -> List[Column]:
  fractions = report['sample_efficiency']['fractions']
  columns = [Column('AUC [95% CI]', 'auc', '.3f', 'r')] + [
      Column(f'At {f} of budget', _at_key(f), '.3f', 'r') for f in fractions]
  if threshold:
    columns.append(Column(
        f'Env steps to ≥ {report["sample_efficiency"]["threshold"]:g}',
        'steps_to_threshold', ',.0f', 'r'))
  return columns


def sample_efficiency(report: Mapping[str, Any], env: str) -> tables.Table:
  """One environment's learning-curve metrics (report.md)."""
  normalised = report['sample_efficiency']['envs'][env]['normalised']
  columns = [Column('Agent', 'agent'), Column('Seeds', 'seeds', '', 'r')]
  return tables.Table(f'sample_efficiency_{env}', tuple(
      columns + _efficiency_columns(report, normalised)),
                      tuple(_efficiency_rows(report, env)))


def sample_efficiency_all(report: Mapping[str, Any]) -> tables.Table:
  """Every environment's `sample_efficiency` rows (the CSV/LaTeX file)."""
  envs = report['sample_efficiency']['envs']
  rows = [r for env in envs for r in _efficiency_rows(report, env)]
  columns = [Column('Environment', 'env'), Column('Scores', 'scores'),
             Column('Agent', 'agent'), Column('Seeds', 'seeds', '', 'r')]
  threshold = any(e['normalised'] for e in envs.values())
  return tables.Table('sample_efficiency', tuple(
      columns + _efficiency_columns(report, threshold)), tuple(rows),
                      group=('env', 'scores'))


def settings(report: Mapping[str, Any]) -> Dict[str, tables.Table]:
  """`{agent: its settings table}` (`settings_summary.agent_table`)."""
  out = {}
  for agent in report['settings']['agents']:
    table = settings_summary.agent_table(agent, report['settings']['envs'],
                                         report.get('run_settings', {}))
    if table is not None:
      out[agent] = table
  return out


def all_tables(report: Mapping[str, Any]) -> List[tables.Table]:
  """The tables written under `tables/`, as CSV and LaTeX."""
  out = [per_env_all(report), aggregate(report), improvement(report),
         sample_efficiency_all(report), per_seed(report)]
  out += [outcomes(report, env) for env in report['envs']]
  return [t for t in out if t is not None] + list(settings(report).values())


def links(table: Optional[tables.Table]) -> str:
  """'CSV: tables/x.csv · LaTeX: tables/x.tex' as Markdown links."""
  if table is None:
    return ''
  names = tables.file_names(table)
  return (f'As CSV: [{names["csv"]}]({names["csv"]}); as LaTeX: '
          f'[{names["tex"]}]({names["tex"]}).')
