"""What a benchmark measured, so that its table can say when it is stale.

A benchmark JSON's `measured` block records the commit, the code that ran
(`code`: a hash of each agent, network, environment-adapter and loop
module, comments and docstrings left out, so that only a change of what
runs changes it) and each run's resolved settings (`runs`: the agent config
with every default filled in, the network, widths, environments, loop,
evaluation protocol and budget, with the `recipe` that rebuilds them from
today's defaults). `changes` compares that record with the code and
defaults of today: `python -m benchmarks.tables --check` fails
on a table whose JSON measured code or settings that have changed since,
until the table is re-measured or its page says under what it was measured
(`acknowledge`).
"""

import ast
import dataclasses
import functools
import hashlib
import inspect
import os
import subprocess
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence
from typing import Tuple

from agents import registry as agent_registry
from environments import registry as env_registry
from environments import suites
from experiments.presets import registry as preset_registry
from experiments.setup import build as build_lib
from experiments.setup import config as config_lib
from experiments.setup import train_settings
from networks import registry as network_registry

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Each loop's entry module: its runs execute it and the experiments/loops
# modules it imports (`_package_imports`).
LOOP_ENTRIES = {'compiled': 'experiments/loops/compiled_training.py',
                'python': 'experiments/loops/python_training.py'}


def _relative(path: str) -> str:
  return os.path.relpath(os.path.abspath(path), ROOT)


def _module_of(function: Callable[..., Any]) -> Optional[str]:
  """The project file defining `function` (partials and wrappers
  unwrapped); None outside the project."""
  while hasattr(function, 'func'):  # functools.partial
    function = function.func
  function = inspect.unwrap(function)
  try:
    path = inspect.getsourcefile(function)
  except TypeError:
    return None
  if path is None or not os.path.abspath(path).startswith(ROOT + os.sep):
    return None
  return _relative(path)


def _package_imports(path: str) -> List[str]:
  """The modules of `path`'s own package (its folder) it imports, and those
  they import in turn (`from agents import on_policy` in agents/ppo.py:
  agents/on_policy.py, then the agents/ modules the skeleton imports;
  `from experiments.loops import env_slots` likewise), registries left
  out."""
  package = os.path.dirname(path)
  found, pending = [], [path]
  while pending:
    with open(os.path.join(ROOT, pending.pop()), encoding='utf-8') as f:
      tree = ast.parse(f.read())
    for node in ast.walk(tree):
      if (isinstance(node, ast.ImportFrom) and
          node.module == package.replace(os.sep, '.')):
        for alias in node.names:
          candidate = os.path.join(package, f'{alias.name}.py')
          if (alias.name != 'registry' and candidate not in found and
              candidate != path and
              os.path.exists(os.path.join(ROOT, candidate))):
            found.append(candidate)
            pending.append(candidate)
  return found


def _network_modules(make: Callable[..., Any]) -> List[str]:
  """The networks/ modules a registered network's factory builds from: the
  registry's entries are lambdas (and image checks around them) calling
  into the modules that define the networks."""
  found, functions = [], [make]
  while functions:
    function = functions.pop()
    functions += [c.cell_contents for c in (function.__closure__ or ())
                  if inspect.isfunction(c.cell_contents)]
    for name in function.__code__.co_names:
      value = function.__globals__.get(name)
      if inspect.ismodule(value):
        path = _relative(getattr(value, '__file__', '') or '')
        if path.startswith('networks' + os.sep):
          found.append(path)
  return found or [_module_of(make) or 'networks/registry.py']


def code_modules(config: config_lib.ExperimentConfig) -> List[str]:
  """The project files whose code a run of `config` executes: its agent's
  module and the agent modules it imports, its network's, its environment's
  adapter (or game) and its loop's."""
  modules = []
  agent_module = _module_of(agent_registry.get(config.agent).make_agent)
  if agent_module:
    modules += [agent_module] + _package_imports(agent_module)
  modules += _network_modules(
      network_registry.get(build_lib.network_name(config)).make)
  prefix, _ = suites.split(config.env)
  if prefix:
    suite = suites.SUITES[prefix]
    factory = suite.make_core or suite.make_environment
  else:
    entry = env_registry.get(config.env)
    factory = entry.make_core or entry.make_environment
  modules.append(_module_of(factory) or 'environments/registry.py')
  entry = LOOP_ENTRIES[config.loop]
  modules += [entry] + _package_imports(entry)
  return sorted(set(m for m in modules if os.path.exists(
      os.path.join(ROOT, m))))


