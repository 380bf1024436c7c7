"""In-process timings of alternating arms, for the cost benchmarks.

`collection_cost` and `update_cost` time compiled functions ("arms") in
one process: each arm runs once per round, the order flipped every other
round so that the machine's drift falls on all of them alike, and the
medians over rounds are the figures.
"""

import json
import statistics
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from benchmarks import fingerprints


def microseconds_per_unit(arms: Mapping[str, Callable[[], None]],
                          rounds: int, units: float
                         ) -> Tuple[Dict[str, float], Dict[str, List[float]]]:
  """`(medians, per-round values)` of each arm's µs per unit of work (one
  call of an arm does `units` of it: environment steps, say)."""
  names = list(arms)
  values = {name: [] for name in names}
  for r in range(rounds):
    for name in (names if r % 2 == 0 else names[::-1]):
      start = time.perf_counter()
      arms[name]()
      values[name].append((time.perf_counter() - start) / units * 1e6)
  return {name: statistics.median(v) for name, v in values.items()}, values


def report(figures: Dict[str, Any], rounds: int, calls: int,
           output: Optional[str]) -> None:
  """Prints `figures` as JSON, with the rounds, the calls per measurement
  and what was measured (`fingerprints`), and writes it to `output` if
  given."""
  results = {**figures, 'rounds': rounds, 'calls': calls,
             **fingerprints.take_recorded()}
  text = json.dumps(results, indent=1)
  print(text)
  if output:
    with open(output, 'w', encoding='utf-8') as f:
      f.write(text + '\n')
