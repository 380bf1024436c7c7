"""A run's settings for TensorBoard's HParams tab, and whether a log
directory already records them.

Each run directory (each seed's `tensorboard/`) gets one session-start
summary (`_hparams_/session_start_info`, from tensorboardX's
`summary.hparams`) holding its settings. Only that one:

  * no experiment summary (`_hparams_/experiment`): TensorBoard takes the
    first one it finds for every run it shows, so runs of another agent or
    game (other settings, other `eval/` tags) would lose their columns;
    without one it gathers every run's settings, and offers every scalar
    tag (`eval/…`, `train/…`) as a metric;
  * no session-end summary: written at the start it would claim a success
    the run has not had.

TensorBoard keeps the first summary of a tag in a run and ignores later
ones, so a resumed session writes none (the first session's file holds
it), and a fresh start removes the event files of an earlier session.
"""

import glob
import os
import struct
from typing import List, Mapping, Union

from google.protobuf import message
from tensorboardX import summary as tbx_summary
from tensorboardX.proto import event_pb2
from tensorboardX.proto import summary_pb2

SESSION_START_TAG = '_hparams_/session_start_info'
EVENT_FILES = 'events.out.tfevents.*'
# The session start is among the first events of a file (`TensorBoardLogger`
# writes it after the file version and the session log).
_LEADING_EVENTS = 8

Setting = Union[str, int, float, bool]


def session_start(settings: Mapping[str, Setting]) -> summary_pb2.Summary:
  """The session-start summary of a run with `settings` (numbers, bools,
  strings: see `driver.run_settings`)."""
  for name, value in settings.items():
    if not isinstance(value, (str, int, float, bool)):
      raise TypeError(f'HParams setting {name}={value!r} is not a number, '
                      f'bool or string.')
  _, start, _ = tbx_summary.hparams(dict(settings), {})
  return start


def event_files(logdir: str) -> List[str]:
  """The event files of `logdir`, in the order TensorBoard reads them."""
  return sorted(glob.glob(os.path.join(glob.escape(logdir), EVENT_FILES)))


def _leading_events(path: str) -> List[event_pb2.Event]:
  """The first events of an event file (TFRecords; a torn one ends it)."""
  events = []
  with open(path, 'rb') as f:
    for _ in range(_LEADING_EVENTS):
      header = f.read(12)
      if len(header) < 12:
        break
      (length,) = struct.unpack('<Q', header[:8])
      data = f.read(length)
      if len(data) < length or len(f.read(4)) < 4:
        break
      try:
        events.append(event_pb2.Event.FromString(data))
      except message.DecodeError:
        break  # Not an event: nothing more to read here.
  return events


def recorded(logdir: str) -> bool:
  """Whether an event file of `logdir` records a session start already."""
  return any(value.tag == SESSION_START_TAG
             for path in event_files(logdir)
             for event in _leading_events(path)
             for value in event.summary.value)
