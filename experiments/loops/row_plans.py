"""How the compiled loop cuts training into log rows and host calls.

A log row is at most `updates_per_chunk` updates (by default one logging
interval, cut evenly into parts of about `CHUNK_STEPS` steps),
ending early at the driver's next stopping point (`updates_to_row_end`). A
host call runs the row under way and, where the rows' counters can be
foreseen, the rows after it, for about `CHUNK_SECONDS` of work
(`plan_call`); `row_scalars` turns a call's sums into a row's logged
scalars.
"""

import time
from typing import Dict, List, Optional, Tuple

import numpy as np

from experiments.loops import compiled_loop
from experiments.loops import interface

# Environment steps of one log row, at most (about), where the logging
# interval is longer (the row then splits it in equal parts).
CHUNK_STEPS = 65_536
# Seconds of training one host call aims at, where the rows' counters can be
# foreseen (agents learning from fixed-length unrolls, and stopping points
# by steps): long enough that the host's work between calls costs nothing
# measurable, short enough that stop signals, checkpoints and the progress
# bar are served within about a second.
CHUNK_SECONDS = 1.0
# Log rows one host call can return (the program's row buffer).
ROWS_PER_CALL = 64


def default_updates_per_chunk(loop: compiled_loop.CompiledLoop,
                              log_every_episodes: int,
                              log_every_steps: int = 0,
                              target_steps: int = CHUNK_STEPS) -> int:
  """Updates per log row, at most: one logging interval of work, cut into
  equal parts of at most about `target_steps` steps (so no short leftover
  row sits before each interval's end). Intervals by steps count as
  `steps_per_update` does; episode agents logging by episodes: one
  interval; without either: about `target_steps` steps."""
  per_update = loop.steps_per_update()
  cap = max(1, target_steps // per_update)
  if log_every_steps:
    interval = -(-log_every_steps // per_update)
    return -(-interval // -(-interval // cap))
  if loop.episodic and log_every_episodes:
    return max(1, -(-log_every_episodes // loop.agent.data.batch_size))
  return cap


def updates_to_row_end(loop: compiled_loop.CompiledLoop,
                       updates_per_row: int, targets: interface.Targets,
                       counters: interface.PerSeed,
                       done_in_row: int = 0) -> int:
  """Updates to the end of the row at `counters`, of which `done_in_row`
  are done: up to `updates_per_row` in all, fewer where they can be
  counted to reach a target of seed 0 (updates, and episodes of episode
  agents: exactly; steps of episode agents: without passing it, as each
  update takes at most `steps_per_update` steps)."""
  needed = [max(1, updates_per_row - done_in_row)]
  if targets.episodes is not None and loop.episodic:
    remaining = targets.episodes - int(counters['episodes'][0])
    needed.append(max(1, -(-remaining // loop.agent.data.batch_size)))
  if targets.env_steps is not None:
    remaining = targets.env_steps - int(counters['env_steps'][0])
    if loop.episodic:
      needed.append(max(1, remaining // loop.steps_per_update()))
    else:
      needed.append(max(1, -(-remaining // loop.steps_per_update())))
  if targets.updates is not None:
    needed.append(max(1, targets.updates - int(counters['updates'][0])))
  return min(needed)


def plan_call(loop: compiled_loop.CompiledLoop, updates_per_row: int,
              schedule: interface.Schedule, counters: interface.PerSeed,
              seconds_per_update: Optional[float], done_in_row: int,
              planned_ahead: bool = True) -> Tuple[List[int], bool]:
  """The rows of the next call, as cumulative updates, and whether the
  last one is cut short.

  The call runs the row under way (`done_in_row` of its updates done),
  then (where every row's counters can be foreseen: fixed-length unrolls,
  stopping points by steps) the rows after it until the schedule stops,
  for at most `ROWS_PER_CALL` rows and about `CHUNK_SECONDS` of work (less
  if the deadline is nearer) at `seconds_per_update`, the last call's
  speed. A row longer than that is cut, and goes on in the next call, so
  that checkpoints by time come on time. One row per call before the
  speed is known, and without `planned_ahead` (multi-process runs, whose
  processes must agree on every call without comparing clocks).
  """
  targets = schedule.targets(counters)
  first = updates_to_row_end(loop, updates_per_row, targets, counters,
                             done_in_row)
  if seconds_per_update is None or not planned_ahead:
    return [first], False
  seconds = CHUNK_SECONDS
  if targets.deadline is not None:
    seconds = min(seconds, targets.deadline - time.monotonic())
  most = max(1, int(seconds / seconds_per_update))
  if first > most:
    return [most], True
  ends = [first]
  if loop.episodic or not schedule.counted_by_steps:
    return ends, False
  per_update = loop.steps_per_update()

  def after(updates: int) -> interface.PerSeed:
    return dict(counters, env_steps=counters['env_steps'] +
                updates * per_update, updates=counters['updates'] + updates)

  while (len(ends) < ROWS_PER_CALL and not schedule.stops(
      after(ends[-2] if len(ends) > 1 else 0), after(ends[-1]))):
    more = updates_to_row_end(loop, updates_per_row,
                              schedule.targets(after(ends[-1])),
                              after(ends[-1]))
    if ends[-1] + more > most:
      break
    ends.append(ends[-1] + more)
  return ends, False


def row_scalars(stats: Dict[str, np.ndarray], i: int, r: int, updates: int,
         speeds: Dict[str, np.ndarray]) -> Dict[str, float]:
  """Seed `i`'s scalars of row `r` (`updates` updates) from a call's sums;
  `speeds` are the whole call's (its rows run at one speed)."""
  row = {name: float(value[i]) for name, value in speeds.items()}
  episodes = int(stats['episodes'][i, r])
  if episodes:
    row['episode_return'] = float(stats['return_sum'][i, r]) / episodes
    row['episode_length'] = float(stats['length_sum'][i, r]) / episodes
  count = np.float32(max(updates, 1))
  for name, value in stats.items():
    if name.startswith('learner/'):
      # In float32, as the loop computed it on the device before.
      row[name[len('learner/'):]] = float(np.float32(value[i, r]) / count)
  return row
