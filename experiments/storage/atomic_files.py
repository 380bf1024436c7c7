"""Crash-safe file writes (write a temporary file, then rename over), and
the one reader of the JSON-object files they write."""

import contextlib
import json
import os
import tempfile
from typing import Any, Iterator, Union

PathLike = Union[str, os.PathLike]


def write_bytes(path: PathLike, data: bytes) -> None:
  """Writes `data` to `path` atomically (readers see old or new, never half)."""
  directory = os.path.dirname(os.path.abspath(path))
  os.makedirs(directory, exist_ok=True)
  fd, tmp = tempfile.mkstemp(dir=directory, prefix='.tmp-')
  try:
    # mkstemp makes the file private (0600); results are for everyone who
    # shares the workdir (other users, Ray workers, TensorBoard).
    os.chmod(tmp, 0o644)
    with os.fdopen(fd, 'wb') as f:
      f.write(data)
      f.flush()
      os.fsync(f.fileno())
    os.replace(tmp, path)
  except BaseException:
    if os.path.exists(tmp):
      os.remove(tmp)
    raise


def read_json_object(path: PathLike) -> dict:
  """The JSON object in `path`.

  Raises:
    OSError: the file cannot be read.
    ValueError: it is not JSON, or not a JSON object.
  """
  with open(path, encoding='utf-8') as f:
    value = json.load(f)
  if not isinstance(value, dict):
    raise ValueError('not a JSON object')
  return value


def write_json(path: PathLike, value: Any) -> None:
  """Writes `value` as indented, strict JSON, atomically.

  Raises:
    ValueError: naming `path`, if `value` holds NaN or infinity (which
      strict JSON readers reject); nothing is written then.
  """
  try:
    text = json.dumps(value, indent=2, sort_keys=True, allow_nan=False)
  except ValueError as e:
    raise ValueError(f'Refusing to write {path}: {e} (NaN or infinity is '
                     f'not JSON).') from e
  write_bytes(path, (text + '\n').encode())


@contextlib.contextmanager
def published_if_verified(path: PathLike) -> Iterator[str]:
  """Yields a temporary path beside `path` to write and check a file at;
  renames it to `path` if the block succeeds, else deletes it. A file that
  fails its check (or a process killed while checking) never sits under
  `path`, and a good file already there stays."""
  path = os.path.abspath(path)
  candidate = os.path.join(os.path.dirname(path), f'.unverified-{os.getpid()}-'
                           f'{os.path.basename(path)}')
  try:
    yield candidate
    os.replace(candidate, path)
  finally:
    if os.path.exists(candidate):
      os.remove(candidate)
