"""Every command in README.md and docs/**/*.md names a real entry point and
real flags.

Commands are read, without running anything, from the pages' fenced code
blocks (a line, joined over trailing backslashes, that starts, after any
`VAR=value` settings, with `python -m experiments.<name>`, `python -m
benchmarks.<name>`, `python <file>.py`, `./run.sh`, `./test.sh` or
`scripts/…`) and from inline code that starts with `python -m
experiments.` or `python -m benchmarks.`. For each:

  * the entry point exists: `experiments/<name>.py` or
    `benchmarks/<name>.py` runs as a program, or the script or file is
    there;
  * every `--flag` is one the entry point defines: the names in its
    `FLAG_GROUPS` (which tests/experiments/cli/help_text_test.py holds
    equal to the flags it defines), read with `ast`, so no module is
    imported and no flag defined; `--no<flag>` for its boolean flags;
    absl's `--help`, `--helpshort`, `--helpfull`, `--flagfile` and the
    project's `--helpconfig`. `./run.sh` takes `experiments.train`'s;
  * `--config.<key>` is a key of the command's agent (its `--agent`, each
    of `compare`'s `--agents`, or the entry point's default agent),
    `--config.<agent>.<key>` a key of that agent, `--env_config.<key>` a
    setting of the command's environment;
  * `--agent(s)`, `--env(s)`, `--network` and `--preset` values are
    registered names, or names the modules of the command's `--imports`
    register (read from their source with `ast`), and every `--imports`
    entry is a module or file of the repository.

Placeholders are not checked: a value or key in `<…>` or with `...`, and
the made-up modules of the docs' own examples (`my_module`, `my_pkg`).
"""

import ast
import dataclasses
import functools
import glob
import os
import re
import shlex
from typing import Dict, Iterator, List, NamedTuple, Optional, Set, Tuple

from agents import registry as agent_registry
from environments import registry as env_registry
from environments import suites
from experiments.comparison import study_settings
from experiments.driver import export_settings
from experiments.presets import registry as preset_registry
from experiments.setup import train_settings
from networks import registry as network_registry

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_ABSL_FLAGS = {'help', 'helpshort', 'helpfull', 'helpconfig', 'flagfile'}
_PLACEHOLDER_MODULES = ('my_module', 'my_pkg')
_VARIABLE = re.compile(r'^[A-Z_][A-Z0-9_]*=')
# The packages whose modules run as our programs.
_PACKAGES = ('experiments', 'benchmarks')
_PROGRAMS = tuple(f'python -m {p}.' for p in _PACKAGES)


class Command(NamedTuple):
  where: str  # page:line
  text: str


def pages() -> List[str]:
  found = [os.path.join(_ROOT, 'README.md')]
  found += glob.glob(os.path.join(_ROOT, 'docs', '**', '*.md'),
                     recursive=True)
  return sorted(found)


def commands_in(text: str, page: str) -> Iterator[Command]:
  """The commands of a page's code blocks and inline code."""
  fence = re.compile(r'^```(\w*)\n(.*?)^```', re.DOTALL | re.MULTILINE)
  for block in fence.finditer(text):
    if block.group(1) not in ('', 'sh', 'shell', 'bash', 'console'):
      continue
    first = text.count('\n', 0, block.start(2)) + 1
    lines = block.group(2).split('\n')
    i = 0
    while i < len(lines):
      start, line = i, lines[i]
      while line.rstrip().endswith('\\') and i + 1 < len(lines):
        i += 1
        line = line.rstrip()[:-1].rstrip() + ' ' + lines[i].strip()
      i += 1
      if line.strip():
        yield Command(f'{page}:{first + start}', line.strip())
  prose = fence.sub(lambda m: '\n' * m.group(0).count('\n'), text)
  for span in re.finditer(r'`([^`]+)`', prose):
    if span.group(1).startswith(_PROGRAMS):
      line = prose.count('\n', 0, span.start()) + 1
      yield Command(f'{page}:{line}', ' '.join(span.group(1).split()))


