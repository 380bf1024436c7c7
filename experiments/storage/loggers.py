"""The one logger interface, with CSV and TensorBoard writers behind it."""

import csv
import io
import os
from typing import Mapping, Optional, Protocol, Sequence

from experiments.storage import atomic_files

Scalars = Mapping[str, float]


class Logger(Protocol):
  """Writes a dict of scalars at an integer step (environment steps)."""

  def write(self, values: Scalars, step: int) -> None:
    ...

  def close(self) -> None:
    ...


class CSVLogger:
  """Appends rows to a CSV file, widening the header when new keys appear.

  On resume, rows logged after `resume_step` (work the checkpoint does not
  contain) are dropped first, so the file matches the restored run. Without
  `resume_step` an existing file is started afresh.
  """

  def __init__(self, path: str, resume_step: Optional[int] = None):
    self._path = path
    rows = []
    if resume_step is not None and os.path.exists(path):
      with open(path, newline='') as f:
        rows = [r for r in csv.DictReader(f) if int(r['step']) <= resume_step]
    fieldnames = list(rows[0]) if rows else []
    self._rewrite(fieldnames, rows)

  def _rewrite(self, fieldnames: Sequence[str], rows) -> None:
    buffer = io.StringIO()
    if fieldnames:
      writer = csv.DictWriter(buffer, fieldnames)
      writer.writeheader()
      writer.writerows(rows)
    atomic_files.write_bytes(self._path, buffer.getvalue().encode())
    self._fieldnames = list(fieldnames)
    self._file = open(self._path, 'a', newline='')

  def write(self, values: Scalars, step: int) -> None:
    row = {'step': step, **values}
    new_keys = [k for k in row if k not in self._fieldnames]
    if new_keys:
      self._file.close()
      with open(self._path, newline='') as f:
        rows = list(csv.DictReader(f))
      self._rewrite(self._fieldnames + new_keys, rows)
    csv.DictWriter(self._file, self._fieldnames).writerow(row)
    self._file.flush()

  def close(self) -> None:
    self._file.close()


class TensorBoardLogger:
  """Scalars as TensorBoard events (no TensorFlow needed: tensorboardX)."""

  def __init__(self, logdir: str, resume_step: Optional[int] = None):
    import tensorboardX  # pylint: disable=g-import-not-at-top
    self._writer = tensorboardX.SummaryWriter(
        logdir, purge_step=None if resume_step is None else resume_step + 1)

  def write(self, values: Scalars, step: int) -> None:
    for name, value in values.items():
      self._writer.add_scalar(name, value, step)
    self._writer.flush()

  def close(self) -> None:
    self._writer.close()


class MultiLogger:
  """Writes to several loggers at once."""

  def __init__(self, loggers: Sequence[Logger]):
    self._loggers = tuple(loggers)

  def write(self, values: Scalars, step: int) -> None:
    for logger in self._loggers:
      logger.write(values, step)

  def close(self) -> None:
    for logger in self._loggers:
      logger.close()
