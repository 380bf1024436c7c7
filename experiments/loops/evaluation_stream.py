"""The Python loop's evaluation episodes: one stream per run, N at a time.

Successive periodic evaluations play further episodes of the seed's
evaluation stream (and continue it on resume), so no two evaluations share
a game. With N > 1 environments whose episodes are addressable
(`environments.episode_streams.EpisodeStream`), N episodes run side by side
with one batched call per step, as training steps N environments;
any other environment plays them one after another.
"""

from typing import Callable, Dict, List, Optional

import dm_env

from agents import agent as agent_lib
from environments import episode_streams
from environments import specs
from experiments.loops import evaluation

# (stream, episode, fallback seed) -> an environment whose next episode is
# that episode of the stream (`PythonTraining._environment_at`).
EnvironmentAt = Callable[[int, int, int], dm_env.Environment]


class EvaluationStream:
  """Evaluations of one run, continuing its evaluation stream."""

  def __init__(self, agent: agent_lib.Agent, stream: int,
               make_environment: Callable[[int], dm_env.Environment],
               environment_at: EnvironmentAt, num_envs: int = 1,
               played: int = 0,
               protocol: evaluation.Protocol = evaluation.GREEDY):
    """`played`: episodes of the stream played before (a resumed run)."""
    self._agent = agent
    self._protocol = protocol
    self._stream = stream
    self._make_environment = make_environment
    self._environment_at = environment_at
    self._num_envs = num_envs
    self.played = played
    self._one: Optional[dm_env.Environment] = None
    self._many: Optional[List[dm_env.Environment]] = None
    self._policy: Optional[evaluation.BatchedPolicy] = None

  def _act(self, environment: dm_env.Environment
          ) -> evaluation.BatchedPolicy:
    """The protocol's policy, compiled once per run and batch size (not at
    every evaluation)."""
    if self._policy is None:
      self._policy = evaluation.make_batched_policy(
          self._agent, specs.make_environment_spec(environment),
          self._protocol)
    return self._policy

  def _side_by_side(self) -> List[dm_env.Environment]:
    """N addressable environments; none if N = 1 or not addressable."""
    if self._many is None:
      self._many = []
      if self._num_envs > 1:
        self._many = [self._make_environment(self._stream)
                      for _ in range(self._num_envs)]
        if not isinstance(self._many[0], episode_streams.EpisodeStream):
          self.close()
          self._many = []
    return self._many

  def play(self, params: agent_lib.Params,
           num_episodes: int) -> Dict[str, float]:
    """The next `num_episodes` episodes of the stream, under the
    protocol."""
    many = self._side_by_side() if num_episodes > 1 else []
    if many:
      result = evaluation.evaluate_streams(
          many, self._agent, params, self._stream, self.played,
          num_episodes, self._act(many[0]))
    else:
      if self._one is None:
        self._one = self._environment_at(self._stream, self.played,
                                         self._stream)
      result = evaluation.evaluate(self._one, self._agent, params,
                                   num_episodes, self._act(self._one),
                                   self._stream, self.played)
    self.played += num_episodes
    return result

  def close(self) -> None:
    for environment in [self._one] + (self._many or []):
      if environment is not None:
        environment.close()
    self._one, self._many = None, None
