"""What a run tells the person who started it, in words.

The settings it resolved (at the start), compilation, a one-line summary at
the end, and what to do after an interruption. Text only: the driver and the
entry points decide when to print it (to stderr, so that stdout stays
clean for what a script reads).
"""

import dataclasses
import textwrap
from typing import Any, Dict, Mapping, Optional

from agents import registry as agent_registry
from environments import registry as env_registry
from experiments.loops import evaluation
from experiments.setup import budget_checks
from experiments.setup import build as build_lib
from experiments.setup import config as config_lib

_WIDTH = 79


def _budget(config: config_lib.ExperimentConfig) -> str:
  parts = []
  if config.num_steps is not None:
    parts.append(f'{config.num_steps:,} environment steps')
  if config.num_episodes is not None:
    parts.append(f'{config.num_episodes:,} episodes')
  return ' or '.join(parts)


def _network(config: config_lib.ExperimentConfig) -> str:
  sizes = config.resolved_hidden_sizes()
  name = build_lib.network_name(config)
  return name if sizes is None else f'{name} {"x".join(map(str, sizes))}'


def _values(values: Mapping[str, Any]) -> str:
  return ', '.join(f'{k}={v}' for k, v in sorted(values.items()))


def describe_start(config: config_lib.ExperimentConfig, workdir: str,
                   counters: Optional[Mapping[str, Any]] = None) -> str:
  """The resolved settings of a run, a few lines (what the flags, the
  preset and the defaults made of it), and where a resumed run resumes
  (`counters`: the loop's, after restoring)."""
  seeds = build_lib.seeds(config)
  seed_text = (f'seed {seeds[0]}' if len(seeds) == 1 else
               f'seeds {seeds[0]}..{seeds[-1]}')
  agent_config = dataclasses.asdict(config.agent_config)
  defaults = dataclasses.asdict(config.agent_entry.make_config())
  changed = {k: v for k, v in agent_config.items() if defaults.get(k) != v}
  lines = [
      f'{config.agent_entry.title} on '
      f'{config.environment.title}: {_budget(config)}, {seed_text}, '
      f'{config.loop} loop'
      f', {config.num_envs} env{"s" * (config.num_envs > 1)} per seed.',
      f'preset: {config.preset or "none (the agent defaults)"}; network: '
      f'{_network(config)}',
      f'agent config: {_values(agent_config)}',
      f'  (differs from the agent defaults: '
      f'{_values(changed) if changed else "nothing"})',
  ]
  if config.env_kwargs:
    lines.append(f'environment settings: {_values(config.env_kwargs)}')
  lines.append(
      f'evaluation: {config.eval_episodes} '
      f'{evaluation.describe(build_lib.eval_protocol(config))} episodes at '
      f'the end'
      + (f'; export checked on {config.export_check_episodes} games in '
         f'TFLite' if config.export_tflite else '; no export'))
  lines.extend(f'WARNING: {w}' for w in budget_checks.warnings(config))
  steps = 0 if counters is None else int(counters['env_steps'][0])
  lines.append(f'workdir: {workdir}' + (
      f' (resuming at environment step {steps:,})' if steps else ''))
  return '\n'.join(textwrap.fill(line, _WIDTH, subsequent_indent='    ')
                   for line in lines)


def compiling(config: config_lib.ExperimentConfig) -> str:
  runs = len(build_lib.seeds(config))
  return (f'Compiling the training program (one XLA program for {runs} '
          f'{"run" if runs == 1 else "runs side by side"})...')


def compiled(seconds: float) -> str:
  return f'Compiled in {seconds:.1f} s; training.'


def _score(result: Mapping[str, Any]) -> str:
  env = result['env']
  metric = env_registry.score_metric(env)
  reference = env_registry.reference_score(env)
  label = reference.label if reference else 'return'
  value = result[f'eval_{metric}']
  protocol = evaluation.describe(result.get('eval_protocol'))
  identical = ''
  if result.get('eval_identical_episodes'):
    # Identical scores say the episodes came out alike, not why: a
    # deterministic game, or a random one the policy always wins alike.
    identical = ' (every episode scored the same)'
  return (f'{label} {value:.2f} over {result["eval_episodes"]} {protocol} '
          f'episodes{identical}')


