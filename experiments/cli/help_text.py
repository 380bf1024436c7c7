"""The entry points' help: flags grouped by purpose, and exit status 0.

absl lists a program's flags alphabetically by defining module, buries them
under TensorFlow's, chex's and Orbax's in `--helpfull`, and exits 1 after
any help. Here each entry point declares its groups next to its flags
(`FLAG_GROUPS`: title -> flag names, in the order shown) and calls
`run(main, FLAG_GROUPS, __doc__, ...)` instead of `app.run(main)`: a help
request is answered before absl parses argv, and the program exits 0.

  --helpshort   the summary line and the grouped flags
  --help        (also -h, -?) the whole introduction and the grouped flags
  --helpfull    --help, then absl's own flags (logging, debugging, flag
                files), then the names of the libraries' flags (TensorFlow,
                chex, Orbax…) in one short paragraph: accepted, but not
                documented here
  --helpconfig  the settings of --agent and --env (`settings_help`), where
                the program has `--config.*` / `--env_config.*`

A project flag left out of every group is still shown, under "Other", and
`group_problems` (tested for every entry point) names it.
"""

import os
import re
import shutil
import sys
import textwrap
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional
from typing import Sequence

from absl import app
from absl import flags
from ml_collections.config_flags import config_flags as ml_config_flags

from experiments.cli import user_imports
from experiments.setup import user_modules

Groups = Mapping[str, Sequence[str]]
HelpConfig = Callable[[Sequence[str]], str]

# Help requests and what they ask for (-h: absl has none; kept friendly).
REQUESTS = {
    '--help': 'help', '-help': 'help', '-h': 'help', '-?': 'help',
    '--helpshort': 'helpshort', '-helpshort': 'helpshort',
    '--helpfull': 'helpfull', '-helpfull': 'helpfull',
    '--helpconfig': 'helpconfig', '-helpconfig': 'helpconfig',
}
# Whose flags are ours (the benchmark harness's commands use this help too).
PROJECT_PACKAGES = ('agents', 'environments', 'networks', 'experiments',
                    'examples', 'benchmarks')
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
_INDENT = ' ' * 6
OTHER = 'Other'


def requested(argv: Sequence[str]) -> Optional[str]:
  """'help', 'helpshort', 'helpfull' or 'helpconfig' if `argv` asks for
  help (the first request wins; nothing after `--` counts), else None."""
  for arg in argv[1:]:
    if arg == '--':
      return None
    if arg in REQUESTS:
      return REQUESTS[arg]
  return None


def terminal_width() -> int:
  """The terminal's width, kept between 60 and 100 columns."""
  return min(100, max(60, shutil.get_terminal_size((80, 24)).columns))


def is_project_module(module: str, extra: Iterable[str] = ()) -> bool:
  """Whether flags of `module` (a dotted name, or the main program's path)
  belong to this project or to modules named by `--imports` (`extra`)."""
  if os.path.isabs(module):
    return os.path.abspath(module).startswith(_ROOT + os.sep)
  top = module.split('.')[0]
  return top in PROJECT_PACKAGES or top in {m.split('.')[0] for m in extra}


def _modules(flag_values: flags.FlagValues) -> Dict[str, str]:
  """Flag name -> the module that defined it."""
  return {flag.name: module
          for module, module_flags in flag_values.flags_by_module_dict().items()
          for flag in module_flags}


def project_flags(flag_values: flags.FlagValues = flags.FLAGS,
                  extra_modules: Iterable[str] = ()) -> List[str]:
  """Names of the flags this project's modules (and `extra_modules`)
  define, in definition-module order."""
  extra = tuple(extra_modules)
  return [name for name, module in _modules(flag_values).items()
          if is_project_module(module, extra)]


def group_problems(groups: Groups, defined: Iterable[str]) -> List[str]:
  """What is wrong with `groups` for flags `defined`: a flag in no group or
  in two, a group naming a flag that is not defined, an empty group."""
  problems, seen = [], {}
  for title, names in groups.items():
    if not names:
      problems.append(f'group {title!r} is empty')
    for name in names:
      if name in seen:
        problems.append(f'--{name} is in groups {seen[name]!r} and '
                        f'{title!r}')
      seen.setdefault(name, title)
  defined = list(defined)
  problems += [f'--{name} is in no group' for name in defined
               if name not in seen]
  problems += [f'group {title!r} names --{name}, which is not defined'
               for name, title in seen.items() if name not in defined]
  return problems


def _value(value: Any) -> Optional[str]:
  """A default as a user types it; None for none (the help text says)."""
  if value is None or value == [] or value == '':
    return None
  if isinstance(value, bool):
    return 'true' if value else 'false'
  if isinstance(value, float):
    return repr(value)
  if isinstance(value, (list, tuple)):
    return ','.join(str(v) for v in value)
  return str(value)


def entry(head: str, facts: Sequence[str], text: str, width: int) -> str:
  """One flag or setting: `  head  (fact; fact)` and its wrapped text."""
  line = f'  {head}' + (f'  ({"; ".join(facts)})' if facts else '')
  lines = textwrap.wrap(line, width, subsequent_indent=_INDENT,
                        break_on_hyphens=False)
  text = ' '.join(text.split())
  if text:
    lines += textwrap.wrap(text, width, initial_indent=_INDENT,
                           subsequent_indent=_INDENT, break_on_hyphens=False)
  return '\n'.join(lines)