def _tokens(text: str) -> List[str]:
  try:
    tokens = shlex.split(text, comments=True)
  except ValueError:  # An unbalanced quote: not a shell command.
    return []
  tokens = [t.strip('[]') for t in tokens]
  while tokens and _VARIABLE.match(tokens[0]):
    tokens.pop(0)
  return tokens


# The settings classes commands make flags from (`settings_flags.define`).
_SETTINGS = {
    'train_settings.TrainSettings': train_settings.TrainSettings,
    'study_settings.CompareSettings': study_settings.CompareSettings,
    'study_settings.SweepSettings': study_settings.SweepSettings,
    'export_settings.ExportSettings': export_settings.ExportSettings,
}


def _tree(path: str) -> ast.Module:
  with open(path, encoding='utf-8') as f:
    return ast.parse(f.read(), path)


@functools.lru_cache(maxsize=None)
def bool_flags() -> Set[str]:
  """Every boolean flag the project defines (its `--no<flag>` exists),
  the training settings' among them (`settings_flags` makes their flags
  from their declarations)."""
  names = {field.name for settings in _SETTINGS.values()
           for field in dataclasses.fields(settings)
           if field.type in (bool, 'bool')}
  for path in (p for package in _PACKAGES for p in glob.glob(
      os.path.join(_ROOT, package, '**', '*.py'), recursive=True)):
    for node in ast.walk(_tree(path)):
      if (isinstance(node, ast.Call) and
          getattr(node.func, 'attr', '') in ('DEFINE_bool', 'DEFINE_boolean')
          and node.args and isinstance(node.args[0], ast.Constant)):
        names.add(node.args[0].value)
  return names


class EntryPoint(NamedTuple):
  flags: Set[str]
  defaults: Dict[str, str]  # Literal string defaults, e.g. agent: ppo.


@functools.lru_cache(maxsize=None)
def entry_point(module: str) -> Optional[EntryPoint]:
  """The flags of `experiments.<x>` or `benchmarks.<x>` from its
  FLAG_GROUPS; None if it is no program."""
  path = os.path.join(_ROOT, *module.split('.')) + '.py'
  if not os.path.isfile(path):
    return None
  tree = _tree(path)
  if not any(isinstance(n, ast.If) and '__main__' in ast.unparse(n.test)
             for n in tree.body):
    return None
  names, defaults = set(), {}
  for node in tree.body:
    if (isinstance(node, ast.Assign) and
        any(getattr(t, 'id', '') == 'FLAG_GROUPS' for t in node.targets)):
      for group in ast.literal_eval(node.value).values():
        names.update(group)
  for node in ast.walk(tree):
    if (isinstance(node, ast.Call) and
        getattr(node.func, 'attr', '').startswith('DEFINE_') and
        len(node.args) > 1 and isinstance(node.args[0], ast.Constant) and
        isinstance(node.args[1], ast.Constant) and
        isinstance(node.args[1].value, str)):
      defaults[node.args[0].value] = node.args[1].value
  for node in ast.walk(tree):  # Flags made from the settings' declarations.
    if (isinstance(node, ast.Call) and
        ast.unparse(node.func) == 'settings_flags.define'):
      declared = {f.name: f for f in dataclasses.fields(
          _SETTINGS[ast.unparse(node.args[0])]) if f.metadata['flag']}
      for name in [a.value for a in node.args[1:]] or list(declared):
        if isinstance(declared[name].default, str):
          defaults[name] = declared[name].default
  return EntryPoint(names, defaults)


class Registered(NamedTuple):
  names: Set[str]
  config_keys: Dict[str, Set[str]]  # Agent -> its config's fields.


def _module_path(entry: str) -> Optional[str]:
  """The repository file of an `--imports` entry, if there is one."""
  path = entry if entry.endswith('.py') else (
      entry.replace('.', os.sep) + '.py')
  path = os.path.join(_ROOT, path)
  return path if os.path.isfile(path) else None


