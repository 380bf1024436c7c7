"""The one logger interface, with CSV and TensorBoard writers behind it.

No logger keeps a file open between writes (each write opens, appends and
closes), so a process can log for thousands of seeds under an ordinary
open-file limit. Whatever a crash leaves (a torn last row) is repaired when a
run resumes; anything else unreadable is reported, never silently dropped.
"""

import csv
import io
import itertools
import numbers
import operator
import os
import socket
import struct
import time
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Protocol
from typing import Sequence, Union

from absl import logging
from tensorboardX import record_writer
from tensorboardX import summary as tbx_summary
from tensorboardX.proto import event_pb2
from tensorboardX.proto import summary_pb2

from experiments.storage import atomic_files
from experiments.storage import tensorboard_hparams

Scalars = Mapping[str, float]
Number = Union[int, float]

_FIX = ('Fix or delete that line, or move the file aside to start its log '
        'afresh.')


class Logger(Protocol):
  """Writes a dict of scalars at an integer step (environment steps)."""

  def write(self, values: Scalars, step: int) -> None:
    ...

  def close(self) -> None:
    ...


class CorruptLogError(ValueError):
  """A log file has a row that cannot be read (not just a torn last row)."""


# ----------------------------------------------------------------------------
# CSV: one parser, used strictly (`read_rows`) and to repair on resume.


class _Row(NamedTuple):
  line: int  # 1-based line number in the file.
  text: str  # The line as written, without its line terminator.
  values: Dict[str, Number]  # `step` and the non-empty cells, parsed.


class _Parsed(NamedTuple):
  """A CSV log read as far as it is readable."""
  header: List[str]  # Column names; empty for an empty file.
  header_text: str
  rows: List[_Row]
  # Where the unreadable last line (a torn write) is, and why; else None.
  torn: Optional[str]


def _parse_number(text: str) -> Number:
  """`int` if the text is one (steps, counts), else `float`."""
  try:
    return int(text)
  except ValueError:
    return float(text)


def _split(text: str) -> List[str]:
  """The cells of one CSV line."""
  return next(csv.reader([text], strict=True), [])


def _parse_row(header: Sequence[str], text: str) -> Dict[str, Number]:
  """The values of one data line; ValueError saying why if unreadable."""
  try:
    cells = _split(text)
  except csv.Error as e:
    raise ValueError(f'not CSV ({e})') from None
  if len(cells) != len(header):
    raise ValueError(f'{len(cells)} fields where the header has '
                     f'{len(header)}')
  values = {}
  for name, cell in zip(header, cells):
    if name == 'step':
      try:
        values[name] = int(cell)
      except ValueError:
        raise ValueError(f'step {cell!r} is not an integer') from None
    elif cell:
      try:
        values[name] = _parse_number(cell)
      except ValueError:
        raise ValueError(f'{name} {cell!r} is not a number') from None
  return values


def _parse(path: str, data: bytes) -> _Parsed:
  """Reads a CSV log written by `CSVLogger`.

  The last line may be unreadable (no newline, bad fields, or a step below
  the previous row's): that is what a crash mid-write leaves, and it is
  reported in `torn`, not raised. An unreadable header or earlier row raises
  CorruptLogError naming the file and line.
  """
  lines = data.split(b'\n')
  # After the last '\n' comes '' unless the final write was cut short.
  tail = lines.pop()
  if tail:
    lines.append(tail)

  def problem(number: int, text: str, why: str) -> str:
    shown = repr(text[:80]) + ('...' if len(text) > 80 else '')
    message = f'{path}, line {number}: {why}: {shown}'
    if number == len(lines):
      return message
    raise CorruptLogError(f'{message}. {_FIX}')

  header, header_text, rows = [], '', []
  for number, raw in enumerate(lines, start=1):
    try:
      text = raw.decode('utf-8').removesuffix('\r')
    except UnicodeDecodeError:
      text, why = raw.decode('utf-8', 'replace'), 'not UTF-8'
    else:
      why = 'no newline at the end' if (tail and
                                        number == len(lines)) else None
    if number == 1:
      if why is None:
        try:
          header = _split(text)
        except csv.Error as e:
          why = f'header is not CSV ({e})'
        else:
          if 'step' not in header:
            why = 'header has no step column'
          elif '' in header or len(set(header)) != len(header):
            why = 'header has empty or repeated column names'
      if why is not None:
        return _Parsed([], '', [], problem(number, text, why))
      header_text = text
      continue
    if why is None:
      try:
        values = _parse_row(header, text)
      except ValueError as e:
        why = str(e)
      else:
        if rows and values['step'] < rows[-1].values['step']:
          why = (f'step {values["step"]} is below the previous row\'s '
                 f'{rows[-1].values["step"]}')
    if why is not None:
      return _Parsed(header, header_text, rows, problem(number, text, why))
    rows.append(_Row(number, text, values))
  return _Parsed(header, header_text, rows, None)


