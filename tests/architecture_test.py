"""The package structure holds: no import cycles, dependencies one way.

Parses every project module's imports (inside functions too) without
importing anything, and fails on:
  * an import cycle among the project's modules;
  * an import against the layering: entry points → driver → setup → loops →
    agents / environments / networks, with export and comparison beside the
    driver (they never import it) and storage at the bottom; the benchmark
    harness (`benchmarks/`) outside it all, imported by none of it;
  * a project import inside a function (the way cycles get hidden);
  * a module over 400 lines.
"""

import ast
import os
import pathlib
from typing import Dict, List, Set, Tuple

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = ('agents', 'environments', 'networks', 'experiments', 'examples',
            'benchmarks')
MAX_LINES = 400

# Package -> project packages it must not import (by module-name prefix).
_ENTRY_POINTS = tuple(
    f'experiments.{p.stem}' for p in (ROOT / 'experiments').glob('*.py')
    if p.stem != '__init__')
_UPPER = ('experiments.driver', 'experiments.export', 'experiments.comparison',
          'experiments.cli') + _ENTRY_POINTS
FORBIDDEN = {
    'agents': ('experiments', 'examples'),
    'environments': ('agents', 'networks', 'experiments', 'examples'),
    'networks': ('agents', 'experiments', 'examples'),
    'experiments': ('examples',),
    'experiments.storage': ('experiments.loops', 'experiments.setup') + _UPPER,
    'experiments.loops': ('experiments.setup',) + _UPPER,
    'experiments.setup': _UPPER,
    'experiments.export': ('experiments.setup',) + _UPPER[:1] + _UPPER[2:],
    'experiments.comparison': _UPPER[:2] + _UPPER[3:],
    'experiments.driver': _UPPER[2:],
    'experiments.cli': ('experiments.driver', 'experiments.export',
                        'experiments.comparison') + _ENTRY_POINTS,
    # A user's module: registries and the agents' parts; a user's script:
    # the Python API, never the framework's internals.
    'examples': tuple(sorted(
        f'experiments.{p.stem}' for p in (ROOT / 'experiments').iterdir()
        if p.stem not in ('__init__', '__pycache__', 'api') and
        (p.suffix == '.py' or p.is_dir()))),
}
# The harness measures the framework from outside: nothing in it imports
# the harness.
FORBIDDEN = {k: v + ('benchmarks',) for k, v in FORBIDDEN.items()}


def _modules() -> Dict[str, pathlib.Path]:
  modules = {}
  for package in PACKAGES:
    for path in (ROOT / package).rglob('*.py'):
      parts = path.relative_to(ROOT).with_suffix('').parts
      name = '.'.join(parts[:-1] if parts[-1] == '__init__' else parts)
      modules[name] = path
  return modules


MODULES = _modules()


def _resolve(name: str) -> str:
  """The project module `name` refers to (a module or its package)."""
  while name and name not in MODULES:
    name = name.rpartition('.')[0]
  return name


def _imports(path: pathlib.Path) -> List[Tuple[str, int, bool]]:
  """(project module, line, inside a function) of each import in `path`."""
  tree = ast.parse(path.read_text(), str(path))
  found = []

  def visit(node: ast.AST, in_function: bool) -> None:
    for child in ast.iter_child_nodes(node):
      inner = in_function or isinstance(
          child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
      names = []
      if isinstance(child, ast.Import):
        names = [a.name for a in child.names]
      elif isinstance(child, ast.ImportFrom) and child.level:
        found.append(('<relative import>', child.lineno, in_function))
      elif isinstance(child, ast.ImportFrom) and child.module:
        names = [f'{child.module}.{a.name}' for a in child.names]
      for name in names:
        if name.split('.')[0] in PACKAGES:
          found.append((_resolve(name), child.lineno, in_function))
      visit(child, inner)

  visit(tree, False)
  return found


GRAPH = {name: _imports(path) for name, path in MODULES.items()}


def _find_cycle() -> List[str]:
  edges = {m: sorted({t for t, _, _ in imports if t and t != m})
           for m, imports in GRAPH.items()}
  state: Dict[str, int] = {}
  stack: List[str] = []

  def visit(module: str) -> List[str]:
    state[module] = 1
    stack.append(module)
    for target in edges.get(module, ()):
      if state.get(target) == 1:
        return stack[stack.index(target):] + [target]
      if target not in state:
        cycle = visit(target)
        if cycle:
          return cycle
    stack.pop()
    state[module] = 2
    return []

  for module in sorted(edges):
    if module not in state:
      cycle = visit(module)
      if cycle:
        return cycle
  return []


def test_imports_are_absolute():
  """Relative imports would slip past the checks below (and the project
  writes absolute ones)."""
  problems = [f'{MODULES[m].relative_to(ROOT)}:{line}'
              for m, imports in GRAPH.items()
              for target, line, _ in imports if target == '<relative import>']
  assert not problems, 'Relative imports: ' + ', '.join(problems)


def test_no_import_cycles():
  cycle = _find_cycle()
  assert not cycle, 'Import cycle: ' + ' -> '.join(cycle)


def _owner(module: str) -> str:
  """The most specific FORBIDDEN key that owns `module`."""
  keys = [k for k in FORBIDDEN if module == k or module.startswith(k + '.')]
  return max(keys, key=len) if keys else ''


def test_dependencies_point_one_way():
  problems = []
  for module, imports in GRAPH.items():
    owner = _owner(module)
    for target, line, _ in imports:
      for banned in FORBIDDEN.get(owner, ()):
        if target == banned or target.startswith(banned + '.'):
          problems.append(f'{MODULES[module].relative_to(ROOT)}:{line} '
                          f'imports {target}')
  assert not problems, '\n'.join(problems)


def test_no_project_imports_inside_functions():
  problems = [f'{MODULES[m].relative_to(ROOT)}:{line} imports {target}'
              for m, imports in GRAPH.items()
              for target, line, inside in imports if inside]
  assert not problems, '\n'.join(problems)


@pytest.mark.parametrize('name', sorted(MODULES))
def test_module_is_small(name):
  lines = len(MODULES[name].read_text().splitlines())
  assert lines <= MAX_LINES, f'{MODULES[name]} has {lines} lines'


def test_checker_sees_a_cycle_and_a_wrong_way_import(tmp_path, monkeypatch):
  """The checks above can fail: a planted cycle and a planted import of the
  driver from export are both reported."""
  monkeypatch.setitem(GRAPH, 'experiments.export.tflite',
                      GRAPH['experiments.export.tflite'] +
                      [('experiments.driver.run', 1, True)])
  assert _find_cycle()  # export.tflite <-> driver.run.
  with pytest.raises(AssertionError, match='imports experiments.driver.run'):
    test_dependencies_point_one_way()
  with pytest.raises(AssertionError, match='imports experiments.driver.run'):
    test_no_project_imports_inside_functions()
  monkeypatch.setitem(GRAPH, 'experiments.storage.loggers',
                      GRAPH['experiments.storage.loggers'] +
                      [('benchmarks.fingerprints', 1, False)])
  with pytest.raises(AssertionError, match='imports benchmarks.fingerprints'):
    test_dependencies_point_one_way()


def test_every_package_is_seen():
  for name in ('experiments.driver.run', 'experiments.loops.compiled_loop',
               'experiments.export.tflite', 'experiments.comparison.plan',
               'agents.registry', 'environments.registry',
               'benchmarks.suites', 'benchmarks.pages.speed_tables'):
    assert name in MODULES, name
  assert os.path.basename(str(ROOT)) and _imports(
      MODULES['experiments.driver.run'])