def describe_flag(flag: flags.Flag, width: int) -> str:
  """A flag: its spelling, kind, default and help text."""
  if ml_config_flags.is_config_flag(flag):
    return entry(f'--{flag.name}.<key>=<value>', [], flag.help, width)
  head = f'--[no]{flag.name}' if flag.boolean else f'--{flag.name}'
  if flag.short_name:
    head += f' (-{flag.short_name})'
  facts, text = [], flag.help or ''
  if isinstance(flag.parser, flags.EnumParser):
    facts.append('one of ' + ', '.join(flag.parser.enum_values))
    text = text.removeprefix(f'<{"|".join(flag.parser.enum_values)}>: ')
  elif isinstance(flag, flags.MultiFlag):
    facts.append('repeatable')  # absl's own words for it are dropped:
    text = re.sub(r';\s*repeat this option to specify a list of values$', '',
                  text)
  elif not flag.boolean and flag.parser.syntactic_help:
    facts.append(flag.parser.syntactic_help)
  default = _value(flag.default)
  if default is not None:
    facts.append(f'default: {default}')
  return entry(head, facts, text, width)


def _section(title: str, names: Sequence[str],
             flag_values: flags.FlagValues, width: int) -> str:
  return '\n'.join([f'{title}:'] + [describe_flag(flag_values[n], width)
                                    for n in names if n in flag_values])


def _library_paragraph(names_by_package: Mapping[str, List[str]],
                       width: int) -> str:
  """The libraries' flags: one heading, names only."""
  packages = ', '.join(sorted(names_by_package))
  names = sorted(f'--{n}' for ns in names_by_package.values() for n in ns)
  return '\n'.join(
      textwrap.wrap(f'Flags of the libraries ({packages}), accepted but not '
                    f'described here:', width)
      + textwrap.wrap(' '.join(names), width, initial_indent='  ',
                      subsequent_indent='  ', break_on_hyphens=False))


def _footer(helpconfig: bool, width: int) -> str:
  settings = (' --helpconfig: the settings --config.<key> and '
              '--env_config.<key> take for the chosen --agent and --env, '
              'with defaults and meaning.' if helpconfig else '')
  return textwrap.fill(
      '--helpshort: these flags; --help: with the introduction; --helpfull: '
      f'absl\'s flags too.{settings}', width, break_on_hyphens=False)


def format_help(request: str, groups: Groups, doc: str,
                helpconfig: bool = False,
                flag_values: flags.FlagValues = flags.FLAGS,
                width: int = 80, extra_modules: Iterable[str] = ()) -> str:
  """The text of a 'help', 'helpshort' or 'helpfull' request."""
  doc = (doc or '').strip('\n')
  intro = doc.split('\n\n')[0] if request == 'helpshort' else doc
  extra = tuple(extra_modules)
  grouped = {n for names in groups.values() for n in names}
  other = [n for n in project_flags(flag_values, extra) if n not in grouped]
  sections = [textwrap.dedent(intro).rstrip()] + [
      _section(title, names, flag_values, width)
      for title, names in groups.items()]
  if other:
    sections.append(_section(OTHER, other, flag_values, width))
  if request == 'helpfull':
    absl_flags, library = [], {}
    for name, module in _modules(flag_values).items():
      if name in grouped or is_project_module(module, extra):
        continue
      if module.startswith('absl.') and not module.startswith('absl.testing'):
        absl_flags.append(name)
      else:
        package = ('absl.testing' if module.startswith('absl.testing')
                   else module.split('.')[0])
        library.setdefault(package, []).append(name)
    sections.append(_section('absl (logging, debugging, flag files)',
                             sorted(absl_flags), flag_values, width))
    if library:
      sections.append(_library_paragraph(library, width))
  sections.append(_footer(helpconfig, width))
  return '\n\n'.join(s for s in sections if s) + '\n'


def command_name() -> str:
  """The running program as `python -m` names it, e.g. experiments.train."""
  spec = getattr(sys.modules.get('__main__'), '__spec__', None)
  return spec.name if spec else os.path.basename(sys.argv[0])


def answer(request: str, groups: Groups, doc: str,
           helpconfig: Optional[HelpConfig], argv: Sequence[str]) -> str:
  """The text of help request `request`; ValueError for a bad one."""
  if request == 'helpconfig':
    if helpconfig is None:
      raise ValueError(f'--helpconfig: {command_name()} takes no '
                       f'--config.* or --env_config.* settings; --helpshort '
                       f'lists its flags.')
    return helpconfig(argv)
  app.define_help_flags()  # absl's own help flags, for --helpfull.
  return format_help(request, groups, doc, helpconfig is not None,
                     width=terminal_width(),
                     extra_modules=[user_modules.module_name(entry) for entry
                                    in user_imports.from_argv(argv)])


def _without_usage_dump(main: Callable[[List[str]], Any]
                       ) -> Callable[[List[str]], Any]:
  """`main`, whose usage errors print one line (absl would print every flag
  first, burying the message)."""

  def wrapped(argv: List[str]) -> Any:
    try:
      return main(argv)
    except app.UsageError as e:
      sys.exit(f'FATAL {e} (--helpshort lists the flags)')

  return wrapped


def run(main: Callable[[List[str]], Any], groups: Groups, doc: str,
        helpconfig: Optional[HelpConfig] = None,
        argv: Optional[Sequence[str]] = None) -> None:
  """`app.run(main)`, but a help request in `argv` (default sys.argv) is
  answered with grouped help on stdout and exit status 0 (1, with the
  reason, for a request the program cannot answer)."""
  argv = list(sys.argv if argv is None else argv)
  request = requested(argv)
  if request is None:
    app.run(_without_usage_dump(main))
    return
  try:
    text = answer(request, groups, doc, helpconfig, argv)
  except ValueError as e:
    sys.exit(f'FATAL {e}')
  try:
    sys.stdout.write(text)
    sys.stdout.flush()
  except BrokenPipeError:  # E.g. `--helpfull | head`: quiet at exit too.
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
  sys.exit(0)
