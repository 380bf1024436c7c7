"""What a run's logs call each quantity: one grouped scheme for train.csv,
TensorBoard and Weights & Biases.

  train/     what training measured since the last row: the informative
             episode statistics of the episodes it finished (sampled
             policy; means), named by the environment's registry entry
             (Plane Strike: `train/strikes`; Catch: `train/episode_return`),
             and the agent's learner metrics (means over the updates, e.g.
             `train/policy_loss`)
  eval/      the periodic greedy evaluation's statistics, named alike
             (`eval/strikes`), in the rows where one ran
  perf/      `steps_per_second` and `episodes_per_second` of the row's call
             (training alone), `wall_seconds` of the run so far
  progress/  `episodes` and `updates`, totals so far (`step`, its own
             column, is the environment steps)

An episode statistic that tells nothing on a game (the same every episode,
or equal to the other) is left out, as its registry entry says
(`EnvironmentEntry.return_statistic`, `length_statistic`); nothing here
asks which game it is.
"""

from typing import Dict, Mapping, Optional, Union

from environments import registry as env_registry

Number = Union[int, float]
TRAIN, EVAL, PERF, PROGRESS = 'train/', 'eval/', 'perf/', 'progress/'
# Keys of the loops' rows (`TrainingLoop.advance`) that are speeds.
SPEEDS = ('steps_per_second', 'episodes_per_second')
# A greedy evaluation's keys (`TrainingLoop.evaluate`, eval.csv's columns)
# -> the episode statistic each is the mean of.
GREEDY = {'mean_return': 'episode_return',
          'mean_episode_length': 'episode_length'}


class LogNames:
  """Names and groups the rows of one environment's run."""

  def __init__(self, environment: env_registry.EnvironmentEntry):
    # Loop key ('episode_return', 'episode_length') -> logged name, for the
    # informative ones.
    self._statistics = environment.episode_statistics

  def row(self, loop_row: Mapping[str, Number],
          greedy: Optional[Mapping[str, Number]], episodes: int,
          updates: int, wall_seconds: float) -> Dict[str, Number]:
    """One logged row: a loop's row (episode means, speeds, learner
    metrics), the greedy evaluation if one ran, and the counters."""
    values: Dict[str, Number] = {PROGRESS + 'episodes': episodes,
                                 PROGRESS + 'updates': updates}
    for key, value in loop_row.items():
      if key in SPEEDS:
        values[PERF + key] = value
      elif key in GREEDY.values():
        if key in self._statistics:
          values[TRAIN + self._statistics[key]] = value
      else:
        values[TRAIN + key] = value
    for key, value in (greedy or {}).items():
      tag = self.eval_tag(key)
      if tag is not None:
        values[tag] = value
    values[PERF + 'wall_seconds'] = wall_seconds
    return values

  def eval_tag(self, greedy_key: str) -> Optional[str]:
    """The logged name of a greedy evaluation's `greedy_key` (e.g.
    'mean_episode_length' -> 'eval/strikes'); None where it tells nothing
    on this game."""
    if greedy_key == 'identical_episodes':  # In result.json, not a curve.
      return None
    statistic = GREEDY.get(greedy_key)
    if statistic is None:
      return EVAL + greedy_key
    name = self._statistics.get(statistic)
    return None if name is None else EVAL + name