def _without_docstrings(tree: ast.AST) -> ast.AST:
  for node in ast.walk(tree):
    if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                         ast.AsyncFunctionDef)) and node.body and (
                             isinstance(node.body[0], ast.Expr) and
                             isinstance(node.body[0].value, ast.Constant) and
                             isinstance(node.body[0].value.value, str)):
      node.body = node.body[1:] or [ast.Pass()]
  return tree


@functools.lru_cache(maxsize=512)  # A table check hashes each file often.
def code_hash(source: str) -> str:
  """A hash of what `source` runs: comments, docstrings and layout do not
  change it."""
  tree = _without_docstrings(ast.parse(source))
  return hashlib.sha256(ast.dump(tree).encode()).hexdigest()[:16]


def code_hashes(paths: Sequence[str]) -> Dict[str, Optional[str]]:
  """`code_hash` of each project file; None for one that is gone."""
  hashes = {}
  for path in paths:
    full = os.path.join(ROOT, path)
    if not os.path.exists(full):
      hashes[path] = None
      continue
    with open(full, encoding='utf-8') as f:
      hashes[path] = code_hash(f.read())
  return hashes


def settings_of(config: config_lib.ExperimentConfig) -> Dict[str, Any]:
  """A run's resolved settings: what its numbers depend on besides code."""
  return {
      'agent': config.agent, 'env': config.env,
      'env_kwargs': dict(config.env_kwargs),
      'agent_config': dataclasses.asdict(config.agent_config),
      'network': build_lib.network_name(config),
      'hidden_sizes': (None if config.resolved_hidden_sizes() is None
                       else list(config.resolved_hidden_sizes())),
      'num_envs': config.num_envs, 'loop': config.loop,
      'eval_policy': config.eval_policy, 'eval_epsilon': config.eval_epsilon,
      'num_steps': config.num_steps, 'num_episodes': config.num_episodes,
  }


def recipe_of(config: config_lib.ExperimentConfig,
              overrides: Optional[Mapping[str, Any]] = None
             ) -> Dict[str, Any]:
  """The train settings that rebuild `config`'s settings from its preset,
  the agent-config `overrides` the measurement set over it (and any other
  agent setting that differs from the preset's), and today's
  defaults (what the run did not set stays unset: a network or widths
  the preset gives are left to it, so that a preset's change shows)."""
  preset = preset_registry.resolve(config.preset, config.agent, config.env,
                                   other_env=True)
  # Every agent setting the run holds away from its preset's, beside the
  # `overrides` its measurement names (a sweep's trial, say).
  base = dataclasses.asdict(agent_registry.make_config(
      config.agent, **(preset.config if preset else {})))
  overrides = {**{key: value for key, value in
                  dataclasses.asdict(config.agent_config).items()
                  if base.get(key) != value}, **(overrides or {})}
  network = config.network
  hidden_sizes = (None if config.hidden_sizes is None else
                  list(config.hidden_sizes))
  if preset is not None and network == preset.network:
    network = None
  if preset is not None and hidden_sizes == (
      None if preset.hidden_sizes is None else list(preset.hidden_sizes)):
    hidden_sizes = None
  recipe = {'agent': config.agent, 'env': config.env,
            'preset': config.preset, 'network': network,
            'hidden_sizes': hidden_sizes, 'config': dict(overrides or {}),
            'env_config': dict(config.env_kwargs),
            'num_steps': config.num_steps,
            'num_episodes': config.num_episodes,
            'eval_episodes': config.eval_episodes, 'loop': config.loop,
            'num_envs': config.num_envs}
  # The evaluation protocol, where the run set one away from its game's
  # default (a suite scoring greedily where MinAtar samples, say).
  default = _rebuilt(recipe)
  for key in ('eval_policy', 'eval_epsilon'):
    if getattr(default, key) != getattr(config, key):
      recipe[key] = getattr(config, key)
  return recipe


