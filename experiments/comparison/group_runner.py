"""Training one run group of a comparison, idempotently.

`run_group` trains a group with the training function it is given (the
experiment driver's `run_experiment`; this package never imports the
driver). A group whose seeds all finished (or diverged), as `run_status`
judges from their files, is skipped; an unfinished one resumes from its
checkpoint; one whose learning curve was damaged is moved aside and trained
afresh. Rerunning a comparison, or retrying a failed task, loses nothing.
"""

import functools
import os
import time
from typing import Any, Callable, Dict, List, Sequence

from absl import logging

from experiments.comparison import run_groups
from experiments.comparison import run_status
from experiments.setup import config as config_lib
from experiments.storage import loggers
from experiments.storage import workdir_lock


class GroupUnfinished(RuntimeError):
  """A run group that training left unfinished (not diverged)."""


def _set_aside(group: run_groups.RunGroup, why: str) -> None:
  """Moves a group's damaged workdir aside, so that it trains afresh; not
  while another process holds it (`WorkdirLocked`)."""
  target = (f'{group.workdir}.damaged-{time.strftime("%Y%m%d-%H%M%S")}-'
            f'{os.getpid()}')
  with workdir_lock.WorkdirLock(group.workdir):
    logging.warning('%s: %s. Moving %s to %s and training it afresh.',
                    group.name, why, group.workdir, target)
    os.replace(group.workdir, target)


# (config, workdir, progress) -> result: the driver's `run_experiment`.
TrainFn = Callable[[config_lib.ExperimentConfig, str, bool], Any]


def run_group(group: run_groups.RunGroup, train: TrainFn, progress: bool = False
             ) -> List[Dict[str, Any]]:
  """Trains a group with `train` (skipped if finished, resumed if not, and
  trained afresh if its logs were damaged); each seed's `result.json`.

  A run that diverges is not an error here: its results say `diverged` and
  the report lists it. Safe to call again after a failure or on another
  machine sharing the workdir: that is what makes retries lose nothing.

  Raises:
    GroupUnfinished: a seed is still not finished after training (naming it
      and why). Whatever `train` raised, if it left seeds unfinished.
  """
  statuses = group.statuses()
  damaged = [s for s in statuses if s.state == run_status.DAMAGED]
  if damaged:
    _set_aside(group, damaged[0].reason)
  for attempt in range(2):
    if group.finished():
      break
    try:
      train(group.config, group.workdir, progress)
    except loggers.CorruptLogError as e:
      if attempt:
        raise
      _set_aside(group, str(e))  # Logs the checkpoint cannot rebuild.
    except Exception:  # pylint: disable=broad-except
      if not group.finished():  # E.g. Diverged, after writing its results.
        raise
  statuses = group.statuses()
  left = [(seed, s) for seed, s in zip(group.seeds, statuses)
          if s.state not in (run_status.FINISHED, run_status.DIVERGED)]
  if left:
    raise GroupUnfinished(f'{group.name}: seed {left[0][0]} did not finish: '
                       f'{left[0][1].reason}.')
  return [s.result for s in statuses]


def run_pending(groups: Sequence[run_groups.RunGroup], launcher: Any,
                train: TrainFn, progress: bool,
                describe: Callable[[run_groups.RunGroup], str],
                intro: Callable[[int], str]) -> None:
  """Trains the unfinished `groups` with `launcher` (`launchers`), after
  printing `intro(number finished already)`; `describe` names each task."""
  pending = [g for g in groups if not g.finished()]
  print(intro(len(groups) - len(pending)), flush=True)
  # Module-level functions: Ray ships them by reference.
  task = functools.partial(run_group, train=train, progress=progress)
  launcher.run(task, pending, [describe(g) for g in pending])
