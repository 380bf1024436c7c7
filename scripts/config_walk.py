r"""Follows a whole training run's config through the code: a measure of
how far the settings travel once resolved.

  .venv/bin/python scripts/config_walk.py \
      '{"agent": "ppo", "env": "catch", "num_steps": 2000}'

Trains `api.train(**settings)` (export off) in a temporary workdir under
a profiler and records every call of a project function (agents,
environments, networks, experiments) that receives the run's settings or
config (a `TrainSettings`, an `ExperimentConfig`, or an object holding one
as `.config`), the agent's config, or the agent's or environment's name.
Prints the calls that cross from one module to another, the modules they
enter and how often each is entered, and the calls that climb back up a
layer of docs/layout.md (a loop calling into setup, say); `--calls` lists
every such call.
"""

import collections
import json
import os
import sys
import tempfile

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, _ROOT)

# pylint: disable=wrong-import-position
from agents import registry as agent_registry
from experiments import api
from experiments.setup import config as config_lib
from experiments.setup import train_settings

_PACKAGES = ('agents', 'environments', 'networks', 'experiments')
_CARRIERS = (config_lib.ExperimentConfig, train_settings.TrainSettings)


def _module(filename: str):
  """The project module of a source file, or None outside the project."""
  relative = os.path.relpath(filename, _ROOT)
  if relative.split(os.sep)[0] not in _PACKAGES:
    return None
  return relative[:-len('.py')].replace(os.sep, '.')


def walk(settings: dict) -> list:
  """`(caller module, callee module, function)` of each call that carries
  the run's settings, in order."""
  config = api.experiment_config(**settings)  # Names, defaults filled.
  names = {config.agent, config.env}
  config_classes = tuple(agent_registry.get(n).config_class
                         for n in agent_registry.names())

  def carries(value) -> bool:
    return (isinstance(value, _CARRIERS) or
            isinstance(getattr(value, 'config', None), _CARRIERS) or
            isinstance(value, config_classes) or
            (isinstance(value, str) and value in names))

  calls = []

  def profile(frame, event, _):
    if event != 'call':
      return
    callee = _module(frame.f_code.co_filename)
    if callee is None:
      return
    code = frame.f_code
    arguments = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    if not any(carries(frame.f_locals.get(a)) for a in arguments):
      return
    back = frame.f_back  # Past library frames (dataclasses, functools).
    while back is not None and _module(back.f_code.co_filename) is None:
      back = back.f_back
    calls.append((back and _module(back.f_code.co_filename), callee,
                  code.co_name))

  with tempfile.TemporaryDirectory() as workdir:
    sys.setprofile(profile)
    try:
      api.train(os.path.join(workdir, 'run'), progress=False,
                **{'export_tflite': False, **settings})
    finally:
      sys.setprofile(None)
  return calls


# The layers of docs/layout.md, top first: the user's commands → driver →
# setup → loops → agents / environments / networks.
_LAYERS = (('experiments.driver.', 1), ('experiments.setup.', 2),
           ('experiments.presets.', 2), ('experiments.cli.', 2),
           ('experiments.loops.', 3), ('agents.', 4), ('environments.', 4),
           ('networks.', 4))


def layer(module: str):
  """The layer of `module` (0: a command), or None off the main line
  (storage, export, comparison)."""
  for prefix, rank in _LAYERS:
    if module.startswith(prefix):
      return rank
  return 0 if module.count('.') == 1 and module.startswith(
      'experiments.') else None


def climbs(crossing: list) -> list:
  """The calls that go back up a layer (e.g. a loop into setup)."""
  return [(caller, callee, function) for caller, callee, function in crossing
          if caller and layer(caller) is not None and
          layer(callee) is not None and layer(callee) < layer(caller)]


def main(argv) -> None:
  settings = json.loads(next(a for a in argv[1:] if not a.startswith('--')))
  crossing = [c for c in walk(settings) if c[0] != c[1]]
  entered = collections.Counter(callee for _, callee, _ in crossing)
  up = climbs(crossing)
  print(f'calls from one module into another: {len(crossing)}; modules '
        f'entered: {len(entered)}; back up a layer: {len(up)}')
  for caller, callee, function in up:
    print(f'  up: {caller} -> {callee}.{function}')
  for module, count in entered.most_common():
    print(f'{count:5d}  {module}')
  if '--calls' in argv:
    for caller, callee, function in crossing:
      print(f'{caller} -> {callee}.{function}')


if __name__ == '__main__':
  main(sys.argv)
