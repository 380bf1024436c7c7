"""One line, not a traceback, for a Ctrl-C while a command starts up.

A command's module installs `exit_at_once` before its heavy imports (JAX,
TensorFlow: a second or more), when run as a program; its `main` then
installs the handler the command runs under. Before `main` nothing is
written, so the process exits at once: an exception raised instead could
be swallowed by whichever library is being imported. Standard library
only, so that it costs nothing to import first.
"""

import os
import signal


def _exit(*_) -> None:
  os.write(2, b'\nInterrupted while starting; nothing was written.\n')
  os._exit(128 + signal.SIGINT)  # pylint: disable=protected-access


def exit_at_once() -> None:
  """From now until the command's own handler: Ctrl-C exits with one
  line and status 130."""
  signal.signal(signal.SIGINT, _exit)
