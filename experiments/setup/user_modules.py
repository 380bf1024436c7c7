"""Imports the user's own modules, which register environments, networks
and agents (`--imports=my_pkg.my_module` or `--imports=path/to/file.py`),
before any name is looked up.

A file path is imported under its dotted name from the first folder above
it that is not a package (`examples/custom_agent.py` in a checkout becomes
`examples.custom_agent`, with the checkout on the path), so importing a
file and its module name register its pieces once, and the file works from
any directory.
"""

import importlib
import importlib.util
import os
import sys
import traceback
from typing import Sequence, Tuple


def is_file_path(entry: str) -> bool:
  """Whether an `--imports` entry names a file rather than a module."""
  return entry.endswith('.py') or os.sep in entry or '/' in entry


def normalise(entry: str) -> str:
  """`entry` as a run records it: a file path made absolute (so that a
  resumed run or an export from another directory finds it), a module name
  as it is."""
  return os.path.abspath(entry) if is_file_path(entry) else entry


def _package_root(path: str) -> Tuple[str, str]:
  """(folder to put on the path, dotted module name) of file `path`."""
  folder, parts = os.path.dirname(path), [
      os.path.splitext(os.path.basename(path))[0]]
  while os.path.isfile(os.path.join(folder, '__init__.py')):
    parts.insert(0, os.path.basename(folder))
    folder = os.path.dirname(folder)
  return folder, '.'.join(parts)


def module_name(entry: str) -> str:
  """The name `entry` is imported as: itself for a module name, the dotted
  name of a file path (see the module docstring)."""
  if not is_file_path(entry):
    return entry
  return _package_root(os.path.abspath(entry))[1]


def _import_file(entry: str) -> None:
  path = os.path.abspath(entry)
  if not path.endswith('.py') or not os.path.isfile(path):
    raise ValueError(f'--imports: no Python file {entry!r} ({path}). Name '
                     f'an existing .py file, or a module on the Python path '
                     f'(e.g. my_pkg.my_module).')
  folder, name = _package_root(path)
  if folder not in sys.path:
    sys.path.insert(0, folder)
  _import_module(name, entry)
  loaded = os.path.abspath(getattr(sys.modules[name], '__file__', '') or '')
  if loaded != path:
    raise ValueError(
        f'--imports: {entry!r} imports as module {name!r}, but that name is '
        f'already {loaded or "a namespace package"}. Rename the file (or '
        f'its package folder) so that its name is its own.')


def _where(error: BaseException, name: str) -> str:
  """Where in the user's code `error` was raised: the file and line of a
  SyntaxError, else the innermost frame in module `name`'s file (or the
  innermost of all)."""
  if isinstance(error, SyntaxError):
    return f'{error.filename}, line {error.lineno}'
  frames = traceback.extract_tb(error.__traceback__)
  module = sys.modules.get(name)
  path = getattr(module, '__file__', None) or (
      importlib.util.find_spec(name).origin if _has_spec(name) else None)
  own = [f for f in frames if path and os.path.abspath(f.filename) ==
         os.path.abspath(path)]
  frame = (own or frames or [None])[-1]
  return 'unknown place' if frame is None else (
      f'{frame.filename}, line {frame.lineno}')


def _kind(entry: str) -> str:
  return 'file' if is_file_path(entry) else 'module'


def _has_spec(name: str) -> bool:
  try:
    return importlib.util.find_spec(name) is not None
  except (ImportError, ValueError):
    return False


def _import_module(name: str, entry: str) -> None:
  try:
    importlib.import_module(name)
  except ImportError as e:
    if e.name is not None and not (name == e.name or
                                   name.startswith(f'{e.name}.')):
      # The module exists; something it imports does not.
      raise ValueError(
          f'--imports: {_kind(entry)} {entry!r} failed to import: '
          f'{type(e).__name__}: {e} (at {_where(e, name)}). Install what '
          f'it imports, or fix the import.') from e
    raise ValueError(
        f'--imports: cannot import module {entry!r} ({e}). Name a module '
        f'on the Python path (run from the directory that holds it, or '
        f'add it to PYTHONPATH), e.g. examples.custom_environment, or the '
        f'module\'s file, e.g. path/to/my_module.py.') from e
  except Exception as e:  # pylint: disable=broad-except
    # The user's code raised (or does not parse): say where, in a line.
    message = (e.msg if isinstance(e, SyntaxError) else str(e)).strip()
    message = ' '.join(message.split())
    raise ValueError(
        f'--imports: {_kind(entry)} {entry!r} raised {type(e).__name__} while '
        f'being imported: {message or "(no message)"} (at '
        f'{_where(e, name)}). Fix the module, or leave it out of '
        f'--imports.') from e


def import_modules(entries: Sequence[str]) -> None:
  """Imports each module or file of `entries` (already imported ones are
  kept).

  Raises:
    ValueError: naming a module or file that cannot be imported, and why.
  """
  for entry in entries:
    if not isinstance(entry, str) or not entry:
      raise ValueError(f'--imports: module names must be non-empty strings; '
                       f'got {entry!r}.')
    if is_file_path(entry):
      _import_file(entry)
    else:
      _import_module(entry, entry)
