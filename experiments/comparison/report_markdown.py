"""The text of an agent comparison's `report.md`, from its report dict.

`experiments.report` computes the numbers and figures; this module only
lays them out as Markdown: tables (`report_tables`, the same ones written
as CSV and LaTeX under `tables/`), image links and the sentences that say
how to read them.
"""

import os
from typing import Any, Dict, List, Mapping, Sequence

from environments import registry as env_registry
from experiments.comparison import caveats
from experiments.comparison import provenance_summary
from experiments.comparison import report_tables
from experiments.comparison import settings_summary
from experiments.comparison import tables
from experiments.loops import evaluation

SECTIONS = ('1. Per environment', '2. Aggregate over environments with a '
            'reference', '3. Probability of improvement',
            '4. Sample efficiency', '5. How scores are normalised',
            '6. Provenance', '7. Runs left out')
_title = report_tables.agent_title


def _count(value: Any) -> str:
  return f'{value:,}' if isinstance(value, int) else str(value)


def _protocol(report: Mapping[str, Any]) -> str:
  """How evaluations acted: greedy, sampled or ε-greedy (ε …); where
  each pair took its default (`setup.eval_defaults`), those of the runs."""
  protocol = report['settings'].get('eval_protocol') or {'policy': 'greedy'}
  if protocol.get('policy') is not None:
    return evaluation.describe(protocol)
  used = sorted({evaluation.describe(pair.get('eval_protocol'))
                 for by_agent in report.get('run_settings', {}).values()
                 for pair in by_agent.values()
                 if pair.get('eval_protocol')})
  if len(used) == 1:
    return used[0]
  return (' or '.join(used) or 'not yet known') + (
      ' (each pair\'s default; appendix A)')


def _budgets(num_steps: Any) -> str:
  """One count, or each environment's (`env` count; …)."""
  if not isinstance(num_steps, Mapping):
    return _count(num_steps)
  counts = set(num_steps.values())
  if len(counts) == 1:
    return _count(counts.pop())
  return '; '.join(f'{env_registry.title(e)} {_count(n)}'
                   for e, n in num_steps.items())


def _names(names: Sequence[str], title) -> str:
  return ', '.join(f'{title(n)} (`{n}`)' for n in names)


def _values(values: Mapping[str, Any]) -> str:
  if not values:
    return 'none'
  return ', '.join(f'`{k}` = {settings_summary.value_text(v)}'
                   for k, v in sorted(values.items()))


def _finished(report: Mapping[str, Any]) -> int:
  return sum(len(a['seeds']) for e in report['envs'].values()
             for a in e['agents'].values())


def _header(report: Mapping[str, Any]) -> List[str]:
  """Title, warnings, command and the comparison's settings."""
  s = report['settings']
  out = [f'# Agent comparison: {" vs ".join(map(_title, s["agents"]))}', '']
  left_out = report['left_out_runs']
  if left_out:
    states = sorted({m['state'] for m in left_out})
    out += [f'> **Incomplete report:** {len(left_out)} of '
            f'{len(left_out) + _finished(report)} runs are left out of '
            f'every statistic ({", ".join(states)}); section 7 lists them.',
            '']
  out += caveats.markdown(report.get('few_seeds', []),
                          report['bootstrap']['confidence'], _title)
  out += caveats.budget_markdown(report.get('budget_warnings', []))
  out += caveats.run_markdown(report.get('run_warnings', []), _title)
  per_agent = s.get('agent_overrides') or {}
  out += ['```', report['command'], '```', '', '## Settings', '',
          f'- Agents: {_names(s["agents"], _title)}',
          f'- Environments: {_names(s["envs"], env_registry.title)}',
          f'- Seeds: {", ".join(map(str, s["seeds"] or []))}',
          f'- Step budget per run: {_budgets(s["num_steps"])} environment '
          f'steps; {s["eval_points"]} periodic evaluations of '
          f'{s["periodic_eval_episodes"]} {_protocol(report)} episodes (the '
          'learning curves)',
          f'- Final evaluation (the score): {s["eval_episodes"]} '
          f'{_protocol(report)} episodes, from each seed\'s own evaluation '
          'stream (never its training episodes)',
          '- Presets: ' + (', '.join(s.get('presets') or []) or
                           'each pair\'s default preset'),
          f'- Overrides for every agent (`--config.<key>`): '
          f'{_values(s["overrides"] or {})}',
          '- Overrides per agent (`--config.<agent>.<key>`): ' +
          ('; '.join(f'{_title(a)}: {_values(v)}'
                     for a, v in sorted(per_agent.items())) or 'none'),
          '- Every setting each agent ran with, beside its defaults: '
          'appendix A; every run\'s own numbers: appendix B.']
  if report.get('tables'):
    stems = dict.fromkeys(os.path.splitext(n)[0] for n in report['tables'])
    out += ['- Every table as CSV and as LaTeX (booktabs `tabular`), in '
            '`tables/`: ' + ', '.join(
                f'{os.path.basename(stem)} ([csv]({stem}.csv), '
                f'[tex]({stem}.tex))' for stem in stems)]
  return out + ['']


