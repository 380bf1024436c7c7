"""`--imports=my_pkg.my_module,path/to/file.py,…`: the user's modules,
imported before the command line is checked, so that the agents,
environments and networks they register are valid `--agent`, `--env` and
`--network` values."""

import sys
from typing import List, Optional, Sequence, Tuple

from absl import flags

from experiments.setup import user_modules

FLAG_NAME = 'imports'


def from_argv(argv: Sequence[str]) -> List[str]:
  """The modules `--imports` names in `argv` (last one wins)."""
  value = ''
  for i, arg in enumerate(argv):
    if arg.startswith(f'--{FLAG_NAME}='):
      value = arg.split('=', 1)[1]
    elif arg == f'--{FLAG_NAME}' and i + 1 < len(argv):
      value = argv[i + 1]
  return [name for name in value.split(',') if name]


def define_flag() -> flags.FlagHolder:
  """Defines `--imports` (its modules are imported by `import_from_argv`,
  before parsing)."""
  return flags.DEFINE_list(
      FLAG_NAME, [], 'Python modules or .py files to import first, e.g. '
      'examples.custom_environment or path/to/my_module.py: they register '
      'your own environments, networks and agents (see examples/). '
      'Recorded in the workdir (files by their absolute path).')


def import_from_argv(argv: Optional[Sequence[str]] = None) -> None:
  """Imports the modules `--imports` names in `argv` (default sys.argv)
  now, before flags are parsed and validated; exits with the reason if one
  cannot be imported."""
  try:
    user_modules.import_modules(from_argv(sys.argv if argv is None else argv))
  except ValueError as e:
    sys.exit(f'FATAL Flags parsing error: {e}')


def value() -> Tuple[str, ...]:
  """The parsed `--imports`, as a run records them."""
  return tuple(user_modules.normalise(entry)
               for entry in flags.FLAGS[FLAG_NAME].value or ())
