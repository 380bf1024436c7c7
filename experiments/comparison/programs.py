"""Totals of quantities that belong to a training program, not to a seed.

On environments with a JAX core, the seeds of one agent × environment train
side by side in one compiled program (`num_seeds` > 1 in their results), and
each seed's `result.json` reports that program's wall time and
device-seconds. Adding them up over seeds would count the same seconds once
per seed; `once_per_program` counts them once. Seeds that trained alone
(Python loop, or one seed) each ran their own program, so theirs add up.
"""

from typing import Any, Callable, Mapping, Optional, Sequence


def once_per_program(results: Sequence[Mapping[str, Any]],
                     value: Callable[[Mapping[str, Any]], Optional[float]]
                    ) -> float:
  """The total of `value(result)` over the programs of one agent × env.

  `results` are the seeds' results of one agent on one environment (one
  comparison group). Seeds trained together all carry their program's
  value, so it counts once (their max); seeds trained alone add up. Results
  whose `value` is None (not recorded) count nothing.
  """
  shared, alone = [], []
  for result in results:
    number = value(result)
    if number is None:
      continue
    (shared if result.get('num_seeds', 1) > 1 else alone).append(
        float(number))
  return float(max(shared, default=0.0) + sum(alone))


def count(results: Sequence[Mapping[str, Any]]) -> int:
  """How many programs trained `results` (one agent × env's seeds): one
  for all the seeds trained together, plus one per seed trained alone."""
  shared = any(r.get('num_seeds', 1) > 1 for r in results)
  return int(shared) + sum(1 for r in results if r.get('num_seeds', 1) <= 1)
