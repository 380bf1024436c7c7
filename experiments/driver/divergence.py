"""The divergence guard: a run whose numbers blow up is stopped, not scored.

After every host call of training the driver checks each seed's logged scalars
(losses, gradient norms, returns...) and the largest magnitude of its actor
parameters. A non-finite value, or parameters beyond `max_abs_param` (a
learning rate of 1e9 saturates the policy with finite but absurd weights),
stops the run there: nothing after the last good checkpoint is saved,
nothing is exported, and `result.json` says `"status": "diverged"`.
"""

import math
from typing import Dict, List, Optional, Sequence

import numpy as np

from experiments.loops import interface

PARAMS = 'max_abs_param'  # The name the parameter check reports.


def describe(record: Dict[str, object]) -> str:
  """`seed 3 diverged at environment step 1200: loss = nan`, of a record."""
  limit = (f' (limit {record["limit"]:g}, --max_abs_param)'
           if record['limit'] is not None else '')
  return (f'Seed {record["seed"]} diverged at environment step '
          f'{record["env_steps"]}: {record["metric"]} = {record["value"]}'
          f'{limit}')


class Diverged(RuntimeError):
  """Training produced non-finite or runaway numbers."""

  def __init__(self, records: List[Dict[str, object]]):
    self.records = records
    others = (f' (and {len(records) - 1} more seeds)'
              if len(records) > 1 else '')
    super().__init__(
        f'Training diverged: {describe(records[0])}{others}. The run is '
        f'stopped: no checkpoint was saved '
        f'after this point, nothing was exported, and result.json records '
        f'it as diverged. Lower the learning rate (or clip gradients) and '
        f'train in a new --workdir.')


def _bad(value: float, limit: Optional[float]) -> bool:
  return not math.isfinite(value) or (limit is not None and
                                      abs(value) > limit)


def check(rows: interface.Rows, max_abs_params: np.ndarray,
          counters: interface.PerSeed, seeds: Sequence[int],
          max_abs_param: Optional[float]) -> List[Dict[str, object]]:
  """One record per diverged seed (empty if none): the first bad metric.

  Args:
    rows: a row's logged scalars of each seed (any non-finite one fails).
    max_abs_params: `[S]` largest |actor parameter| of each seed.
    counters: the loop's counters after the row.
    seeds: the seeds, in row order.
    max_abs_param: the parameter limit; None checks finiteness only.
  """
  records = []
  for i, seed in enumerate(seeds):
    values = [(PARAMS, float(max_abs_params[i]), max_abs_param)]
    values += [(name, float(v), None) for name, v in sorted(rows[i].items())]
    for name, value, limit in values:
      if _bad(value, limit):
        records.append({'seed': int(seed), 'lane': i,
                        'env_steps': int(counters['env_steps'][i]),
                        'metric': name,
                        'value': value if math.isfinite(value) else str(value),
                        'limit': limit})
        break
  return records


def check_rows(log_rows: Sequence[interface.LogRow],
               max_abs_params: np.ndarray, counters: interface.PerSeed,
               seeds: Sequence[int],
               max_abs_param: Optional[float]) -> List[Dict[str, object]]:
  """`check` over one call's rows, in order: each diverged seed's record at
  its first bad row (the parameters, known only at the end, count at the
  last row, or at `counters`, the loop's, if the call ended inside one)."""
  if not log_rows:
    return check([{}] * len(seeds), max_abs_params, counters, seeds,
                 max_abs_param)
  records = {}
  for k, log_row in enumerate(log_rows):
    params = (max_abs_params if k == len(log_rows) - 1 else
              np.zeros_like(max_abs_params))
    for record in check(log_row.rows, params, log_row.counters, seeds,
                        max_abs_param):
      records.setdefault(record['lane'], record)
  return [records[lane] for lane in sorted(records)]