def _read_bytes(path: str) -> bytes:
  with open(path, 'rb') as f:
    return f.read()


def read_rows(path: str) -> List[Dict[str, Number]]:
  """The rows of a CSV log, strictly: any unreadable line raises.

  Each row holds `step` (int) and the cells written at that step (int or
  float); cells left empty (columns added later) are absent.

  Raises:
    CorruptLogError: naming the file and line, for a bad header or row,
      including a torn last line.
  """
  parsed = _parse(path, _read_bytes(path))
  if parsed.torn is not None:
    raise CorruptLogError(f'{parsed.torn}. {_FIX}')
  return [row.values for row in parsed.rows]


def _csv_line(cells: Sequence[str]) -> str:
  buffer = io.StringIO()
  csv.writer(buffer, lineterminator='\n').writerow(cells)
  return buffer.getvalue()


def _format(name: str, value: Any) -> str:
  """A cell for `value` (ValueError if no number): integers exactly, other
  numbers to 7 significant digits, about a float32's (what training
  computes in): `12.57`, not `12.569999694824219`; `8.0`, still a float."""
  if isinstance(value, numbers.Integral):  # Python, NumPy ints and bools.
    text = str(int(value))
  elif isinstance(value, numbers.Real):
    text = '%.7g' % float(value)
    if text.lstrip('-').isdigit():
      text += '.0'  # Reads back as a float, not a count.
  else:
    text = str(value)
  try:
    _parse_number(text)
  except ValueError:
    raise ValueError(f'{name}={value!r} is not a number') from None
  return text


class CSVLogger:
  """Appends rows to a CSV file, widening the header when new keys appear.

  Each write opens the file, appends one whole line and closes it again. On
  resume, a torn last row (what a crash leaves) is dropped with a warning,
  then rows logged after `resume_step` (work the checkpoint does not
  contain), so the file matches the restored run. Without `resume_step` an
  existing file is started afresh.

  Raises (constructor):
    CorruptLogError: on resume, if a row other than the last, or the header,
      cannot be read.
  """

  def __init__(self, path: str, resume_step: Optional[int] = None):
    self._path = path
    self._fieldnames: List[str] = []
    lines: List[str] = []
    old = None
    if resume_step is not None and os.path.exists(path):
      old = _read_bytes(path)
      parsed = _parse(path, old)
      if parsed.torn is not None:
        logging.warning('Dropped a torn last row of a log: %s', parsed.torn)
      self._fieldnames = parsed.header
      if parsed.header:
        lines = [parsed.header_text] + [
            row.text for row in parsed.rows
            if row.values['step'] <= resume_step]
    self._num_rows = max(len(lines) - 1, 0)
    data = ''.join(line + '\n' for line in lines).encode()
    if data != old:
      atomic_files.write_bytes(path, data)

  @property
  def num_rows(self) -> int:
    """Rows in the file now (not counting the header)."""
    return self._num_rows

  def write(self, values: Scalars, step: int) -> None:
    if 'step' in values:
      raise ValueError('`step` is a column of its own, not a value.')
    row = {'step': str(operator.index(step))}
    row.update((name, _format(name, v)) for name, v in values.items())
    new = [name for name in row if name not in self._fieldnames]
    if any(not isinstance(n, str) or '\n' in n or '\r' in n for n in new):
      raise ValueError(f'Column names must be one-line strings: {new}')
    if new:
      self._widen(new, row)
    else:
      line = _csv_line([row.get(name, '') for name in self._fieldnames])
      with atomic_files.naming_write_errors(self._path), open(
          self._path, 'ab') as f:
        f.write(line.encode())  # One whole line, in one call.
        f.flush()
    self._num_rows += 1

  def _widen(self, new: Sequence[str], row: Mapping[str, str]) -> None:
    """Rewrites the file with columns `new` added, then `row`, atomically."""
    old_rows = []
    if os.path.exists(self._path):
      parsed = _parse(self._path, _read_bytes(self._path))
      if parsed.torn is not None:
        raise CorruptLogError(f'{parsed.torn}. {_FIX}')
      old_rows = [r.text + ',' * len(new) for r in parsed.rows]
    fieldnames = self._fieldnames + list(new)
    lines = [_csv_line(fieldnames)] + [text + '\n' for text in old_rows]
    lines.append(_csv_line([row.get(name, '') for name in fieldnames]))
    atomic_files.write_bytes(self._path, ''.join(lines).encode())
    self._fieldnames = fieldnames

  def close(self) -> None:
    """Nothing to release: no file stays open between writes."""


