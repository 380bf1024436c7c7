"""Where training stops for the driver, and when.

The budget, log rows, periodic evaluations and checkpoints by updates are
points on seed 0's counters (`next_targets`, `periodic_evaluation_due`,
`done`); a loop trains to the next one, and the compiled loop plans the
rows of a host call ahead through `schedule`.
"""

from typing import Optional

from experiments.loops import interface
from experiments.setup import config as config_lib

PerSeed = interface.PerSeed


def _next_multiple(value: int, every: int) -> int:
  return (value // every + 1) * every


def next_targets(config: config_lib.ExperimentConfig,
                 counters: PerSeed) -> interface.Targets:
  """Where the next `advance` stops: the budget, the next log row, the next
  periodic evaluation or the next checkpoint, whichever comes first (the
  loop's chunk ends sooner where it is shorter)."""
  episodes, steps = int(counters['episodes'][0]), int(counters['env_steps'][0])
  episode_targets, step_targets = [], []
  if config.num_episodes is not None:
    episode_targets.append(config.num_episodes)
  if config.num_steps is not None:
    step_targets.append(config.num_steps)
  for every in (config.log_every_episodes, config.eval_every_episodes):
    if every:
      episode_targets.append(_next_multiple(episodes, every))
  for every in (config.log_every_steps, config.eval_every_steps):
    if every:
      step_targets.append(_next_multiple(steps, every))
  return interface.Targets(
      min(episode_targets) if episode_targets else None,
      min(step_targets) if step_targets else None,
      None if config.checkpoint_every_updates is None else _next_multiple(
          int(counters['updates'][0]), config.checkpoint_every_updates))


def done(config: config_lib.ExperimentConfig, counters: PerSeed) -> bool:
  """Every seed has spent one of its budgets."""
  return bool(
      (config.num_episodes is not None and
       counters['episodes'].min() >= config.num_episodes) or
      (config.num_steps is not None and
       counters['env_steps'].min() >= config.num_steps))


def schedule(config: config_lib.ExperimentConfig,
             deadline: Optional[float]) -> interface.Schedule:
  """Where training must stop for the driver: the next log row, evaluation,
  checkpoint or the budget (`next_targets`), checkpoints by time at
  `deadline` (a `time.monotonic()` value)."""

  def stops(before: PerSeed, after: PerSeed) -> bool:
    every = config.checkpoint_every_updates
    return (done(config, after) or
            periodic_evaluation_due(config, before, after) or
            (every is not None and
             after['updates'][0] // every > before['updates'][0] // every))

  return interface.Schedule(
      targets=lambda counters: next_targets(config, counters)._replace(
          deadline=deadline),
      stops=stops,
      counted_by_steps=(config.num_episodes is None and
                        not config.eval_every_episodes))


def periodic_evaluation_due(config: config_lib.ExperimentConfig,
                            before: PerSeed, after: PerSeed) -> bool:
  """Whether seed 0 passed a periodic evaluation point (either interval)."""

  def passed(key: str, every: Optional[int]) -> bool:
    return bool(every) and (int(after[key][0]) // every >
                            int(before[key][0]) // every)

  return (passed('episodes', config.eval_every_episodes) or
          passed('env_steps', config.eval_every_steps))


def row_wall_seconds(start: float, end: float, before: PerSeed,
                      row: PerSeed, after: PerSeed) -> float:
  """Wall seconds at the end of a row of a call that ran from `start` to
  `end` (counters `before` to `after`): the call's time shared by updates
  (the rows of one call run at one speed)."""
  total = int(after['updates'][0]) - int(before['updates'][0])
  done_here = int(row['updates'][0]) - int(before['updates'][0])
  return end if total <= 0 else start + (end - start) * done_here / total
