"""What produced a comparison's numbers: software, commit, hardware, compute.

Each `result.json` carries `provenance` (`experiments.setup.provenance`,
written by `experiments.driver.results`): one record per training session
and the program's device-seconds. `summarise` folds the records of every
finished run into what a paper states (versions, commit, CPU and devices,
total device-seconds) and says plainly where runs differ. Results written
before provenance was recorded have none: they are listed as not recorded.
"""

import json
from typing import Any, Dict, List, Mapping, Optional, Sequence

from agents import registry as agent_registry
from environments import registry as env_registry
from experiments.comparison import programs

# Session keys the report states, in order ('packages' is compared per
# package). `setup.provenance.SETUP_KEYS` are among them.
KEYS = ('python', 'packages', 'git_commit', 'git_dirty', 'platform', 'cpu',
        'cpu_count', 'backend', 'devices', 'process_count')
# Packages named first in the report (a paper's minimum), then the others.
CORE_PACKAGES = ('jax', 'jaxlib', 'dm-haiku', 'rlax', 'optax', 'chex',
                 'numpy')
NOT_RECORDED = 'not recorded'


def _sessions(result: Mapping[str, Any]) -> Optional[List[Dict[str, Any]]]:
  """The result's session records, or None if it has no usable provenance."""
  record = result.get('provenance')
  if not isinstance(record, dict):
    return None
  sessions = record.get('sessions')
  if (not isinstance(sessions, list) or not sessions or
      not all(isinstance(s, dict) for s in sessions)):
    return None
  return sessions


def _device_seconds(result: Mapping[str, Any]) -> Optional[float]:
  if _sessions(result) is None:
    return None
  value = result['provenance'].get('device_seconds')
  return float(value) if isinstance(value, (int, float)) else None


def _flat(session: Mapping[str, Any]) -> Dict[str, Any]:
  """A session's `KEYS`, packages spread as `packages: <name>`."""
  flat = {k: session.get(k) for k in KEYS if k != 'packages'}
  packages = session.get('packages')
  for name, version in (packages.items() if isinstance(packages, dict)
                        else ()):
    flat[f'packages: {name}'] = version
  return flat


def _distinct(values: Sequence[Any]) -> List[Any]:
  seen, out = set(), []
  for value in values:
    key = json.dumps(value, sort_keys=True)
    if key not in seen:
      seen.add(key)
      out.append(value)
  return out


def summarise(results: Mapping[str, Mapping[str, Sequence[Mapping[str, Any]]]]
             ) -> Dict[str, Any]:
  """The provenance of `results` (`{env: {agent: [finished results]}}`).

  Returns (JSON-ready): `runs`; `not_recorded` (`{env, agent, seed}` of
  results without provenance); `values` (`{key: [distinct values]}` over
  every session of every recorded run, packages as `packages: <name>`);
  `differing` (the keys with more than one value, or present in some
  sessions only); `differing_within_runs` (`{env, agent, seed, keys}` of
  runs whose own sessions differ, e.g. resumed on another machine);
  `sessions` (distinct training sessions) and their first and last start;
  `device_seconds` (each program's once; `programs.once_per_program`),
  per pair in `device_seconds_by_pair`, and `programs` (how many).
  """
  flats, not_recorded, within, by_pair = [], [], [], {}
  total, program_count, runs, starts = 0.0, 0, 0, []
  for env, by_agent in results.items():
    for agent, pair in by_agent.items():
      recorded = []
      for result in pair:
        runs += 1
        sessions = _sessions(result)
        where = {'env': env, 'agent': agent, 'seed': result.get('seed')}
        if sessions is None:
          not_recorded.append(where)
          continue
        recorded.append(result)
        flats += [json.dumps(s, sort_keys=True) for s in sessions]
        keys = result['provenance'].get('differing_between_sessions') or []
        if keys:
          within.append({**where, 'keys': list(keys)})
      if recorded:
        seconds = programs.once_per_program(recorded, _device_seconds)
        by_pair.setdefault(env, {})[agent] = seconds
        total += seconds
        program_count += programs.count(recorded)
  sessions = [json.loads(s) for s in _distinct(flats)]
  flat = [_flat(s) for s in sessions]
  keys = _distinct([k for f in flat for k in f])
  values = {k: _distinct([f.get(k) for f in flat]) for k in keys}
  starts = sorted(s['started_utc'] for s in sessions
                  if isinstance(s.get('started_utc'), str))
  return {
      'runs': runs, 'recorded_runs': runs - len(not_recorded),
      'not_recorded': not_recorded, 'values': values,
      'differing': [k for k in keys if len(values[k]) > 1],
      'differing_within_runs': within, 'sessions': len(sessions),
      'first_started_utc': starts[0] if starts else None,
      'last_started_utc': starts[-1] if starts else None,
      'device_seconds': total if by_pair else None,
      'device_seconds_by_pair': by_pair, 'programs': program_count,
  }


