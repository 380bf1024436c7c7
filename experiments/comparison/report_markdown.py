"""The text of an agent comparison's `report.md`, from its report dict.

`experiments.report` computes the numbers and figures; this module only
lays them out as Markdown tables and image links.
"""

import json
import os
from typing import Any, Dict, List, Sequence


def _fmt(interval: Dict[str, float], spec: str = '.3f') -> str:
  return (f'{interval["point"]:{spec}} [{interval["low"]:{spec}}, '
          f'{interval["high"]:{spec}}]')


def _count(value: Any) -> str:
  return f'{value:,}' if isinstance(value, int) else str(value)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> List[str]:
  return ['| ' + ' | '.join(header) + ' |',
          '|' + '---|' * len(header)] + ['| ' + ' | '.join(r) + ' |'
                                         for r in rows] + ['']


def _env_markdown(env: str, env_report: Dict[str, Any],
                  agents: Sequence[str]) -> List[str]:
  """One environment's table and learning curves."""
  normalised = env_report['reference'] is not None
  header = ['Agent', 'Seeds', f'{env_report["label"]}: mean [95% CI]']
  if normalised:
    header += ['Normalised IQM', 'Normalised median', 'Normalised mean',
               'Optimality gap']
  header += ['Mean env steps', 'Wall time (s)']
  rows = []
  for agent in agents:
    row = env_report['agents'].get(agent)
    if row is None:
      rows.append([agent, '0', 'no finished run'] + [''] * (len(header) - 3))
      continue
    cells = [agent, str(len(row['seeds'])), _fmt(row['score'])]
    if normalised:
      cells += [_fmt(row['normalised'][k]) for k in
                ('iqm', 'median', 'mean', 'optimality_gap')]
    rows.append(cells + [f'{row["mean_env_steps"]:,.0f}',
                         f'{row["wall_seconds"]:.1f}'])
  return ([f'### {env}', ''] + _table(header, rows) +
          [f'![{env} learning curves]({env_report["curves_png"]})', ''])


def _finished(report: Dict[str, Any]) -> int:
  return sum(len(a['seeds']) for e in report['envs'].values()
             for a in e['agents'].values())


def _settings_table(run_settings: Dict[str, Any]) -> List[str]:
  """Each pair's preset, network and agent settings, as its runs recorded
  them (every value, so a reader can reproduce each number)."""
  if not run_settings:
    return []
  rows = []
  for env, by_agent in run_settings.items():
    for agent, r in by_agent.items():
      config = r.get('agent_config') or {}
      values = ', '.join(f'{k}={v}' for k, v in sorted(config.items()))
      network = r.get('network') or '?'
      if r.get('hidden_sizes'):
        network += ' ' + 'x'.join(map(str, r['hidden_sizes']))
      rows.append([env, agent, r.get('preset') or 'none (defaults)',
                   network, str(r.get('num_envs') or ''),
                   values or '(not recorded)'])
  return (['### Settings each agent ran with', ''] +
          _table(['Environment', 'Agent', 'Preset', 'Network',
                  'Envs per seed', 'Agent config'], rows))


