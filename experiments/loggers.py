"""The one logger interface, with CSV and TensorBoard writers behind it."""

import csv
import io
import os
from typing import Mapping, Optional, Protocol, Sequence

from experiments import atomic_files

Scalars = Mapping[str, float]


class Logger(Protocol):
  """Writes a dict of scalars at an integer step (environment steps)."""

  def write(self, values: Scalars, step: int) -> None:
    ...

  def close(self) -> None:
    ...


class CSVLogger:
  """Appends rows to a CSV file; the header is the first row's keys.

  On resume, rows logged after `resume_step` (work the checkpoint does not
  contain) are dropped first, so the file matches the restored run.
  """

  def __init__(self, path: str, resume_step: Optional[int] = None):
    self._path = path
    self._fieldnames: Optional[Sequence[str]] = None
    if os.path.exists(path):
      with open(path, newline='') as f:
        rows = list(csv.DictReader(f))
      if rows:
        self._fieldnames = list(rows[0])
      keep = [r for r in rows
              if resume_step is not None and int(r['step']) <= resume_step]
      buffer = io.StringIO()
      if self._fieldnames and keep:
        writer = csv.DictWriter(buffer, self._fieldnames)
        writer.writeheader()
        writer.writerows(keep)
      else:
        self._fieldnames = None
      atomic_files.write_bytes(path, buffer.getvalue().encode())
    self._file = open(path, 'a', newline='')

  def write(self, values: Scalars, step: int) -> None:
    row = {'step': step, **values}
    if self._fieldnames is None:
      self._fieldnames = list(row)
      csv.DictWriter(self._file, self._fieldnames).writeheader()
    writer = csv.DictWriter(self._file, self._fieldnames, extrasaction='ignore')
    writer.writerow(row)
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