# ----------------------------------------------------------------------------
# TensorBoard: event files written directly, append-only, no writer thread.
# tensorboardX's `SummaryWriter` keeps each run's file open and runs a
# thread per writer: under the usual limit of 1024 open files, 339 writers
# (one per seed) was as far as it got here (2 threads and 3 files each),
# where a compiled run logs thousands of seeds. So the records are framed
# here, with tensorboardX's protos, summaries and CRC.


def _record(event: event_pb2.Event) -> bytes:
  """One TFRecord: length, its masked CRC-32C, the data, the data's CRC."""
  data = event.SerializeToString()
  length = struct.pack('<Q', len(data))
  return b''.join((length,
                   struct.pack('<I', record_writer.masked_crc32c(length)),
                   data,
                   struct.pack('<I', record_writer.masked_crc32c(data))))


class TensorBoardLogger:
  """Scalars as TensorBoard events (no TensorFlow needed), and the run's
  settings for the HParams tab (`tensorboard_hparams`).

  Each logger starts its own event file in `logdir`
  (`events.out.tfevents.<time>.<hostname>`, as tensorboardX names them) and
  appends one event per write, opening and closing the file each time. It
  first records what tensorboardX's `purge_step` does, a SessionLog START
  at `resume_step + 1`, so TensorBoard discards the events of earlier
  sessions logged after the checkpoint. A fresh start (no `resume_step`)
  removes the event files of an earlier session instead: one that never
  reached a checkpoint is not this run's. `hparams`, the run's settings,
  are recorded once per directory: by a fresh start, or by a resumed
  session where no earlier file has them.
  """

  def __init__(self, logdir: str, resume_step: Optional[int] = None,
               hparams: Optional[Mapping[str, Any]] = None):
    now = time.time()
    events = [event_pb2.Event(wall_time=now, file_version='brain.Event:2')]
    purge = 0 if resume_step is None else resume_step + 1
    start = event_pb2.SessionLog(status=event_pb2.SessionLog.START)
    events += [
        event_pb2.Event(wall_time=now, step=purge,
                        file_version='brain.Event:2'),
        event_pb2.Event(wall_time=now, step=purge, session_log=start)]
    os.makedirs(logdir, exist_ok=True)
    if resume_step is None:
      for stale in tensorboard_hparams.event_files(logdir):
        os.remove(stale)
    if hparams is not None and not tensorboard_hparams.recorded(logdir):
      events.append(event_pb2.Event(
          wall_time=now, step=0,
          summary=tensorboard_hparams.session_start(hparams)))
    base = os.path.join(logdir, f'events.out.tfevents.{int(now)}.'
                        f'{socket.gethostname()}')
    # A name of its own, even for a session started in the same second
    # (TensorBoard reads a directory's event files in name order).
    for attempt in itertools.count():
      self._path = base if not attempt else f'{base}.{attempt}'
      try:
        with atomic_files.naming_write_errors(self._path), open(
            self._path, 'xb') as f:
          f.write(b''.join(_record(event) for event in events))
        break
      except FileExistsError:
        continue

  @property
  def path(self) -> str:
    """This session's event file."""
    return self._path

  def write(self, values: Scalars, step: int) -> None:
    summary = summary_pb2.Summary(value=[
        tbx_summary.scalar(name, float(value)).value[0]
        for name, value in values.items()])
    event = event_pb2.Event(wall_time=time.time(), step=int(step),
                            summary=summary)
    with atomic_files.naming_write_errors(self._path), open(
        self._path, 'ab') as f:
      f.write(_record(event))
      f.flush()

  def close(self) -> None:
    """Nothing to release: no file stays open between writes."""


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
