"""SIGTERM and Ctrl-C stop a run at the next safe point, with a checkpoint.

`timeout`, Slurm, Kubernetes and Ray stop a process with SIGTERM and kill it
a little later; a user presses Ctrl-C. Either signal only sets a flag here:
the driver stops where the training state is consistent (between episodes
or host calls), saves a checkpoint and exits with `128 + signal` (130 for
Ctrl-C, 143 for SIGTERM). A second Ctrl-C stops at once (KeyboardInterrupt):
the driver then saves only a state that matches its logs and passed the
divergence guard, else keeps the newest checkpoint already written, and the
command exits with 130 too. While a checkpoint is being written, Ctrl-C
waits until it is on disk (`storage.checkpointing`; a KeyboardInterrupt
inside Orbax could hang its threads), and Ctrl-C again there ends the
process at once, the checkpoints written before intact.

A handler's exception raised inside a garbage-collector callback (JAX
registers one) is printed as "Exception ignored" and dropped by Python;
the second Ctrl-C's KeyboardInterrupt is then signalled again, silently,
and raised where it can stop the run.
"""

import os
import signal
import sys
import threading
from typing import Optional


class Interrupted(Exception):
  """Training stopped on a signal after saving a checkpoint."""

  def __init__(self, signum: int, message: str):
    super().__init__(message)
    self.signum = signum

  @property
  def exit_code(self) -> int:
    return 128 + self.signum


class StopSignals:
  """Context manager: while inside, SIGTERM and SIGINT request a stop.

  Outside the main thread (where Python cannot install handlers, e.g. some
  task runners) it does nothing and signals keep their default effect.
  """

  def __init__(self):
    self.requested: Optional[int] = None
    self._previous = {}
    self._previous_hook = None

  def _unraisable(self, unraisable) -> None:
    """`sys.unraisablehook`: the second Ctrl-C's KeyboardInterrupt, dropped
    where Python cannot raise it, is signalled again a moment later, from
    another thread (sent now, it would be handled inside this hook and
    dropped too); others as before."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt):
      again = threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT))
      again.daemon = True
      again.start()
      return
    self._previous_hook(unraisable)

  def _handle(self, signum, frame) -> None:
    del frame
    if self.requested == signal.SIGINT and signum == signal.SIGINT:
      raise KeyboardInterrupt  # Second Ctrl-C: stop now.
    self.requested = signum
    # os.write, not print: a handler may run inside another write to stderr
    # (e.g. the progress bar's), where print would raise.
    os.write(2, f'\n{signal.Signals(signum).name} received: stopping at the '
             f'next safe point with a checkpoint (Ctrl-C again stops at '
             f'once).\n'
             .encode())

  def __enter__(self) -> 'StopSignals':
    if threading.current_thread() is threading.main_thread():
      for signum in (signal.SIGTERM, signal.SIGINT):
        self._previous[signum] = signal.signal(signum, self._handle)
      self._previous_hook, sys.unraisablehook = (sys.unraisablehook,
                                                 self._unraisable)
    return self

  def __exit__(self, *exc) -> None:
    for signum, handler in self._previous.items():
      signal.signal(signum, handler)
    self._previous = {}
    if self._previous_hook is not None:
      sys.unraisablehook, self._previous_hook = self._previous_hook, None

  def interrupted(self, where: str) -> Interrupted:
    """The exception to raise once the checkpoint `where` is saved."""
    name = signal.Signals(self.requested).name
    return Interrupted(self.requested, f'Stopped by {name}; {where}. Run the '
                       f'same command again to resume.')
