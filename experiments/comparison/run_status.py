"""Whether one seed of a comparison finished, judged from its files.

A seed counts as finished only when its `result.json` parses, says
`"status": "finished"`, holds a finite score and counters that reached the
budget, and its `eval.csv` reads cleanly with exactly the evaluations the
result counted. A run the divergence guard stopped says `diverged`. Anything
else is `unfinished` (train or resume it) or `damaged` (its curve is lost:
train it afresh). Nothing here trusts a file it has not checked.
"""

import json
import math
import os
from typing import Any, Dict, List, NamedTuple, Optional

from experiments.setup import config as config_lib
from experiments.storage import loggers

RESULT, EVAL_LOG = 'result.json', 'eval.csv'
FINISHED, DIVERGED = 'finished', 'diverged'
UNFINISHED, DAMAGED = 'unfinished', 'damaged'
_REQUIRED = ('agent', 'env', 'seed', 'env_steps', 'episodes', 'updates',
             'wall_seconds', 'evaluations', 'eval_mean_return',
             'eval_mean_episode_length')


class SeedStatus(NamedTuple):
  state: str  # FINISHED, DIVERGED, UNFINISHED or DAMAGED.
  reason: str  # Why, for the report and the log ('' when finished).
  result: Optional[Dict[str, Any]] = None
  evaluations: Optional[List[Dict[str, Any]]] = None  # eval.csv rows.


def _read_result(path: str) -> Any:
  with open(path, encoding='utf-8') as f:
    return json.load(f)


def _divergence(record: Any) -> str:
  """A diverged result's record, as a sentence."""
  if not isinstance(record, dict):
    return 'diverged'
  if 'stopped_by' in record:
    return (f'stopped when seed(s) {record["stopped_by"]} of the same '
            f'program diverged')
  limit = (f' (limit {record["limit"]:g})'
           if isinstance(record.get('limit'), (int, float)) else '')
  value = record.get('value')
  value = f'{value:.3g}' if isinstance(value, float) else value
  return (f'{record.get("metric")} = {value} at environment step '
          f'{record.get("env_steps")}{limit}')


def _finite(value: Any) -> bool:
  return (isinstance(value, (int, float)) and not isinstance(value, bool) and
          math.isfinite(value))


def _budget_reached(result: Dict[str, Any],
                    config: config_lib.ExperimentConfig) -> bool:
  return ((config.num_steps is not None and
           result['env_steps'] >= config.num_steps) or
          (config.num_episodes is not None and
           result['episodes'] >= config.num_episodes))


def check(directory: str, config: config_lib.ExperimentConfig,
          seed: int) -> SeedStatus:
  """The state of seed `seed` of `config` in `directory`."""
  path = os.path.join(directory, RESULT)
  if not os.path.exists(path):
    return SeedStatus(UNFINISHED, 'no result.json yet')
  try:
    result = _read_result(path)
  except (OSError, ValueError) as e:
    return SeedStatus(UNFINISHED, f'{path} cannot be read ({e})')
  if not isinstance(result, dict):
    return SeedStatus(UNFINISHED, f'{path} is not a JSON object')
  status = result.get('status')
  if status == DIVERGED:
    return SeedStatus(DIVERGED, _divergence(result.get('divergence')),
                      result)
  lacking = [k for k in _REQUIRED if k not in result]
  if status != FINISHED or lacking:
    return SeedStatus(UNFINISHED, f'{path} is incomplete (status '
                      f'{status!r}, lacking {lacking})')
  if (result['seed'] != seed or result['agent'] != config.agent or
      result['env'] != config.env):
    return SeedStatus(UNFINISHED, f'{path} is of another run ({result["agent"]} '
                      f'on {result["env"]}, seed {result["seed"]})')
  if not all(_finite(result[k]) for k in _REQUIRED[3:]):
    return SeedStatus(UNFINISHED, f'{path} holds a non-numeric or '
                      f'non-finite value')
  if not _budget_reached(result, config):
    return SeedStatus(UNFINISHED, f'{path} stops short of the budget '
                      f'({result["env_steps"]} environment steps)')
  eval_path = os.path.join(directory, EVAL_LOG)
  if not os.path.exists(eval_path):
    return SeedStatus(DAMAGED, f'{eval_path} is missing', result)
  try:
    rows = loggers.read_rows(eval_path)
  except (OSError, loggers.CorruptLogError) as e:
    return SeedStatus(DAMAGED, str(e), result)
  if len(rows) != result['evaluations']:
    return SeedStatus(DAMAGED, f'{eval_path} holds {len(rows)} evaluations, '
                      f'{RESULT} counted {result["evaluations"]}', result)
  if not all(_finite(r.get(k)) for r in rows
             for k in ('mean_return', 'mean_episode_length')):
    return SeedStatus(DAMAGED, f'{eval_path} lacks a finite score in some '
                      f'row', result)
  return SeedStatus(FINISHED, '', result, rows)
