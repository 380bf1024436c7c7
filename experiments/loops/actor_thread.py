"""Actors in a thread of their own, running ahead of the learner (Sebulba).

IMPALA's actors (Espeholt et al., 2018) do not wait for the learner: they
act with whatever params they last received and hand their trajectories
over through a queue, and V-trace corrects for the policy having moved on
since. Podracer's Sebulba (Hessel et al., 2021) runs them in threads
beside the learner. In the Python loop (`--actor_thread`), one thread steps
the seed's N environments (`environment_loop.EnvironmentLoop`,
whose learner is this module's `QueueLearner`) and puts each finished
batch in a `BatchQueue`; the learner, in the caller's thread, takes the
batches in order, updates, and publishes its actor params, which the
actors take up when they start their next batch.

The lag is measured, not set: each batch carries the learner's update
count of the params that acted it, and is logged at its update as
`actor_lag`, the updates the learner made since (0: on policy). The queue
holds `capacity` batches; actors that fill it wait, so the lag stays
bounded. IMPALA's `actor_lag` config keeps a fixed lag in the learner
state instead, the same in both loops; the two add up.

An `advance` ends where a target is reached: the actors stop at a step
(as the N-environment loop does), then the learner learns every batch
still queued, so no acted step is left unlearned and a checkpoint holds
no queue. An `updates` target can thus be passed by up to `capacity`
batches. Runs are not reproducible bit for bit: the lag depends on how
the threads are scheduled.
"""

import collections
import threading
import time
from typing import Any, Callable, Deque, Dict, List, NamedTuple, Optional, Tuple

import numpy as np

from agents import agent as agent_lib
from experiments.loops import interface
from experiments.loops import learner as learner_lib
from experiments.loops import environment_loop

DEFAULT_CAPACITY = 2  # Batches the actors may run ahead of the learner.
_POLL_SECONDS = 0.05  # How often a waiting thread looks at the stop flag.


class QueuedBatch(NamedTuple):
  """A batch the actors finished, and the update count of the params
  that acted it."""
  trajectory: agent_lib.Trajectory
  version: int


class BatchQueue:
  """A first-in first-out queue of `QueuedBatch`es of bounded size.

  `put` waits while the queue is full, unless the actors were asked to
  stop: then it adds the batch anyway, so no acted batch is ever lost.
  """

  def __init__(self, capacity: int):
    if capacity < 1:
      raise ValueError(f'capacity must be >= 1; got {capacity}.')
    self._capacity = capacity
    self._items: Deque[QueuedBatch] = collections.deque()
    self._changed = threading.Condition()
    self._stopping = False

  def put(self, item: QueuedBatch) -> None:
    with self._changed:
      while len(self._items) >= self._capacity and not self._stopping:
        self._changed.wait(_POLL_SECONDS)
      self._items.append(item)
      self._changed.notify_all()

  def get(self, timeout: float) -> Optional[QueuedBatch]:
    """The oldest batch, or None if none came within `timeout` seconds."""
    with self._changed:
      if not self._items:
        self._changed.wait(timeout)
      if not self._items:
        return None
      item = self._items.popleft()
      self._changed.notify_all()
      return item

  def stop_waiting(self, stopping: bool) -> None:
    """Whether a full queue still holds up `put` (False while stopping)."""
    with self._changed:
      self._stopping = stopping
      self._changed.notify_all()

  def __len__(self) -> int:
    with self._changed:
      return len(self._items)


class QueueLearner:
  """What the actors' environment loop sees as its learner: `step` queues
  the batch instead of learning it, and `params` are the ones the real
  learner published last."""

  def __init__(self, queue: BatchQueue, params: agent_lib.Params,
               version: int):
    self._queue = queue
    self._published = (params, version)
    self._acting_version = version

  def publish(self, params: agent_lib.Params, version: int) -> None:
    """New params (after `version` updates), for the actors' next batch."""
    self._published = (params, version)  # One assignment: thread-safe.

  @property
  def params(self) -> agent_lib.Params:
    params, self._acting_version = self._published
    return params

  def step(self, trajectory: agent_lib.Trajectory) -> None:
    self._queue.put(QueuedBatch(trajectory, self._acting_version))


