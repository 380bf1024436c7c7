"""Imports the user's own modules, which register environments, networks
and agents (`--imports=my_pkg.my_module`), before any name is looked up."""

import importlib
from typing import Sequence


def import_modules(names: Sequence[str]) -> None:
  """Imports each module of `names` (already imported ones are kept).

  Raises:
    ValueError: naming a module that cannot be imported, and why.
  """
  for name in names:
    if not isinstance(name, str) or not name:
      raise ValueError(f'--imports: module names must be non-empty strings; '
                       f'got {name!r}.')
    try:
      importlib.import_module(name)
    except ImportError as e:
      raise ValueError(
          f'--imports: cannot import module {name!r} ({e}). Name a module '
          f'on the Python path (run from the directory that holds it, or '
          f'add it to PYTHONPATH), e.g. examples.custom_environment.') from e