def _model(result: Mapping[str, Any]) -> str:
  path = result.get('tflite_path')
  if not path:
    return 'no model exported'
  check = result.get('tflite', {})
  bar = (f' <= {check["tolerance"]:.0e}' if 'tolerance' in check else '')
  matches = (f'max |TFLite - JAX| '
             f'{check.get("max_abs_diff", float("nan")):.1e}{bar} on '
             f'{check.get("observations_checked", 0):,} observations')
  if result.get('warnings'):  # It plays as JAX does, which is not well.
    return (f'model {path} (it matches JAX: {matches}; but it may not '
            f'play well: see the WARNING)')
  return f'model {path} (verified: {matches})'


def warning_lines(result: Mapping[str, Any]) -> str:
  """A `WARNING: …` line for each of a result's warnings (for several
  seeds, each seed's, named); '' when there are none."""
  results = result.get('seeds', [result])
  lines = []
  for r in results:
    who = '' if len(results) == 1 else f' (seed {r.get("seed")})'
    lines += [f'WARNING{who}: {w}.' for w in r.get('warnings', ())]
  return '\n'.join(lines)


def summary_line(result: Mapping[str, Any]) -> str:
  """One line: score, steps, time (training apart from compiling, from
  the run's `time_account`) and model of one seed's result."""
  account = result.get('time_account')
  if account:
    training = account['training'] + account['host_round_trips']
    compiling = account['compile']
  else:  # A result of an older release.
    compiling = result.get('compile_seconds') or 0.0
    training = result['wall_seconds'] - compiling
  return (f'Done: {agent_registry.title(result["agent"])} on '
          f'{env_registry.title(result["env"])}, seed {result["seed"]}: '
          f'{_score(result)}; {result["env_steps"]:,} steps in '
          f'{training:.1f} s of training' +
          (f' (and {compiling:.1f} s compiling)' if compiling else '') +
          f'; {_model(result)}.')


def seeds_summary(results, interval: Optional[Dict[str, float]]) -> str:
  """Lines for a multi-seed run: each seed's score, then their mean and
  95% interval (`interval`: {'point', 'low', 'high'}; None when no seed
  finished)."""
  finished = [r for r in results if r.get('status') == 'finished']
  lines = [f'  seed {r["seed"]}: '
           + (_score(r) if r.get('status') == 'finished' else
              f'{r.get("status")}') for r in results]
  if interval is not None and finished:
    env = finished[0]['env']
    reference = env_registry.reference_score(env)
    label = reference.label if reference else 'return'
    lines.append(
        f'Mean {label} over {len(finished)} seeds: {interval["point"]:.2f}, '
        f'95% CI [{interval["low"]:.2f}, {interval["high"]:.2f}] '
        f'(percentile bootstrap over seeds'
        + ('; with fewer than 10 seeds it cannot be wider than the range of '
           'the seeds, and with 3 or fewer it is exactly [worst, best]: '
           'treat it as that range' if len(finished) < 10 else '') + ').')
  return '\n'.join(lines)


def already_finished(workdir: str, config: config_lib.ExperimentConfig,
                     result: Mapping[str, Any]) -> str:
  """What a rerun of a finished workdir says, naming the evaluation
  settings of these flags that its saved results were not made with."""
  text = (f'{workdir} has already finished its budget (result.json): '
          f'nothing to train. --reevaluate evaluates and exports it again; a '
          f'larger --num_steps or --num_episodes trains on.')
  unlike = []
  if result.get('eval_episodes') != config.eval_episodes:
    unlike.append(f'it was evaluated on {result.get("eval_episodes")} '
                  f'greedy episodes, not --eval_episodes='
                  f'{config.eval_episodes}')
  exported = bool(result.get('tflite_path'))
  if exported != config.export_tflite:
    unlike.append('its model was exported' if exported else
                  'no model was exported')
  if unlike:
    text += (f' Note: {"; ".join(unlike)}; add --reevaluate to use these '
             f'settings.')
  return text
