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
import os
import sys
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


def _import_module(name: str, entry: str) -> None:
  try:
    importlib.import_module(name)
  except ImportError as e:
    raise ValueError(
        f'--imports: cannot import module {entry!r} ({e}). Name a module '
        f'on the Python path (run from the directory that holds it, or '
        f'add it to PYTHONPATH), e.g. examples.custom_environment, or the '
        f'module\'s file, e.g. path/to/my_module.py.') from e


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
