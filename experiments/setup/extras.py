"""The install's optional parts, and the one line naming a missing one.

The core install trains, evaluates and checkpoints every agent on our own
games. The rest comes in extras of setup.py, each checked before a command
does any work (`require`), without importing the packages:

  export: TensorFlow and LiteRT, for `--export_tflite` (on by default),
    `export_tflite` and `play`;
  report: rliable, pandas and matplotlib, for `compare`, `sweep` and
    `report` (intervals, tables, figures);
  suites, control, envpool: the environment suites, which their adapters
  name.
"""

import importlib.util
from typing import Dict, List, Optional, Sequence, Tuple

# Each extra of setup.py a command can need -> the modules it provides.
EXTRAS: Dict[str, Tuple[str, ...]] = {
    'export': ('tensorflow', 'ai_edge_litert'),
    'report': ('rliable', 'pandas', 'matplotlib'),
}


class MissingExtra(ValueError):
  """A command needs an extra that is not installed (bad input to the
  command, as an unknown setting is: refused before any work)."""


def install_line(extra: str) -> str:
  return f"pip install -e '.[{extra}]'"


def missing(extra: str, modules: Optional[Sequence[str]] = None
            ) -> List[str]:
  """The modules of `extra` (or those of them in `modules`) that cannot be
  imported here."""
  return [name for name in EXTRAS[extra]
          if (modules is None or name in modules) and
          importlib.util.find_spec(name) is None]


def require(extra: str, what: str, otherwise: str = '',
            modules: Optional[Sequence[str]] = None) -> None:
  """Raises `MissingExtra` saying that `what` needs `extra` (or those of
  its `modules` it uses), and the line that installs it (then `otherwise`:
  another way out, if any)."""
  absent = missing(extra, modules)
  if absent:
    raise MissingExtra(
        f'{what} needs {", ".join(absent)} (the {extra!r} extra): '
        f'{install_line(extra)}' + (f', {otherwise}' if otherwise else '')
        + '.')
