"""Keeps libraries' INFO logs (Orbax logs every save) out of a command's
output unless the user asked for them with `--verbosity`."""

from absl import flags
from absl import logging


def quiet() -> None:
  if not (flags.FLAGS.is_parsed() and flags.FLAGS['verbosity'].present):
    logging.set_verbosity(logging.WARNING)
