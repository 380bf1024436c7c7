"""Running the framework's commands as a user does, for fault tests.

Every reliability test drives `python -m experiments.<command>` (exit
codes, what it prints and the files it leaves are what a user sees), on
small runs of Catch that take seconds: in this process (`tests.commands`)
where that shows the same, in a subprocess where the process is the point
(`start`: signals and kills; `optimised`: long runs, compiled with XLA's
own settings).
"""

import json
import os
import pathlib
import subprocess
import sys
import time
from typing import Any, Callable, List, Optional, Tuple, Union

import jax
import numpy as np
import pytest

from experiments.driver import results
from experiments.driver import run as driver
from experiments.driver import workdir as workdir_lib
from experiments.setup import build as build_lib
from experiments.storage import checkpointing
from tests import commands
from tests import conftest

REPO = pathlib.Path(__file__).resolve().parents[3]
# A short compiled-loop run: PPO on Catch, ~20k steps, no export.
FAST = ('--env=catch', '--agent=ppo', '--preset=none', '--eval_episodes=20',
        '--export_tflite=false', '--progress=false')


# tests/conftest.py has every process compile for compile time (cold
# compiles about half as long); a child that trains for long runs faster
# with XLA's own settings (`optimised=True`).
_TEST_ONLY = {flag.split('=')[0] for flag in conftest.TEST_XLA_FLAGS}


def _env(cwd: Optional[str], optimised: bool = False) -> dict:
  env = dict(os.environ)
  paths = [str(REPO)] + ([cwd] if cwd else [])
  env['PYTHONPATH'] = os.pathsep.join(paths + [env.get('PYTHONPATH', '')])
  if optimised:
    env['XLA_FLAGS'] = ' '.join(flag for flag in
                                env.get('XLA_FLAGS', '').split()
                                if flag.split('=')[0] not in _TEST_ONLY)
  return env


def run(command: str, *flags: str, cwd: Optional[str] = None,
        timeout: float = 600, optimised: bool = False
        ) -> Union[commands.Completed, subprocess.CompletedProcess]:
  """`python -m experiments.<command> <flags>`, to completion: in this
  process, or with XLA's own optimisations (`optimised`) in a child."""
  if not optimised:
    return commands.run(f'experiments.{command}', *flags, cwd=cwd)
  return subprocess.run(
      [sys.executable, '-m', f'experiments.{command}', *flags],
      cwd=cwd or REPO, env=_env(cwd, optimised), capture_output=True,
      text=True, timeout=timeout, check=False)


def train(workdir: str, *flags: str, returncode: int = 0,
          optimised: bool = False) -> Tuple[Any, Optional[dict]]:
  """`experiments.train <flags> --workdir=<workdir>` (`run`), which must
  exit with `returncode`: `(the finished command, its result.json or
  None where it wrote none)`."""
  done = run('train', *flags, f'--workdir={workdir}', optimised=optimised)
  assert done.returncode == returncode, done.stderr
  path = os.path.join(workdir, 'result.json')
  assert returncode != 0 or os.path.exists(path), f'{path} is missing'
  return done, strict_json(path) if os.path.exists(path) else None


def start(command: str, *flags: str, cwd: Optional[str] = None,
          optimised: bool = False) -> subprocess.Popen:
  """The same command, started in the background."""
  return subprocess.Popen(
      [sys.executable, '-m', f'experiments.{command}', *flags],
      cwd=cwd or REPO, env=_env(cwd, optimised), stdout=subprocess.PIPE,
      stderr=subprocess.PIPE, text=True)


def wait_for(condition: Callable[[], bool], timeout: float = 300,
             what: str = 'a condition') -> None:
  deadline = time.monotonic() + timeout
  while not condition():
    if time.monotonic() > deadline:
      raise AssertionError(f'Timed out waiting for {what}.')
    time.sleep(0.2)


def checkpoint_steps(workdir: str) -> List[int]:
  directory = os.path.join(workdir, 'checkpoints')
  if not os.path.isdir(directory):
    return []
  return sorted(int(n) for n in os.listdir(directory) if n.isdigit())


def strict_json(path: str):
  """Parses `path` as strict JSON (NaN and Infinity are refused)."""

  def refuse(constant):
    raise AssertionError(f'{path} holds {constant}: not strict JSON.')

  with open(path) as f:
    return json.loads(f.read(), parse_constant=refuse)


def metrics(result: dict) -> dict:
  """A result's numbers that do not depend on timing."""
  return {k: v for k, v in result.items()
          if k not in results.CIRCUMSTANCE_KEYS + ('tflite_path',)}


def rewrite_checkpoint(workdir: str, change: Callable, step: int) -> None:
  """Saves `change(state)` of `workdir`'s newest checkpoint as checkpoint
  `step` (a crafted state: counters near 2^31, NaN parameters...)."""
  built = build_lib.build(workdir_lib.load_config(workdir))
  loop = build_lib.make_loop(built)
  checkpointer = checkpointing.Checkpointer(
      workdir_lib.checkpoint_directory(workdir))
  resumed = driver.restore(loop, checkpointer)
  checkpointer.save(step,
                    {'loop': change(jax.device_get(loop.state)),
                     'wall_seconds': np.asarray(resumed.wall_seconds)},
                    {'loop': None, 'evaluations': resumed.evaluations})
  checkpointer.close()


@pytest.fixture(name='cli', scope='session')
def cli_fixture():
  """The helpers above, for tests (`cli.run`, `cli.start`, …)."""
  return sys.modules[__name__]
