"""Atomic, resumable checkpoints of a whole training state, via Orbax.

Orbax writes each checkpoint into a temporary directory and renames it when
complete, so a crash mid-save leaves the previous checkpoint intact. Each
checkpoint holds two items: `state`, a pytree of arrays restored against a
template (params, optimizer state, keys, counters), and `host`, any
picklable host-side value of no fixed shape (e.g. a part-filled batch).

A checkpoint damaged after it was written (a truncated or deleted file,
a disk error) is set aside and the previous one restored, with a warning;
the run then continues from there.

Orbax (a fifth of a second to import) loads when the first checkpoint
manager opens, so `--help` and refused commands never pay for it.
"""

import os
import pickle
import time
from typing import Any, List, NamedTuple, Optional

from absl import logging
import jax
import numpy as np

DAMAGED = 'damaged_checkpoints'  # Beside the checkpoint directory.


class CheckpointError(RuntimeError):
  """No checkpoint of a directory can be restored."""


class Restored(NamedTuple):
  step: int
  state: Any
  host: Any


def _orbax() -> Any:
  """`orbax.checkpoint`, imported on first use."""
  import orbax.checkpoint as ocp  # pylint: disable=g-import-not-at-top
  return ocp


def _host_array(host: Any) -> np.ndarray:
  return np.frombuffer(pickle.dumps(host), np.uint8).copy()


class Checkpointer:
  """Saves and restores `(state, host)` checkpoints named by integer steps."""

  def __init__(self, directory: str, max_to_keep: int = 2):
    self._directory = os.path.abspath(directory)
    self._max_to_keep = max_to_keep
    self._manager = self._open()

  def _open(self) -> Any:
    ocp = _orbax()
    return ocp.CheckpointManager(
        self._directory,
        options=ocp.CheckpointManagerOptions(max_to_keep=self._max_to_keep,
                                             create=True),
        item_names=('state', 'host'))

  @property
  def directory(self) -> str:
    return self._directory

  def save(self, step: int, state: Any, host: Any = None) -> None:
    """Saves checkpoint `step` and waits until it is on disk.

    `step` must identify the state (e.g. environment steps so far): saving a
    step that is already the newest checkpoint does nothing.
    """
    if self._manager.latest_step() == step:
      return
    ocp = _orbax()
    self._manager.save(step, args=ocp.args.Composite(
        state=ocp.args.StandardSave(state),
        host=ocp.args.StandardSave({'pickle': _host_array(host)})),
                       force=True)
    self._manager.wait_until_finished()

  def latest_step(self) -> Optional[int]:
    return self._manager.latest_step()

  # The host item is unpickled: restore only workdirs you trust (as with
  # any pickle), e.g. your own runs.
  def _restore(self, step: int, template: Any) -> Restored:
    ocp = _orbax()
    abstract = jax.tree.map(ocp.utils.to_shape_dtype_struct, template)
    restored = self._manager.restore(step, args=ocp.args.Composite(
        state=ocp.args.StandardRestore(abstract),
        host=ocp.args.StandardRestore()))
    host = pickle.loads(np.asarray(restored['host']['pickle']).tobytes())
    return Restored(step, restored['state'], host)

  def _set_aside(self, step: int) -> str:
    """Moves checkpoint `step` out of the manager's sight; its new path."""
    target = os.path.join(os.path.dirname(self._directory), DAMAGED,
                          f'{step}.{time.strftime("%Y%m%d-%H%M%S")}.'
                          f'{os.getpid()}')
    os.makedirs(os.path.dirname(target), exist_ok=True)
    self._manager.close()
    os.replace(os.path.join(self._directory, str(step)), target)
    self._manager = self._open()
    return target

  def restore_latest(self, template: Any,
                     set_aside_damaged: bool = False) -> Optional[Restored]:
    """The newest checkpoint that restores, shaped like `template`.

    A newer checkpoint that fails to restore is skipped with a warning, and
    the next older one is tried. With `set_aside_damaged` (only for the
    workdir's lock holder, which will save newer checkpoints) the skipped
    ones are moved to `damaged_checkpoints/` beside the directory; readers
    such as an export leave them in place.

    Returns:
      None when there is no checkpoint at all.

    Raises:
      CheckpointError: naming the directory, when checkpoints exist but none
        restores (they are left where they are).
    """
    steps: List[int] = sorted(self._manager.all_steps(), reverse=True)
    failures = []
    for step in steps:
      try:
        restored = self._restore(step, template)
      except Exception as e:  # pylint: disable=broad-except
        # Orbax/TensorStore raise many kinds for damaged files.
        failures.append((step, e))
        continue
      for damaged, error in failures:
        moved = (f'moved to {self._set_aside(damaged)}' if set_aside_damaged
                 else 'left in place')
        logging.warning(
            'Checkpoint %d in %s is damaged (%s: %s); it was %s and the run '
            'resumes from checkpoint %d.', damaged, self._directory,
            type(error).__name__, str(error).splitlines()[0][:200], moved,
            step)
      return restored
    if not failures:
      return None
    details = '; '.join(f'step {s}: {type(e).__name__}: '
                        f'{str(e).splitlines()[0][:200]}'
                        for s, e in failures)
    raise CheckpointError(
        f'No checkpoint in {self._directory} can be restored ({details}). '
        f'Move that directory aside to train from scratch, or restore it '
        f'from a backup.')

  def close(self) -> None:
    self._manager.close()