def _per_env(report: Mapping[str, Any]) -> List[str]:
  s = report['settings']
  out = [f'## {SECTIONS[0]}', '',
         'Scores in raw units are the mean over seeds of each run\'s final '
         f'greedy evaluation ({s["eval_episodes"]} episodes); normalised '
         'statistics are over seeds. *Training wall time* is the time spent '
         'training that agent on that environment, all its seeds included: '
         'seeds trained side by side in one compiled program took that '
         'program\'s time once; seeds trained one after another add up.', '']
  for env, env_report in report['envs'].items():
    name = env_registry.title(env)
    out += [f'### {name}', '']
    reference = env_report['reference']
    if reference is not None and reference['high'] < reference['low']:
      out += [f'Lower is better: the score counts {env_report["label"]}. '
              'Normalised scores are higher-is-better, as everywhere.', '']
    out += tables.markdown(report_tables.per_env(report, env))
    games = report_tables.outcomes(report, env)
    if games is not None:
      out += ['', 'Games against the opponent (`--env_config.opponent`) '
              'in the final evaluation, each seed\'s share; the score above '
              'is won minus lost:', ''] + tables.markdown(games) + [
                  '', report_tables.links(games), '']
    out += [f'![{name} learning curves]({env_report["curves_png"]})', '',
            f'![{name} learning curves against wall-clock time]'
            f'({env_report["curves_wall_png"]})', '',
            f'![{name}: each seed\'s score]({env_report["seeds_png"]})', '']
  out += [report_tables.links(report_tables.per_env_all(report)), '']
  return out


def _aggregate(report: Mapping[str, Any]) -> List[str]:
  agg = report['aggregate']
  out = [f'## {SECTIONS[1]}', '']
  if agg['envs']:
    table = report_tables.aggregate(report)
    scales = '; '.join(
        f'{env_registry.title(env)}: '
        f'{env_registry.reference_score(env).scale()}'
        for env in agg['envs'])
    out += [f'Normalised scores on '
            f'{", ".join(map(env_registry.title, agg["envs"]))} ({scales}); '
            'each agent uses the seeds finished on all of them.', '']
    if table is not None:
      out += tables.markdown(table) + [report_tables.links(table), '']
  else:
    out += ['No environment has a reference score: no aggregate.', '']
  if agg['excluded_envs']:
    out += [f'Left out (no reference score, raw scores only): '
            f'{", ".join(map(env_registry.title, agg["excluded_envs"]))}.',
            '']
  if agg['dropped_agents'] and agg['envs']:
    out += [f'Dropped (no seed finished on every environment): '
            f'{", ".join(map(_title, agg["dropped_agents"]))}.', '']
  if report['figures']['aggregate']:
    out += [f'![aggregate]({report["figures"]["aggregate"]})', '']
  if report['figures'].get('performance_profile'):
    out += ['The performance profile: the fraction of each agent\'s runs '
            '(seeds × environments) whose normalised score exceeds τ, '
            'which shows the spread a mean hides (Agarwal et al., 2021).',
            '', f'![performance profile]'
            f'({report["figures"]["performance_profile"]})', '']
  out += [f'## {SECTIONS[2]}', '']
  table = report_tables.improvement(report)
  if table is not None:
    out += ['P(X > Y): the chance that a run of X scores higher than a run of '
            'Y on an environment, averaged over the environments of the '
            'aggregate; above 0.5 favours X.', '']
    out += tables.markdown(table) + [report_tables.links(table), '']
    out += [f'![probability of improvement]'
            f'({report["figures"]["probability_of_improvement"]})', '']
  else:
    out += ['Needs two agents in the aggregate.', '']
  return out


def _sample_efficiency(report: Mapping[str, Any]) -> List[str]:
  efficiency = report['sample_efficiency']
  d = efficiency['definitions']
  out = [f'## {SECTIONS[3]}', '',
         'How fast each agent learns, from each run\'s periodic greedy '
         'evaluations (`eval.csv`, fewer episodes than the final score), on '
         'normalised scores where the environment has a reference (raw '
         'scores otherwise, as the tables say); means over seeds with 95% '
         'intervals:', '',
         f'- *AUC* (area under the learning curve): {d["auc"]};',
         f'- *At x of budget*: {d["score_at"]};',
         f'- *Env steps to ≥ {efficiency["threshold"]:g}*: '
         f'{d["steps_to_threshold"]} ({efficiency["threshold"]:g}: '
         f'{efficiency["threshold"]:.0%} of the way from the weak to the '
         'strong reference); an interval only when every seed reached it.',
         '']
  for env in efficiency['envs']:
    out += [f'### {env_registry.title(env)}', '']
    if not efficiency['envs'][env]['normalised']:
      out += [f'No reference score: raw {report["envs"][env]["label"]} '
              '(higher is better), and no threshold.', '']
    out += tables.markdown(report_tables.sample_efficiency(report, env))
  out += [report_tables.links(report_tables.sample_efficiency_all(report)),
          '']
  return out


