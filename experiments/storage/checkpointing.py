"""Atomic, resumable checkpoints of a whole training state, via Orbax.

Orbax writes each checkpoint into a temporary directory and renames it when
complete, so a crash mid-save leaves the previous checkpoint intact.
"""

import os
from typing import Any, Optional, Tuple

import jax
import orbax.checkpoint as ocp


class Checkpointer:
  """Saves and restores pytrees (params, optimizer state, keys, counters)."""

  def __init__(self, directory: str, max_to_keep: int = 2):
    self._manager = ocp.CheckpointManager(
        os.path.abspath(directory),
        options=ocp.CheckpointManagerOptions(max_to_keep=max_to_keep,
                                             create=True))

  def save(self, step: int, state: Any) -> None:
    """Saves `state` as checkpoint `step` and waits until it is on disk.

    `step` must identify the state (e.g. environment steps so far): saving a
    step that is already the newest checkpoint does nothing.
    """
    if self._manager.latest_step() == step:
      return
    self._manager.save(step, args=ocp.args.StandardSave(state), force=True)
    self._manager.wait_until_finished()

  def latest_step(self) -> Optional[int]:
    return self._manager.latest_step()

  def restore_latest(self, template: Any) -> Optional[Tuple[int, Any]]:
    """`(step, state)` of the newest checkpoint shaped like `template`."""
    step = self._manager.latest_step()
    if step is None:
      return None
    abstract = jax.tree.map(ocp.utils.to_shape_dtype_struct, template)
    state = self._manager.restore(step,
                                  args=ocp.args.StandardRestore(abstract))
    return step, state

  def close(self) -> None:
    self._manager.close()
