"""Running peers' programs beside ours, for the peer benchmark suites.

`Peers.run` is the runner `scaling.measure` takes: our own
runs in a child process of ours, the peers' programs in their own
environment (`benchmarks/peer_programs.py` under `.venv-peers`'s interpreter),
never in ours. `ratios` and `both_arithmetics` are what the suites share.
"""

import json
import os
import subprocess
import tempfile
import time
from typing import Any, Dict, List, Optional, Sequence

from benchmarks import commands
from benchmarks import scaling

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEER_PROGRAMS = os.path.join(_REPO, 'benchmarks', 'peer_programs.py')
DEFAULT_PEER_PYTHON = os.path.join(_REPO, '.venv-peers', 'bin', 'python')
# Training alone: no periodic evaluation, a short final one, no export.
TRAINING_ONLY = dict(eval_every_steps=0, eval_every_episodes=0,
                      eval_episodes=10, export_tflite=False)


class Peers:
  """Runs the measurements of the peer suites (`measure`'s runner)."""

  def __init__(self, peer_python: str, purejaxrl_source: Optional[str],
               purejaxql_source: Optional[str] = None,
               pgx_source: Optional[str] = None,
               craftax_baselines_source: Optional[str] = None,
               xminigrid_source: Optional[str] = None):
    self._python = peer_python
    self._source = purejaxrl_source
    self._purejaxql_source = purejaxql_source
    self._pgx_source = pgx_source
    self._craftax_baselines_source = craftax_baselines_source
    self._xminigrid_source = xminigrid_source

  def peer(self, program: str, seed: int, **options: Any
           ) -> Dict[str, Any]:
    """`benchmarks/peer_programs.py program` in the peers' environment: its
    figures, wall seconds and peak memory."""
    command = [self._python, PEER_PROGRAMS, program, f'--seed={seed}']
    for key, value in options.items():
      text = value if isinstance(value, str) else json.dumps(value)
      command.append(f'--{key}={text}')
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=_REPO, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    stdout, stderr = process.communicate()
    seconds = time.perf_counter() - start
    if process.returncode != 0:
      raise scaling.ChildFailed(
          f'peer program {program!r} failed ({process.returncode}): '
          f'{" ".join(command)}\n{stderr[-3000:]}')
    figures = scaling.parse_child_output(stdout)
    figures['process_seconds'] = seconds
    return figures

  def run(self, root: str, name: str,
          measurement: scaling.Measurement,
          seed: int) -> Dict[str, Any]:
    """One measurement (`settings['program']` says whose) with `seed`."""
    settings = dict(measurement.settings)
    program = settings.pop('program')
    if program == 'ours':
      return scaling.run_child(
          root, name, scaling.Measurement(settings), seed)
    if program == 'our_command':
      workdir = tempfile.mkdtemp(prefix=f'{name}-', dir=root)
      return commands.timed_command(
          list(settings['args']) + [f'--workdir={workdir}', f'--seed={seed}'])
    if program == 'purejaxrl_script':
      figures = self.peer(program, seed, source=self._source)
      figures['seconds'] = figures['process_seconds']
      return figures
    if program == 'pgx_alphazero':
      return self.peer(program, seed, source=self._pgx_source,
                       settings=settings['config'],
                       iterations=settings['iterations'],
                       hidden_sizes=','.join(
                           str(size) for size in settings['hidden_sizes']))
    if program.startswith('purejaxql_'):
      return self.peer(program, seed, source=self._purejaxql_source,
                        settings=settings['config'])
    if program in ('navix_ppo', 'jumanji_a2c', 'popgym_arcade_ppo'):
      return self.peer(program, seed, settings=settings['config'])
    if program == 'craftax_baselines_ppo':
      return self.peer(program, seed, source=self._craftax_baselines_source,
                       settings=settings['config'])
    if program == 'xminigrid_ppo':
      return self.peer(program, seed, source=self._xminigrid_source,
                       settings=settings['config'])
    if program in ('purejaxrl_ppo', 'purejaxrl_ppo_rnn'):
      return self.peer(program, seed, source=self._source,
                        settings=settings['config'])
    seeds = ({'num_seeds': settings['num_seeds']}
             if 'num_seeds' in settings else {})
    return self.peer(program, seed, algorithm=settings['algorithm'],
                      settings=settings['config'], **seeds)


def peer_arithmetic(peer: str) -> Dict[str, Any]:
  """Our agent settings that do a peer's arithmetic where ours differs by
  default: every peer ends returns at time limits; rejax clips each
  gradient entry where PureJaxRL and purejaxql clip the global norm."""
  settings = {'bootstrap_time_limits': False}
  if peer.startswith('rejax'):
    settings['gradient_clipping'] = 'each_entry'
  return settings


def widths_and_budgets(widths: Sequence[str], budgets: Sequence[str],
                       update_steps: int) -> bool:
  """Whether a suite's width and budget flags pair up: one budget per
  width, each width an int >= 1, each budget a positive multiple of
  `update_steps` (one update of the setting)."""
  try:
    widths = [int(w) for w in widths]
    budgets = [int(s) for s in budgets]
  except ValueError:
    return False
  return (len(widths) == len(budgets) and min(widths, default=1) >= 1 and
          all(s > 0 and s % update_steps == 0 for s in budgets))


def ratios(runs: Dict[str, List[Dict[str, Any]]], ours: str, key: str,
            peers: Sequence[str], prefix: str) -> None:
  """Sets `<prefix>_over_<peer>` in each of our runs: our `key` over the
  peer's in the same round."""
  for peer in peers:
    for mine, theirs in zip(runs[ours], runs[peer]):
      mine[f'{prefix}_over_{peer}'] = mine[key] / theirs[key]


def both_arithmetics(
    root: str, repeats: int, run: scaling.Runner, preset: str,
    peer: str, peer_measurement: scaling.Measurement,
    **settings: Any) -> Dict[str, List[Dict[str, Any]]]:
  """Our `preset` (with `settings`, e.g. its budget) twice per round, with
  the peer's arithmetic (`peer_arithmetic(peer)`: 'ours') and as by
  default (bootstrapping through time limits, which takes the value of
  every step's next observation, and clipping the gradients' global
  norm: 'ours_bootstrapping'), beside `peer`; each with its speed over the
  peer's in the same round."""
  runs = scaling.measure(root, {
      'ours': scaling.Measurement(dict(
          program='ours', preset=preset,
          agent_config=peer_arithmetic(peer), **settings,
          **TRAINING_ONLY)),
      'ours_bootstrapping': scaling.Measurement(dict(
          program='ours', preset=preset, **settings, **TRAINING_ONLY)),
      peer: peer_measurement,
  }, repeats, run)
  for ours in ('ours', 'ours_bootstrapping'):
    ratios(runs, ours, 'steps_per_second', (peer,), 'speed')
  return runs