def render(report: Dict[str, Any], workdir: str) -> str:
  """The text of report.md."""
  s, agg = report['settings'], report['aggregate']
  agents = s['agents']
  out = [f'# Agent comparison: {" vs ".join(agents)}', '']
  left_out = report['left_out_runs']
  if left_out:
    states = sorted({m['state'] for m in left_out})
    out += [f'> **Incomplete report:** {len(left_out)} of '
            f'{len(left_out) + _finished(report)} runs are left out of '
            f'every statistic ({", ".join(states)}); section 5 lists them.',
            '']
  out += ['```', report['command'], '```', '', '## Settings', '',
         f'- Agents: {", ".join(agents)}',
         f'- Environments: {", ".join(s["envs"])}',
         f'- Seeds: {", ".join(map(str, s["seeds"] or []))}',
         f'- Step budget: {_count(s["num_steps"])} environment steps per run; '
         f'{s["eval_points"]} periodic evaluations of '
         f'{s["periodic_eval_episodes"]} greedy episodes',
         f'- Final evaluation: {s["eval_episodes"]} greedy episodes',
         '- Presets: ' + (', '.join(s.get('presets') or []) or
                          'each pair\'s default preset'),
         '- Overrides for every agent: '
         f'{json.dumps(s["overrides"] or {}, sort_keys=True)}',
         '- Overrides per agent: '
         f'{json.dumps(s.get("agent_overrides") or {}, sort_keys=True)}',
         '']
  out += _settings_table(report.get('run_settings', {}))
  out += ['## 1. Per environment', '',
         'Scores in raw units are the mean over seeds of the final greedy '
         'evaluation; normalised statistics are over seeds. Wall time adds '
         'up the seeds (seeds trained together in one compiled program count '
         'once).', '']
  for env, env_report in report['envs'].items():
    out += _env_markdown(env, env_report, agents)
  out += ['## 2. Aggregate over environments with a reference', '']
  if agg['envs']:
    out += [f'Normalised scores on {", ".join(agg["envs"])}; each agent uses '
            'the seeds finished on all of them.', '']
    out += _table(['Agent', 'Seeds', 'Mean', 'Median', 'IQM',
                   'Optimality gap'],
                  [[a, str(len(e['seeds']))] + [_fmt(e[k]) for k in (
                      'mean', 'median', 'iqm', 'optimality_gap')]
                   for a, e in agg['agents'].items()])
  else:
    out += ['No environment has a reference score: no aggregate.', '']
  if agg['excluded_envs']:
    out += [f'Left out (no reference score, raw scores only): '
            f'{", ".join(agg["excluded_envs"])}.', '']
  if agg['dropped_agents'] and agg['envs']:
    out += [f'Dropped (no seed finished on every environment): '
            f'{", ".join(agg["dropped_agents"])}.', '']
  if report['figures']['aggregate']:
    out += [f'![aggregate]({report["figures"]["aggregate"]})', '']
  out += ['## 3. Probability of improvement', '']
  if agg['probability_of_improvement']:
    out += ['P(X > Y): the chance that a run of X scores higher than a run of '
            'Y on an environment, averaged over the environments of the '
            'aggregate; above 0.5 favours X.', '']
    out += _table(['X', 'Y', 'P(X > Y) [95% CI]'], [
        [p['x'], p['y'], _fmt(p)] for p in agg['probability_of_improvement']])
    out += [f'![probability of improvement]'
            f'({report["figures"]["probability_of_improvement"]})', '']
  else:
    out += ['Needs two agents in the aggregate.', '']
  out += ['## 4. How scores are normalised', '',
          'normalised = (score - weak) / (strong - weak): 0 is the weak '
          'reference, 1 the strong one, and higher is better on every '
          'environment (even where the raw score is better lower).', '']
  out += _table(['Environment', 'Score', 'Weak (0)', 'Strong (1)', 'Source'], [
      [env, e['label'], f'{e["reference"]["low"]:g}',
       f'{e["reference"]["high"]:g}', e['reference']['source']]
      for env, e in report['envs'].items() if e['reference']])
  out += [f'- {env}: no reference score; raw {e["label"]} only, left out of '
          'the aggregate.' for env, e in report['envs'].items()
          if not e['reference']]
  b = report['bootstrap']
  out += ['', f'Intervals are {b["confidence"]:.0%} stratified-bootstrap '
          f'(percentile) confidence intervals over seeds (rliable, '
          f'{b["reps"]} resamples); with one seed they collapse to the point.',
          '', '## 5. Runs left out', '']
  if left_out:
    out += ['These runs are in no statistic, table or curve above: '
            '*diverged* (stopped by the divergence guard: non-finite or '
            'runaway numbers), *unfinished* (still training, or stopped), '
            '*damaged* (files that do not check; `experiments.compare` '
            'retrains them). Per-environment statistics use the finished '
            'seeds; the aggregate uses, per agent, the seeds finished on '
            'every environment.', '']
    out += [f'- {m["agent"]} on {m["env"]}, seed {m["seed"]}: '
            f'**{m["state"]}**: {m["reason"]} (`{m["directory"]}`)'
            for m in left_out]
  else:
    out += ['None: every run finished.']
  out += ['', '## TensorBoard', '',
          f'`tensorboard --logdir={os.path.abspath(workdir)}` shows every run\'s curves side '
          'by side.', '']
  return '\n'.join(out)