@functools.lru_cache(maxsize=None)
def registered_by(path: str) -> Registered:
  """The names a user's module registers (`...Entry(name=...)`,
  `Preset(...)`), and its agents' config fields, from its source."""
  tree = _tree(path)
  classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
  names, keys = set(), {}
  for node in ast.walk(tree):
    if not isinstance(node, ast.Call):
      continue
    func = getattr(node.func, 'attr', getattr(node.func, 'id', ''))
    if not (func.endswith('Entry') or func == 'Preset'):
      continue
    keywords = {k.arg: k.value for k in node.keywords}
    name = keywords.get('name', node.args[0] if node.args else None)
    if isinstance(name, ast.Constant):
      names.add(name.value)
      config = getattr(keywords.get('config_class'), 'id', None)
      if func == 'AgentEntry' and config in classes:
        keys[name.value] = {s.target.id for s in classes[config].body
                            if isinstance(s, ast.AnnAssign)}
  return Registered(names, keys)


def _agent_keys(agent: str) -> Optional[Set[str]]:
  if agent in agent_registry.names():
    return set(agent_registry.make_config(agent).__dataclass_fields__)
  return None


def _is_placeholder(text: str) -> bool:
  return any(mark in text for mark in ('<', '...', '…', '*'))


def _valid_env(name: str, extra: Set[str]) -> bool:
  prefix, suite_id = suites.split(name)
  if prefix:
    return bool(suite_id)
  return name in env_registry.names() or name in extra


def _tuple_value(node: ast.AST, module_path: str) -> Tuple[str, ...]:
  """A module-level tuple of strings: literals, `+` and
  `other_module.NAME` of another module of the same package."""
  if isinstance(node, ast.BinOp):
    return (_tuple_value(node.left, module_path) +
            _tuple_value(node.right, module_path))
  if isinstance(node, ast.Attribute):
    other = os.path.join(os.path.dirname(module_path), node.value.id + '.py')
    return _module_tuple(other, node.attr)
  return tuple(ast.literal_eval(node))


@functools.lru_cache(maxsize=None)
def _module_tuple(path: str, name: str) -> Tuple[str, ...]:
  for node in _tree(path).body:
    if (isinstance(node, ast.Assign) and
        any(getattr(t, 'id', '') == name for t in node.targets)):
      return _tuple_value(node.value, path)
  raise KeyError(f'{path} has no {name}')


def benchmark_suites() -> Set[str]:
  """`benchmarks.suites --suites` values."""
  path = os.path.join(_ROOT, 'benchmarks', 'suites.py')
  return set(_module_tuple(path, 'SUITES')) | {'compiled'}


def _run_sh() -> List[str]:
  """The module and fixed flags `./run.sh` runs."""
  with open(os.path.join(_ROOT, 'run.sh'), encoding='utf-8') as f:
    text = f.read().replace('\\\n', ' ')
  line = next(l for l in text.splitlines() if '-m experiments.' in l)
  tokens = shlex.split(line)
  start = tokens.index('-m')
  return [tokens[start + 1]] + [t for t in tokens[start + 2:]
                                if t.startswith('--')]


def check(command: str) -> List[str]:
  """What is wrong with `command` (nothing for other shell commands)."""
  tokens = _tokens(command)
  if not tokens:
    return []
  head = tokens[0]
  if head in ('./run.sh', './test.sh') or head.startswith('scripts/'):
    if not os.path.isfile(os.path.join(_ROOT, head)):
      return [f'{head}: no such script']
    if head != './run.sh':
      return []
    module, *fixed = _run_sh()
    args = fixed + tokens[1:]
  elif head == 'python' and len(tokens) > 2 and tokens[1] == '-m':
    module = tokens[2]
    if (not module.startswith(tuple(f'{p}.' for p in _PACKAGES)) or
        _is_placeholder(module)):
      return []  # pytest, pip, …
    args = tokens[3:]
  elif head == 'python' and len(tokens) > 1 and tokens[1].endswith('.py'):
    exists = os.path.isfile(os.path.join(_ROOT, tokens[1]))
    return [] if exists else [f'{tokens[1]}: no such file']
  else:
    return []
  entry = entry_point(module)
  if entry is None:
    return [f'{module}: no such entry point (experiments/*.py or '
            'benchmarks/*.py run as a program)']
  return _check_args(module, entry, args)


def _values(args: List[str]) -> Dict[str, str]:
  values = {}
  for arg in args:
    if arg.startswith('--') and '=' in arg:
      name, value = arg[2:].split('=', 1)
      values[name] = value
  return values


