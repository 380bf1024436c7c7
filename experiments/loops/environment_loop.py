"""The Python environment loop over any `dm_env.Environment` (Acme style).

Actor, learner and batcher are separate roles in one process: the actor
acts with the latest params, the batcher cuts experience into the agent's
batches, and the learner updates as soon as a batch is complete. Between
episodes the loop itself holds nothing: a checkpoint there is the learner's,
actor's and batcher's state (see `python_training.PythonTraining`).
"""

import dataclasses
from typing import List

import dm_env

from agents import agent as agent_lib
from experiments.loops import actor as actor_lib
from experiments.loops import batchers
from experiments.loops import learner as learner_lib


@dataclasses.dataclass
class EpisodeResult:
  """What one episode produced."""
  episode_return: float
  episode_length: int
  # One entry per learner update made during the episode.
  learner_metrics: List[agent_lib.Metrics] = dataclasses.field(
      default_factory=list)


class EnvironmentLoop:
  """Runs episodes, updating the learner as soon as a batch is ready.

  Updates happen mid-episode for agents that learn from fixed-length unrolls
  and at episode ends for agents that learn from whole episodes.
  """

  def __init__(self, environment: dm_env.Environment, actor: actor_lib.Actor,
               learner: learner_lib.Learner,
               batcher: batchers.Batcher):
    self._environment = environment
    self._actor = actor
    self._learner = learner
    self._batcher = batcher

  def run_episode(self) -> EpisodeResult:
    timestep = self._environment.reset()
    self._actor.start_episode()
    self._batcher.observe_first(timestep)
    episode_return, episode_length, metrics = 0.0, 0, []
    while not timestep.last():
      action, extras = self._actor.select_action(timestep.observation)
      timestep = self._environment.step(action)
      self._batcher.observe(action, extras, timestep)
      episode_return += float(timestep.reward)
      episode_length += 1
      if self._batcher.ready():
        metrics.append(self._learner.step(self._batcher.pop_batch()))
        self._actor.update(self._learner.params)
    return EpisodeResult(episode_return, episode_length, metrics)
