"""A suite's package, imported when a game of it is first named.

The framework works without any suite installed: naming a game of a
missing one raises a ValueError that says which pip line installs it.
"""

import importlib
from typing import Any

INSTALL_HINT = "pip install -e '.[suites]'"


def require(module: str, title: str, extra: str = 'suites') -> Any:
  """`module` imported, or ValueError: '<title> is not installed: <the
  pip line of `extra`> (<why>).'"""
  try:
    return importlib.import_module(module)
  except ImportError as e:
    hint = (INSTALL_HINT if extra == 'suites'
            else f"pip install -e '.[{extra}]'")
    raise ValueError(f'{title} is not installed: {hint} ({e}).') from e