def _check_args(module: str, entry: EntryPoint, args: List[str]) -> List[str]:
  problems = []
  values = _values(args)
  registered = Registered(set(), {})
  placeholder_import = False
  for item in filter(None, values.get('imports', '').split(',')):
    path = _module_path(item)
    if path:
      found = registered_by(path)
      registered.names.update(found.names)
      registered.config_keys.update(found.config_keys)
    elif re.search(rf'\b({"|".join(_PLACEHOLDER_MODULES)})\b', item):
      placeholder_import = True
    else:
      problems.append(f'--imports: {item} is no module or file here')
  extra = registered.names

  def known_agent(name: str) -> bool:
    return name in agent_registry.names() or name in extra

  agents = [a for a in values.get('agents', values.get(
      'agent', entry.defaults.get('agent', entry.defaults.get('agents', ''))
  )).split(',') if a]
  envs = [e for e in values.get('envs', values.get(
      'env', entry.defaults.get('env', entry.defaults.get('envs', '')))
  ).split(',') if e]
  unchecked = placeholder_import
  for agent in agents:
    if not (known_agent(agent) or unchecked or _is_placeholder(agent)):
      problems.append(f'--agent: no agent {agent!r}')
  for env in envs:
    if not (_valid_env(env, extra) or unchecked or _is_placeholder(env)):
      problems.append(f'--env: no environment {env!r}')
  network = values.get('network')
  if network and not (network in network_registry.names() or
                      network in extra or unchecked):
    problems.append(f'--network: no network {network!r}')
  for preset in filter(None, values.get('preset', '').split(',')):
    if not (preset == 'none' or preset.endswith('.json') or
            preset in preset_registry.names() or preset in extra or
            _is_placeholder(preset)):
      problems.append(f'--preset: no preset {preset!r}')

  if module == 'benchmarks.suites':
    for suite in filter(None, values.get('suites', '').split(',')):
      if suite not in benchmark_suites():
        problems.append(f'--suites: no suite {suite!r}')
  for pair in filter(None, values.get('only', '').split(',')):
    env, _, agent = pair.rpartition('/')
    # A pair by its agent, or a preset of it other than its default.
    if not (_valid_env(env, extra) and (
        known_agent(agent) or agent in preset_registry.names())):
      problems.append(f'--only: no pair {pair!r} (<env>/<agent> or '
                      f'<env>/<preset>)')

  def keys_of(agent: str) -> Optional[Set[str]]:
    return registered.config_keys.get(agent, _agent_keys(agent))

  for arg in args:
    if not arg.startswith('--'):
      continue
    name = arg[2:].split('=', 1)[0]
    if name.startswith('config.') and 'config' in entry.flags:
      problems += _check_config_key(name[len('config.'):], agents, keys_of,
                                    unchecked)
    elif name.startswith('env_config.') and 'env_config' in entry.flags:
      key = name[len('env_config.'):]
      for env in envs:
        settings = env_registry.settings(env) if _valid_env(env, set()) \
            else None
        if settings is not None and key not in settings and \
            not _is_placeholder(key):
          problems.append(f'--{name}: {env} has no setting {key!r}')
    elif name.startswith('no') and name[2:] in entry.flags and \
        name[2:] in bool_flags() and '=' not in arg:
      continue
    elif name not in entry.flags | _ABSL_FLAGS and not _is_placeholder(name):
      problems.append(f'--{name}: {module} has no such flag')
  return problems


def _check_config_key(key: str, agents: List[str], keys_of,
                      unchecked: bool) -> List[str]:
  if _is_placeholder(key) or unchecked:
    return []
  agent, _, rest = key.partition('.')
  if rest:  # --config.<agent>.<key> (compare).
    keys = keys_of(agent)
    if keys is not None and rest not in keys:
      return [f'--config.{key}: {agent} has no setting {rest!r}']
    return []
  known = [keys_of(a) for a in (agents or agent_registry.names())]
  known = [k for k in known if k is not None]
  if known and not any(key in k for k in known):
    return [f'--config.{key}: no setting {key!r} in '
            f'{", ".join(agents) or "any agent"}']
  return []


