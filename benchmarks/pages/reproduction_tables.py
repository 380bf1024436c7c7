"""The tables of docs/benchmarks/reproductions.md: our runs beside
published figures (`benchmarks.reproductions`) and beside a peer's own
program run here (`benchmarks.side_by_side`)."""

from typing import Any, Dict, List, Tuple

from benchmarks.pages import markdown as md

short = md.short


def _seeds_statistics(summary: Dict[str, Any]) -> str:
  """'mean [95% CI]; IQM …' from 5 seeds on, else 'mean (range a to b)'."""
  if summary is None:
    return 'not logged'
  if 'range' in summary:
    low, high = summary['range']
    return (f'{short(summary["mean"])} (range {short(low)} to '
            f'{short(high)}, {summary["seeds"]} seeds)')
  mean, iqm = summary['mean'], summary['iqm']
  return (f'{short(mean["point"])} [{short(mean["low"])}, '
          f'{short(mean["high"])}]; IQM {short(iqm["point"])} '
          f'[{short(iqm["low"])}, {short(iqm["high"])}]')


def _protocol(row: Dict[str, Any]) -> str:
  """'greedy, 100 episodes' (ε-greedy with its ε)."""
  protocol = row['protocol']
  policy = protocol['policy'].replace('_', '-').replace('epsilon', 'ε')
  if 'epsilon' in protocol:
    policy += f' (ε {protocol["epsilon"]:g})'
  return f'{policy}, {protocol["episodes"]} episodes'


def _training(row: Dict[str, Any], bold: bool = False) -> str:
  """The training return's statistics, and how many episodes each seed's
  figure averages."""
  text = _seeds_statistics(row['training_return'])
  if bold and row['training_return'] is not None:
    text = f'**{text}**'
  counts = [s['training_return']['episodes'] for s in row['per_seed']
            if 'training_return' in s]
  if counts:
    text += f' ({_span(counts)} episodes per seed)'
  return text


def _span(counts: List[int]) -> str:
  """'103–217', or '100' when every seed counted the same."""
  low, high = min(counts), max(counts)
  return str(low) if low == high else f'{low}–{high}'


def _published(row: Dict[str, Any]) -> str:
  return short(row['published']) + (
      '' if row['published_spread'] is None else
      f' ± {short(row["published_spread"])}')


def _reproduction_rows(kind: str) -> List[Dict[str, Any]]:
  return [r for r in md.load('reproductions_learning.json')['results']
          if r['kind'] == kind]


def _final(row: Dict[str, Any], bold: bool = False) -> str:
  """The final evaluation's statistics and protocol."""
  text = _seeds_statistics(row['final_score'])
  if bold:
    text = f'**{text}**'
  return text + f' ({_protocol(row)}' + (
      f'; measured at {row["measured_at"]}' if 'measured_at' in row
      else '') + ')'


def _as_the_source_measures(row: Dict[str, Any]) -> Tuple[str, str]:
  """(ours measured as the source measures, in bold and named; ours the
  other way). Rows before `measured_as` was recorded are CleanRL's:
  training returns."""
  if row.get('measured_as', 'training') == 'final':
    return ('final evaluation: ' + _final(row, bold=True),
            'training return: ' + _training(row))
  return ('training return: ' + _training(row, bold=True),
          'final evaluation: ' + _final(row))


def reproductions() -> List[str]:
  """Rows in the source's own setting: ours measured as the source measures
  (the training episodes' return, or an evaluation after training), beside
  ours measured the other way."""
  rows = []
  for row in _reproduction_rows('reproduced'):
    headline, other = _as_the_source_measures(row)
    rows.append([
        row['agent'], row['env'], f'`{row["preset"]}`',
        md.steps(row['num_steps']), headline, _published(row), other,
        f'{row["source"]}: {row["published_protocol"]}'])
  return md.table(['agent', 'environment', 'ours: the source\'s setting',
                   'budget', 'ours, measured as the source measures: mean '
                   '[95% CI] over seeds', 'published', 'ours, the other '
                   'measure', 'published by, and how'], rows)


def reproductions_compared() -> List[str]:
  """Rows in another setting than the source's, with what differs."""
  rows = []
  for row in _reproduction_rows('compared'):
    headline, other = _as_the_source_measures(row)
    rows.append([
        row['agent'], row['env'], f'`{row["preset"]}`',
        md.steps(row['num_steps']), row['differences'], headline,
        _published(row), other,
        f'{row["source"]}: {row["published_protocol"]}'])
  return md.table(['agent', 'environment', 'ours', 'budget',
                   'what differs', 'ours, measured as the source measures',
                   'published', 'ours, the other measure',
                   'published by, and how'], rows)


def side_by_side() -> List[str]:
  """PureJaxRL's MinAtar PPO run here beside our two arms: the same
  measure (the last training episodes' return) on the same seeds."""
  data = md.load('purejaxrl_minatar_learning.json')
  rows = []
  for row in data['results']:
    peer = row['purejaxrl']
    counts = [s['training_return']['episodes'] for s in peer['per_seed']]
    rows.append([
        row['env'], md.steps(row['num_steps']),
        f'{_seeds_statistics(peer["training_return"])} '
        f'({_span(counts)} episodes per seed)',
        _training(row['ours_ending_at_time_limits']),
        _training(row['ours_bootstrapping']),
        _final(row['ours_bootstrapping'])])
  return md.table(['environment', 'budget', 'PureJaxRL ppo.py: return of '
                   'the last training episodes (≥ 100)', 'ours, returns '
                   'ended at time limits (PureJaxRL\'s arithmetic)',
                   'ours, bootstrapping at time limits (our default)',
                   'ours, bootstrapping: final evaluation'], rows)