def _normalisation(report: Mapping[str, Any]) -> List[str]:
  out = [f'## {SECTIONS[4]}', '',
         'normalised = (score - weak) / (strong - weak): 0 is the weak '
         'reference, 1 the strong one, and higher is better on every '
         'environment (even where the raw score is better lower).', '']
  out += tables.markdown(tables.Table('references', (
      tables.Column('Environment', 'env'), tables.Column('Score', 'label'),
      tables.Column('Weak (0)', 'low', 'g', 'r'),
      tables.Column('Strong (1)', 'high', 'g', 'r'),
      tables.Column('Source', 'source')), tuple(
          {'env': env_registry.title(env),
           'label': report_tables.score_label(e), **e['reference']}
          for env, e in report['envs'].items() if e['reference'])))
  raw = [f'- {env_registry.title(env)}: no reference score; raw '
         f'{e["label"]} only, left out of the aggregate.'
         for env, e in report['envs'].items() if not e['reference']]
  b = report['bootstrap']
  out += raw + ([''] if raw else [])
  out += [f'Intervals are {b["confidence"]:.0%} stratified-bootstrap '
          f'(percentile) confidence intervals over seeds (rliable, '
          f'{b["reps"]} resamples); with one seed they collapse to the '
          'point, and they can never be wider than the range of the seeds' +
          (' (see the few-seeds warning at the top).'
           if report.get('few_seeds') else '.'), '']
  return out


def _left_out(report: Mapping[str, Any]) -> List[str]:
  left_out = report['left_out_runs']
  out = [f'## {SECTIONS[6]}', '']
  if not left_out:
    return out + ['None: every run finished.', '']
  out += ['These runs are in no statistic, table or curve above: '
          '*diverged* (stopped by the divergence guard: non-finite or '
          'runaway numbers), *unfinished* (still training, or stopped), '
          '*damaged* (files that do not check; `experiments.compare` '
          'retrains them). Per-environment statistics use the finished '
          'seeds; the aggregate uses, per agent, the seeds finished on '
          'every environment.', '']
  return out + [f'- {_title(m["agent"])} on {env_registry.title(m["env"])}, '
                f'seed {m["seed"]}: **{m["state"]}**: {m["reason"]} '
                f'(`{m["directory"]}`)' for m in left_out] + ['']


def _appendices(report: Mapping[str, Any]) -> List[str]:
  s = report['settings']
  out = ['## Appendix A. Settings each agent ran with', '',
         'As each pair\'s runs recorded them in `result.json` (all seeds of '
         'a pair share them). *Default* is the agent\'s own default config '
         '(`agents.registry.make_config`); values that differ from it are in '
         'bold, and the last column names the environments where they '
         'differ.', '']
  by_agent = report_tables.settings(report)
  for agent, table in by_agent.items():
    out += [f'### {_title(agent)}', '']
    out += tables.markdown(table)
    out += ['Differs from the defaults:'] + settings_summary.difference_lines(
        agent, s['envs'], report.get('run_settings', {}))
    out += ['', report_tables.links(table), '']
  if not by_agent:
    out += ['No finished run recorded its settings.', '']
  table = report_tables.per_seed(report)
  out += ['## Appendix B. Per-seed results', '',
          '*Score*: the run\'s final evaluation (protocol: see Settings), '
          'in the environment\'s own units; *Normalised*: the same on the '
          '0-1 scale of section 5. '
          '*Wall time of its program*: seeds trained together in one compiled '
          'program all show that program\'s time (it is not additional '
          'time per seed). A run that is not *finished* has no numbers; '
          'section 7 says why.', '']
  out += tables.markdown(table) + [report_tables.links(table), '']
  return out


def render(report: Dict[str, Any], workdir: str) -> str:
  """The text of report.md."""
  out = _header(report)
  out += _per_env(report) + _aggregate(report) + _sample_efficiency(report)
  out += _normalisation(report)
  out += [f'## {SECTIONS[5]}', '']
  out += provenance_summary.markdown(report['provenance'])
  out += _left_out(report) + _appendices(report)
  out += ['## TensorBoard', '',
          f'`tensorboard --logdir={os.path.abspath(workdir)}` shows every '
          'run\'s curves side by side.', '']
  return '\n'.join(out)