def all_problems() -> List[Tuple[Command, str]]:
  found = []
  for page in pages():
    with open(page, encoding='utf-8') as f:
      text = f.read()
    for command in commands_in(text, os.path.relpath(page, _ROOT)):
      found += [(command, problem) for problem in check(command.text)]
  return found


def test_every_documented_command_is_real():
  problems = all_problems()
  assert not problems, 'Commands in the docs that would fail:\n' + '\n'.join(
      f'  {c.where}: {p}\n      {c.text}' for c, p in problems)


def test_the_pages_hold_commands_of_every_kind():
  texts = [c.text for page in pages()
           for c in commands_in(open(page, encoding='utf-8').read(), page)]
  for start in ('python -m experiments.train ', 'python -m experiments.compare ',
                'python -m experiments.export_tflite ', './run.sh', './test.sh'):
    assert any(t.startswith(start) for t in texts), start


def test_a_wrong_command_is_named():
  cases = {
      'python -m experiments.train --num_stepz=5': '--num_stepz',
      'python -m experiments.trian --agent=ppo': 'no such entry point',
      'python -m benchmarks.suitez --suites=startup': 'no such entry point',
      'python -m experiments.train --agent=pp0': "no agent 'pp0'",
      'python -m experiments.train --env=plane_strik': 'no environment',
      'python -m experiments.train --agent=ppo --config.learning_rat=1':
          "no setting 'learning_rat'",
      'python -m experiments.train --config.discount=0.5 --config.baseline=x':
          "no setting 'baseline' in ppo",  # train's default agent.
      'python -m experiments.compare --config.ppo.num_epoch=3':
          "ppo has no setting 'num_epoch'",
      'python -m experiments.compare --env_config.board_size=6':
          'experiments.compare has no such flag',
      'python -m experiments.train --env_config.board_siz=6':
          "plane_strike has no setting 'board_siz'",
      'python -m experiments.train --nonum_steps': '--nonum_steps',
      'python -m experiments.train --preset=ppo_plane_strik': 'no preset',
      'python -m experiments.train --network=mlp_polcy': 'no network',
      'python -m experiments.train --imports=examples/nope.py': 'no module',
      './run.sh --seedz=3': '--seedz',
      'python -m experiments.train --imports=examples/custom_agent.py '
      '--agent=reinforce_with_baseline --config.baseline_cost=1':
          "no setting 'baseline_cost' in reinforce_with_baseline",
      'python examples/nope.py': 'no such file',
      'python -m benchmarks.suites --suites=startup,seedz': "'seedz'",
      'python -m benchmarks.learning --only=catch/pp': "'catch/pp'",
  }
  for command, expected in cases.items():
    problems = check(command)
    assert any(expected in p for p in problems), (command, problems)


def test_real_commands_pass():
  for command in (
      'python -m experiments.train --agent=ppo --env=gymnax:CartPole-v1',
      'XLA_FLAGS=--x=4 python -m experiments.train --noexport_tflite '
      '--helpconfig',
      'python -m experiments.compare --agents=ppo,sac --config.ppo.num_epochs=3'
      ' --config.learning_rate=1e-3',
      'python -m experiments.train --imports=examples/custom_agent.py '
      '--agent=reinforce_with_baseline --config.value_cost=0.5',
      'python -m experiments.export_tflite --workdir=DIR [--output=m.tflite]',
      './run.sh --seed=3   # a comment --not_a_flag',
      './test.sh -m "not slow"',
      'python -m benchmarks.suites --suites=compiled,peers_python_loop',
      'python -m benchmarks.learning '
      '--only=gymnax:Pendulum-v1/sac,plane_strike/dqn',
      'tensorboard --logdir=/tmp/ps'):
    assert check(command) == [], command


def test_commands_are_read_from_blocks_and_inline_code():
  text = ('Run `python -m experiments.train\n--seed=1` or:\n\n```\n'
          'python -m experiments.train --agent=ppo \\\n    --seed=2\n'
          '```\n\n```python\nimport os  # --not_a_command\n```\n')
  assert [c.text for c in commands_in(text, 'p.md')] == [
      'python -m experiments.train --agent=ppo --seed=2',
      'python -m experiments.train --seed=1']
