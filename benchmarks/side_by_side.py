r"""A peer's own program beside ours, same setting, same seeds; JSON.

  python -m benchmarks.side_by_side --seeds=5 \
      --purejaxrl_source=/path/to/purejaxrl \
      --output=benchmarks/purejaxrl_minatar_learning.json
  python -m benchmarks.side_by_side --seeds=5 --games=Breakout ...

PPO on the MinAtar games at 10M steps in PureJaxRL's MinAtar setting (64
environments × 128 steps, 4 epochs × 8 minibatches, lr 5e-3 annealed,
64-64 ReLU networks): PureJaxRL's `ppo.make_train` run here in the peers'
environment (`scripts/setup_peer_venv.sh`), its seeds vmapped in one
program as its README runs them, and ours (the `ppo_<game>_minatar`
presets) in two arms: returns ended at time limits as PureJaxRL's are
(`bootstrap_time_limits=False`: the same arithmetic), and bootstrapped
through them (our default). Both sides are measured the same way, on the
same seed numbers: the mean return of each seed's last training episodes
(at least 100, whole updates; `benchmarks.reproductions.training_return`),
the policy sampled as it acts. Our arms also report their final
evaluation. Each game's row records what it measured; a launch with
`--games` rewrites those games' rows of `--output` and keeps the others.
The page: docs/benchmarks/reproductions.md.
"""

import dataclasses
import json
import os
import tempfile
import time
from typing import Any, Callable, Dict, List

from absl import flags

from benchmarks import fingerprints
from benchmarks import learning
from benchmarks import peer_runs
from benchmarks import peers
from benchmarks import reproductions
from experiments.cli import help_text
from experiments.setup import compilation_cache
from experiments.setup import library_logs
from experiments.storage import atomic_files

# Each MinAtar game and our preset of PureJaxRL's setting on it.
PRESETS = {'Breakout': 'ppo_breakout_minatar',
           'SpaceInvaders': 'ppo_space_invaders_minatar',
           'Asterix': 'ppo_asterix_minatar',
           'Freeway': 'ppo_freeway_minatar'}
GAMES = tuple(PRESETS)
NUM_STEPS = 10_000_000
# PureJaxRL's MinAtar setting, as our presets carry it (`ppo_<game>_minatar`).
_PUREJAXRL = dict(num_envs=64, learning_rate=5e-3, num_minibatches=8,
                  activation='relu')


def ours(game: str, bootstrap: bool) -> reproductions.Reproduction:
  """Our arm on `game`: the MinAtar row of `reproductions`, ending returns
  at time limits unless `bootstrap`."""
  (row,) = [r for r in reproductions.REPRODUCTIONS
            if r.preset == PRESETS[game] and
            r.env == f'gymnax:{game}-MinAtar']
  return row if bootstrap else dataclasses.replace(
      row, overrides=(('bootstrap_time_limits', False),))


def _statistics(values: List[float]) -> Dict[str, Any]:
  return reproductions.summary(values) if values else None


def purejaxrl(game: str, num_seeds: int, runner: peer_runs.Peers,
              source: str) -> Dict[str, Any]:
  """PureJaxRL's seeds 0 … num_seeds-1 on `game`, in one program, from
  its checkout `source`."""
  settings = peers.purejaxrl_ppo_settings(
      f'{game}-MinAtar', NUM_STEPS, **_PUREJAXRL)
  figures = runner.peer('purejaxrl_ppo_seeds', 0, source=source,
                        num_seeds=num_seeds, settings=settings)
  returns = [s['training_return']['mean'] for s in figures['per_seed']
             if s['training_return']['mean'] is not None]
  return {**figures, 'settings': settings,
          'training_return': _statistics(returns)}


def _kept(path: str, measure: Callable[[], Dict[str, Any]]
          ) -> Dict[str, Any]:
  """The figures `measure` returns, kept in `path`: a second launch with
  the same root reads them rather than rerunning the peer's program (our
  arms resume from their checkpoints)."""
  if os.path.exists(path):
    with open(path) as f:
      return json.load(f)
  start = time.perf_counter()
  figures = measure()
  figures['seconds'] = time.perf_counter() - start
  os.makedirs(os.path.dirname(path), exist_ok=True)
  atomic_files.write_bytes(path, json.dumps(figures).encode())
  return figures


def side_by_side(game: str, num_seeds: int, root: str,
                 runner: peer_runs.Peers, source: str) -> Dict[str, Any]:
  """One game: PureJaxRL's program and our two arms."""
  arms = {'purejaxrl': _kept(
      os.path.join(root, 'purejaxrl', f'{game}-{num_seeds}-seeds.json'),
      lambda: purejaxrl(game, num_seeds, runner, source))}
  for name, bootstrap in (('ours_ending_at_time_limits', False),
                          ('ours_bootstrapping', True)):
    row = ours(game, bootstrap)
    start = time.perf_counter()
    arms[name] = reproductions.row(
        row, reproductions.run(row, num_seeds, root),
        reproductions.seed_directories(row, num_seeds, root))
    arms[name]['seconds'] = time.perf_counter() - start
  ours_arms = [ours(game, bootstrap) for bootstrap in (False, True)]
  return {'env': f'gymnax:{game}-MinAtar', 'num_steps': NUM_STEPS, **arms,
          'measured': fingerprints.measured(
              [reproductions.config(a) for a in ours_arms],
              [dict(a.overrides) for a in ours_arms])}


FLAG_GROUPS = {
    'What to run': ('games', 'seeds'),
    'The peer': ('peer_python', 'purejaxrl_source'),
    'Output': ('output', 'workdir'),
}


def _define_flags() -> None:
  learning.define_run_flags('Seeds per side (0..N-1).')
  flags.DEFINE_list('games', list(GAMES), 'MinAtar games, of: '
                    + ', '.join(GAMES) + '.')
  flags.DEFINE_string('peer_python', peer_runs.DEFAULT_PEER_PYTHON,
                      'The peers\' Python (scripts/setup_peer_venv.sh).')
  flags.DEFINE_string('purejaxrl_source', None,
                      'A checkout of luchris429/purejaxrl.')


def main(argv):
  del argv
  library_logs.quiet()
  compilation_cache.enable('')  # Cold compiles, as `benchmarks.suites`.
  f = flags.FLAGS
  unknown = sorted(set(f.games) - set(GAMES))
  if unknown:
    raise SystemExit(f'--games: unknown {unknown}; valid: '
                     f'{", ".join(GAMES)}.')
  try:
    peers.check_setup(f.peer_python, f.purejaxrl_source,
                      ('peers_breakout_minatar',))
  except peers.PeerSetupError as e:
    raise SystemExit(str(e)) from e
  try:
    kept = learning.rows_kept(f.output, f.seeds)
  except ValueError as e:
    raise SystemExit(str(e)) from e
  root = f.workdir or tempfile.mkdtemp(prefix='side-by-side-')
  runner = peer_runs.Peers(f.peer_python, f.purejaxrl_source)
  rows = []
  for game in f.games:
    rows.append(side_by_side(game, f.seeds, root, runner, f.purejaxrl_source))
    # After every game, so a failure keeps what was measured.
    learning.write_output(f.seeds, learning.merged(kept, rows, _game),
                          f.output)


def _game(row: Dict[str, Any]) -> str:
  return row['env']


if __name__ == '__main__':
  _define_flags()
  help_text.run(main, FLAG_GROUPS, __doc__)