def _rebuilt(recipe: Mapping[str, Any]) -> config_lib.ExperimentConfig:
  """The config `train` makes of `recipe` today (no export)."""
  # A measured run may have started from another game's preset (PPO's
  # classic-control one on Acrobot): rebuilt as it ran.
  return train_settings.experiment_config(train_settings.TrainSettings(
      **{k: v for k, v in recipe.items() if v is not None},
      export_tflite=False, preset_on_other_env=True))


def commit() -> Optional[str]:
  """HEAD's commit, with `+changes` when the work tree differs from it;
  None outside a git checkout."""
  try:
    head = subprocess.run(['git', 'rev-parse', '--short=12', 'HEAD'],
                          cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()
    dirty = subprocess.run(['git', 'status', '--porcelain', '--',
                            'agents', 'environments', 'networks',
                            'experiments', 'benchmarks/*.py'], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.strip()
  except (OSError, subprocess.CalledProcessError):
    return None
  return head + ('+changes' if dirty else '')


def measured(configs: Sequence[config_lib.ExperimentConfig],
             overrides: Optional[Sequence[Mapping[str, Any]]] = None
            ) -> Dict[str, Any]:
  """The `measured` block of a benchmark JSON whose runs are `configs`,
  each with the agent-config `overrides` it set over its preset."""
  modules = sorted({m for c in configs for m in code_modules(c)})
  overrides = overrides or [{}] * len(configs)
  return {'commit': commit(), 'code': code_hashes(modules),
          'runs': [{'settings': settings_of(c), 'recipe': recipe_of(c, o)}
                   for c, o in zip(configs, overrides)]}


# Our runs measured since the last `take_recorded` (each config with the
# agent-config overrides it set over its preset), so that each suite's JSON
# records what it measured.
_RECORDED: List[Tuple[config_lib.ExperimentConfig, Dict[str, Any]]] = []


def record(config: config_lib.ExperimentConfig,
           overrides: Optional[Mapping[str, Any]] = None) -> None:
  """Notes that a suite measured a run of `config`."""
  _RECORDED.append((config, dict(overrides or {})))


def take_recorded() -> Dict[str, Any]:
  """`{'measured': …}` of the runs recorded since the last call; {} if
  there were none."""
  taken = list(_RECORDED)
  _RECORDED.clear()
  if not taken:
    return {}
  return {'measured': measured([config for config, _ in taken],
                               [overrides for _, overrides in taken])}


def _differences(before: Any, now: Any, where: str = '') -> List[str]:
  if isinstance(before, Mapping) and isinstance(now, Mapping):
    found = []
    for key in sorted(set(before) | set(now)):
      found += _differences(before.get(key), now.get(key),
                            f'{where}.{key}' if where else key)
    return found
  return [] if before == now else [f'{where}: {before!r} -> {now!r}']


def changes(record: Mapping[str, Any]) -> List[str]:
  """What changed since `record` (a `measured` block) was measured: code
  modules and resolved settings, one line each; empty if nothing did."""
  found = [f'{path} changed' if now else f'{path} is gone'
           for path, now in code_hashes(list(record.get('code', {}))).items()
           if now != record['code'][path]]
  for run in record.get('runs', ()):
    recipe = run['recipe']
    try:
      rebuilt = _rebuilt(recipe)
    except ValueError as e:
      found.append(f'{recipe.get("agent")} on {recipe.get("env")} no '
                   f'longer builds: {e}')
      continue
    settings = dict(run['settings'])
    if settings.get('num_envs', 0) is None:  # Recorded before None was
      settings['num_envs'] = rebuilt.num_envs  # resolved in the config.
    found += [f'{run["recipe"]["agent"]} on {run["recipe"]["env"]}: {line}'
              for line in _differences(settings, settings_of(rebuilt))]
  return found


def acknowledged(record: Mapping[str, Any]) -> Dict[str, Any]:
  """`record` with today's code hashes and settings as the ones it was
  measured under, kept beside the note that says so (`acknowledge`)."""
  runs, modules = [], set()
  for run in record.get('runs', ()):
    rebuilt = _rebuilt(run['recipe'])
    runs.append({**run, 'settings': settings_of(rebuilt)})
    modules.update(code_modules(rebuilt))
  # The modules today's runs execute (a module split out of one is
  # watched from now on); a record without runs keeps its own.
  return {**record, 'code': code_hashes(sorted(modules) or
                                        list(record.get('code', {}))),
          'runs': runs}
