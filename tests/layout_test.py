"""docs/layout.md names every module, each in its own folder's entry.

The page's code block has one entry per folder (`agents/`, `  driver/`
under `experiments/`, ...); each entry lists its modules as `name.py`.
"""

import pathlib
import re
from typing import Dict, Set

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = ('agents', 'environments', 'networks', 'experiments', 'examples',
            'benchmarks')
_HEADER = re.compile(r'^( *)([\w]+)/(?: |$)')


def listed(text: str) -> Dict[str, Set[str]]:
  """Folder (as a path) -> the `*.py` names its entry lists."""
  block = text.split('```', 2)[1]
  entries: Dict[str, Set[str]] = {}
  stack = []  # (indent, folder name)
  current = None
  for line in block.splitlines():
    header = _HEADER.match(line)
    if header:
      indent = len(header.group(1))
      stack = [(i, n) for i, n in stack if i < indent] + [
          (indent, header.group(2))]
      current = '/'.join(n for _, n in stack)
      entries.setdefault(current, set())
    if current:
      entries[current].update(re.findall(r'\b(\w+\.py)\b', line))
  return entries


def modules() -> Dict[str, Set[str]]:
  """Folder -> the modules in it (not its subfolders'), `__init__` aside."""
  found: Dict[str, Set[str]] = {}
  for package in PACKAGES:
    for path in (ROOT / package).rglob('*.py'):
      if path.name != '__init__.py':
        folder = path.parent.relative_to(ROOT).as_posix()
        found.setdefault(folder, set()).add(path.name)
  return found


def problems(page: Dict[str, Set[str]], code: Dict[str, Set[str]]):
  missing = [f'{folder}/{name}' for folder, names in sorted(code.items())
             for name in sorted(names - page.get(folder, set()))]
  stale = [f'{folder}/{name}' for folder, names in sorted(page.items())
           if folder.split('/')[0] in PACKAGES
           for name in sorted(names - code.get(folder, set()))]
  return missing, stale


def test_layout_page_names_every_module_in_its_folder():
  missing, stale = problems(
      listed((ROOT / 'docs' / 'layout.md').read_text()), modules())
  assert not missing, ('Modules missing from docs/layout.md: '
                       + ', '.join(missing))
  assert not stale, ('docs/layout.md lists modules that are not in that '
                     'folder: ' + ', '.join(stale))


def test_checker_sees_a_missing_and_a_misplaced_module():
  page = listed('```\nagents/   dqn.py, ppo.py\n  sub/    a.py\n'
                'experiments/  train.py\n```\n')
  assert page == {'agents': {'dqn.py', 'ppo.py'}, 'agents/sub': {'a.py'},
                  'experiments': {'train.py'}}
  missing, stale = problems(page, {'agents': {'dqn.py', 'ppo.py', 'sac.py'},
                                   'experiments': set()})
  assert missing == ['agents/sac.py']
  assert stale == ['agents/sub/a.py', 'experiments/train.py']