def _one(values: Mapping[str, List[Any]], key: str) -> str:
  """The value(s) of `key` as text: one value, or all joined by ' or '."""
  found = values.get(key)
  if not found:
    return NOT_RECORDED
  return ' or '.join(NOT_RECORDED if v is None else
                     ', '.join(v) if isinstance(v, list) else str(v)
                     for v in found)


def _packages(values: Mapping[str, List[Any]]) -> str:
  names = [k[len('packages: '):] for k in values if k.startswith('packages: ')]
  ordered = ([n for n in CORE_PACKAGES if n in names] +
             sorted(n for n in names if n not in CORE_PACKAGES))
  return ', '.join(f'{n} {_one(values, "packages: " + n)}' for n in ordered)


def _commit(values: Mapping[str, List[Any]]) -> str:
  commits = values.get('git_commit') or [None]
  text = ' or '.join(NOT_RECORDED + ' (not a git checkout)' if c is None
                     else c for c in commits)
  dirty = values.get('git_dirty') or []
  if True in dirty:
    text += (' **with uncommitted changes**' if len(dirty) == 1 else
             ' (some sessions **with uncommitted changes**)')
  return text


def _where(run: Mapping[str, Any]) -> str:
  return (f'{agent_registry.title(run["agent"])} on '
          f'{env_registry.title(run["env"])}, seed {run["seed"]}')


def markdown(summary: Mapping[str, Any]) -> List[str]:
  """The report's provenance section body (Markdown lines)."""
  if not summary['recorded_runs']:
    return [f'Software, hardware and device-seconds: {NOT_RECORDED} for '
            f'any of the {summary["runs"]} runs (their results were written '
            'before runs recorded their provenance; retrain them to record '
            'it).', '']
  values, out = summary['values'], []
  if summary['differing'] or summary['differing_within_runs']:
    keys = ', '.join(f'`{k}`' for k in summary['differing'])
    out += [f'> **The runs did not all use the same software and hardware**'
            f'{": they differ in " + keys if keys else ""}. Where a line '
            'below shows several values joined by "or", runs used each of '
            'them; numbers from different setups may not be comparable.']
    resumed: Dict[tuple, List[Any]] = {}
    for run in summary['differing_within_runs']:
      resumed.setdefault((run['agent'], run['env'], tuple(run['keys'])),
                         []).append(run['seed'])
    for (agent, env, keys), seeds in resumed.items():
      out += [f'> - {agent_registry.title(agent)} on '
              f'{env_registry.title(env)}, seed'
              f'{"s" * (len(seeds) > 1)} {", ".join(map(str, seeds))}: '
              'resumed in a session that differs in '
              f'{", ".join(keys)}.']
    out += ['']
  if summary['not_recorded']:
    out += [f'> Provenance {NOT_RECORDED} for {len(summary["not_recorded"])} '
            f'of {summary["runs"]} runs (written before runs recorded it): '
            + '; '.join(_where(r) for r in summary['not_recorded']) +
            '. The lines below describe the other runs only.', '']
  seconds = summary['device_seconds']
  out += [
      f'- Python {_one(values, "python")}; {_packages(values)}',
      f'- Code: git commit {_commit(values)}',
      f'- CPU: {_one(values, "cpu")} ({_one(values, "cpu_count")} cores '
      f'visible); platform {_one(values, "platform")}',
      f'- Devices: {_one(values, "devices")} (JAX backend '
      f'{_one(values, "backend")}, {_one(values, "process_count")} '
      'process(es))',
      f'- Compute: {NOT_RECORDED if seconds is None else f"{seconds:,.1f}"} '
      f'device-seconds in total ({summary["programs"]} training programs '
      'of the finished runs; runs left out are not counted): '
      'each program\'s wall time (compilation included) times the devices '
      'it ran on, counted once per program: the seeds trained together in '
      'one compiled program share its device-seconds.',
      f'- Trained in {summary["sessions"]} session(s), started between '
      f'{summary["first_started_utc"]} and {summary["last_started_utc"]} '
      '(UTC).', '']
  return out