class ActorThread:
  """Steps the environments in a thread until a target, or until stopped.

  Episode returns and lengths, and the steps and episodes counted, are
  collected under a lock for the learner's thread; an error in the thread
  is raised again there (`check`).
  """

  def __init__(self, loop: environment_loop.EnvironmentLoop,
               queue: BatchQueue):
    self._loop = loop
    self._queue = queue
    self._lock = threading.Lock()
    self._stop = threading.Event()
    self._thread: Optional[threading.Thread] = None
    self._error: Optional[BaseException] = None
    self._returns: List[float] = []
    self._lengths: List[int] = []
    self.env_steps = 0
    self.episodes = 0

  def start(self, counters: Dict[str, int], targets: interface.Targets
           ) -> None:
    """Steps from `counters` until a step or episode target, the deadline,
    or `stop`."""
    self.env_steps, self.episodes = counters['env_steps'], counters['episodes']
    self._stop.clear()
    self._queue.stop_waiting(False)
    self._thread = threading.Thread(target=self._run, args=(targets,),
                                    name='actors', daemon=True)
    self._thread.start()

  def _run(self, targets: interface.Targets) -> None:
    never = float('inf')
    steps_limit = never if targets.env_steps is None else targets.env_steps
    episodes_limit = never if targets.episodes is None else targets.episodes
    deadline = never if targets.deadline is None else targets.deadline
    try:
      while not self._stop.is_set():
        result = self._loop.step()
        with self._lock:
          self.env_steps += self._loop.num_envs
          self.episodes += len(result.lengths)
          self._returns.extend(result.returns)
          self._lengths.extend(result.lengths)
        if (self.env_steps >= steps_limit or self.episodes >= episodes_limit
            or time.monotonic() >= deadline):
          break
    except BaseException as e:  # Raised again in the learner's thread.
      self._error = e

  @property
  def running(self) -> bool:
    return self._thread is not None and self._thread.is_alive()

  def check(self) -> None:
    """Raises an error the thread stopped on."""
    if self._error is not None:
      error, self._error = self._error, None
      raise error

  def stop(self) -> None:
    """Asks the thread to stop after its current step, and waits for it."""
    self._stop.set()
    self._queue.stop_waiting(True)
    if self._thread is not None:
      self._thread.join()
      self._thread = None
    self.check()

  def take_episodes(self) -> Tuple[List[float], List[int]]:
    """The returns and lengths of episodes ended since the last call."""
    with self._lock:
      taken = self._returns, self._lengths
      self._returns, self._lengths = [], []
    return taken


def advance(actors: ActorThread, queue: BatchQueue,
            queue_learner: QueueLearner, learner: learner_lib.Learner,
            counters: Dict[str, int], targets: interface.Targets,
            progress: Optional[Callable[[], None]]
           ) -> Tuple[List[float], List[int], List[agent_lib.Metrics]]:
  """Learns the actors' batches until a target; `counters` are kept
  current. Returns the episodes ended (returns, lengths) and each update's
  metrics, with its `actor_lag`."""
  metrics: List[Dict[str, Any]] = []

  def learn(item: QueuedBatch) -> None:
    lag = counters['updates'] - item.version
    metrics.append(dict(learner.step(item.trajectory),
                        actor_lag=np.float32(lag)))
    counters['updates'] += 1
    queue_learner.publish(learner.params, counters['updates'])

  def settle() -> None:
    """Stops the actors and learns what they queued: no queue to
    checkpoint, and every acted step counted."""
    actors.stop()
    while len(queue):
      learn(queue.get(0.0))
    counters['env_steps'], counters['episodes'] = (actors.env_steps,
                                                   actors.episodes)

  updates_limit = (float('inf') if targets.updates is None
                   else targets.updates)
  actors.start(counters, targets)
  try:
    while actors.running or len(queue):
      item = queue.get(_POLL_SECONDS)
      if item is not None:
        learn(item)
      counters['env_steps'], counters['episodes'] = (actors.env_steps,
                                                     actors.episodes)
      if item is not None and progress is not None:
        try:
          progress()
        except BaseException:  # A stop asked here saves a checkpoint.
          settle()
          raise
      if counters['updates'] >= updates_limit or (
          targets.deadline is not None and
          time.monotonic() >= targets.deadline):
        break
  finally:
    actors.stop()
  settle()
  returns, lengths = actors.take_episodes()
  return returns, lengths, metrics
