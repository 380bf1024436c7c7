"""Warnings a reader of the report must see before quoting its intervals.

A percentile-bootstrap interval resamples the seeds, so every resampled
mean lies between the worst and the best seed: with n seeds the 95%
interval can never be wider than their range, however uncertain a new run
is. With 3 seeds or fewer it is exactly that range (a resample of the worst
seed alone has probability n**-n >= 1/27 > 2.5%): PPO's [41.065, 46.085]
of 3 seeds was its worst and best seed. The statistics stay rliable's; the
report says when they rest on too few seeds.
"""

from typing import Any, Callable, Dict, List, Mapping, Sequence

FEW_SEEDS = 10  # Fewer seeds than this get the warning.


def few_seeds(report: Mapping[str, Any]) -> List[Dict[str, Any]]:
  """`{env, agent, seeds}` of each agent × environment with finished seeds
  but fewer than `FEW_SEEDS` of them, in the report's order."""
  return [{'env': env, 'agent': agent, 'seeds': len(stats['seeds'])}
          for env, env_report in report['envs'].items()
          for agent, stats in env_report['agents'].items()
          if len(stats['seeds']) < FEW_SEEDS]


def exact_range(seeds: int, confidence: float = 0.95) -> bool:
  """Whether a mean's percentile-bootstrap interval over `seeds` seeds is
  exactly [worst, best] (resampling one seed alone is likelier than the
  interval's tail)."""
  return seeds >= 1 and seeds ** -seeds >= (1 - confidence) / 2


def markdown(few: List[Mapping[str, Any]], confidence: float = 0.95,
             title: Callable[[str], str] = str) -> List[str]:
  """The warning (Markdown lines), or nothing when every pair has enough
  seeds; `title` names agents for people."""
  if not few:
    return []
  fewest: Dict[str, int] = {}
  for pair in few:
    fewest[pair['agent']] = min(pair['seeds'],
                                fewest.get(pair['agent'], pair['seeds']))
  who = ', '.join(f'{title(a)} ({n} seed{"s" * (n != 1)})'
                  for a, n in fewest.items())
  least = min(fewest.values())
  exact = (f' With {least} seed{"s" * (least != 1)} or fewer it is exactly '
           '[worst seed, best seed]: a resample made of the worst seed alone '
           f'is likelier than {(1 - confidence) / 2:.1%}.'
           ) if exact_range(least, confidence) else ''
  return [f'> **Few seeds: the intervals understate the uncertainty.** '
          f'Fewer than {FEW_SEEDS} seeds on some environment: {who}. A '
          f'{confidence:.0%} percentile-bootstrap interval resamples the '
          'seeds, so every resampled mean lies between the worst and the '
          'best seed: the interval can never be wider than that range, '
          f'however different a new run would be.{exact} Rerun with at '
          f'least {FEW_SEEDS} seeds (`--seeds={FEW_SEEDS}`) before quoting '
          'these intervals; Agarwal et al. (2021), whose statistics '
          '(rliable) this report uses, show how unreliable few-run '
          'estimates are.', '']


def budget_markdown(warnings: Sequence[str]) -> List[str]:
  """The budget warnings (`budgets.warnings`) as a block, or nothing."""
  if not warnings:
    return []
  return ['> **Budgets cut some agents short: their scores are not those of '
          'their tuned settings.**', '>'] + [
              f'> - {w}' for w in warnings] + [
                  '>', '> Give each environment at least its agents\' tuned '
                  'budget (`--num_steps=<env>:<steps>,...`; the default does '
                  'so), or shorten the schedules named.', '']


def run_markdown(warnings: Sequence[Mapping[str, Any]],
                 title: Callable[[str], str] = str) -> List[str]:
  """Runs whose result.json warns that learning collapsed or never
  started (`driver.collapse`), as a block, or nothing."""
  if not warnings:
    return []
  return ['> **Some runs finished without learning: they count in the '
          'statistics below, read them with that in mind.**', '>'] + [
              f'> - {title(w["agent"])} on {w["env"]}, seed {w["seed"]}: '
              f'{w["warning"]}' for w in warnings] + ['']
