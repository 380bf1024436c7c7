"""Times a peer's training program; run by `benchmarks.peers`.

Runs under the peers' own environment (`scripts/setup_peer_venv.sh`,
`.venv-peers`), never the project's: it imports PureJaxRL, purejaxql,
rejax, SBX, Navix, Jumanji's training package, Craftax_Baselines,
XLand-MiniGrid's training scripts, POPGym Arcade's baselines or pgx's
AlphaZero example, never this
project. Prints one JSON line:

  python benchmarks/peer_programs.py purejaxql_pqn_minatar --source=DIR --settings=JSON
  python benchmarks/peer_programs.py purejaxql_pqn_rnn --source=DIR --settings=JSON
  python benchmarks/peer_programs.py purejaxrl_ppo --source=DIR --settings=JSON
  python benchmarks/peer_programs.py purejaxrl_ppo_seeds --source=DIR --settings=JSON --num_seeds=5
  python benchmarks/peer_programs.py purejaxrl_ppo_rnn --source=DIR --settings=JSON
  python benchmarks/peer_programs.py purejaxrl_script --source=DIR
  python benchmarks/peer_programs.py rejax --algorithm=ppo --settings=JSON [--num_seeds=16]
  python benchmarks/peer_programs.py sbx --algorithm=ppo --settings=JSON
  python benchmarks/peer_programs.py navix_ppo --settings=JSON
  python benchmarks/peer_programs.py jumanji_a2c --settings=JSON
  python benchmarks/peer_programs.py craftax_baselines_ppo --source=DIR --settings=JSON
  python benchmarks/peer_programs.py xminigrid_ppo --source=DIR --settings=JSON
  python benchmarks/peer_programs.py popgym_arcade_ppo --settings=JSON
  python benchmarks/peer_programs.py pgx_alphazero --source=DIR --settings=JSON --iterations=K

`purejaxrl_ppo`, `purejaxrl_ppo_rnn`, `purejaxql_pqn_minatar` (purejaxql's
`pqn_minatar.py`), `purejaxql_pqn_rnn` (its `pqn_rnn_gymnax.py`) and
`rejax` compile the program for one seed, then run it
once: compile and training seconds apart, as our suites report them.
`purejaxrl_ppo_seeds` runs seeds vmapped in one program for their learning
results. `pgx_alphazero` runs the iterations of pgx's
`examples/alphazero/train.py` (self-play, targets, training minibatches)
with its network replaced by our MLP actor-critic: two to compile, then
`--iterations` timed (`benchmarks/pgx_alphazero_program.py`).
`purejaxrl_script` runs PureJaxRL's `ppo.py` as its author ships it (its
`__main__`, printing muted), for the whole script's peak memory; the caller
times the process.
"""

import argparse
import io
import contextlib
import importlib.util
from importlib import metadata
import json
import os
import resource
import runpy
import sys
import time
from typing import Any

# Run as a script, this file puts its own folder first on the path: our
# harness modules there (`tables`, `memory`, ...) must not shadow the
# peers' packages of the same names (PyTables is `tables`).
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or '.') != _HERE]


# purejaxql's programs, by the name this file runs them under.
PUREJAXQL_MODULES = {'purejaxql_pqn_minatar': 'pqn_minatar',
                     'purejaxql_pqn_rnn': 'pqn_rnn_gymnax'}


def _sibling(name: str) -> Any:
  """The module `name` of this folder, loaded by its path (the folder is
  off `sys.path`, as said above)."""
  spec = importlib.util.spec_from_file_location(
      name, os.path.join(_HERE, f'{name}.py'))
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


def _peak_memory_mib() -> float:
  return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _timed(train, rng):
  """Compile seconds, training seconds and the output of `train(rng)`."""
  import jax  # pylint: disable=g-import-not-at-top
  start = time.perf_counter()
  compiled = jax.jit(train).lower(rng).compile()
  compile_seconds = time.perf_counter() - start
  start = time.perf_counter()
  out = jax.block_until_ready(compiled(rng))
  return compile_seconds, time.perf_counter() - start, out


def purejaxrl_ppo(source: str, settings: dict, seed: int) -> dict:
  """PureJaxRL's `ppo.make_train` with `settings` (its config keys)."""
  sys.path.insert(0, os.path.join(source, 'purejaxrl'))
  import ppo  # pylint: disable=g-import-not-at-top
  return _purejaxrl(ppo.make_train, 'metrics', settings, seed)


def _purejaxrl(make_train, metrics_key: str, settings: dict,
               seed: int) -> dict:
  """Times a PureJaxRL `make_train(settings)` whose output holds its
  episode statistics under `metrics_key`."""
  import jax  # pylint: disable=g-import-not-at-top
  config = dict(settings, DEBUG=False)
  compile_seconds, seconds, out = _timed(make_train(config),
                                         jax.random.PRNGKey(seed))
  info = out[metrics_key]
  finished = info['returned_episode']
  # Mean return of the episodes finished in the last update.
  last = jax.device_get((info['returned_episode_returns'][-1] *
                         finished[-1]).sum() / max(finished[-1].sum(), 1))
  steps = int(config['NUM_UPDATES'] * config['NUM_STEPS'] *
              config['NUM_ENVS'])
  return {'env_steps': steps, 'compile_seconds': compile_seconds,
          'train_seconds': seconds, 'steps_per_second': steps / seconds,
          'last_update_return': float(last),
          'training_return': _last_episodes_return(
              jax.device_get(info['returned_episode_returns']),
              jax.device_get(finished)),
          'peak_memory_mib': _peak_memory_mib()}


def purejaxrl_ppo_seeds(source: str, settings: dict, seed: int,
                        num_seeds: int) -> dict:
  """PureJaxRL's `ppo.make_train` for seeds `seed` … `seed + num_seeds - 1`
  vmapped in one program, as its README runs seeds: each seed's return of
  its last training episodes (at least 100, whole updates)."""
  import jax  # pylint: disable=g-import-not-at-top
  import jax.numpy as jnp  # pylint: disable=g-import-not-at-top
  sys.path.insert(0, os.path.join(source, 'purejaxrl'))
  import ppo  # pylint: disable=g-import-not-at-top
  config = dict(settings, DEBUG=False)
  keys = jnp.stack([jax.random.PRNGKey(seed + i) for i in range(num_seeds)])
  compile_seconds, seconds, out = _timed(
      jax.vmap(ppo.make_train(config)), keys)
  returns = jax.device_get(out['metrics']['returned_episode_returns'])
  finished = jax.device_get(out['metrics']['returned_episode'])
  steps = int(config['NUM_UPDATES'] * config['NUM_STEPS'] *
              config['NUM_ENVS'])
  return {'env_steps': steps, 'num_seeds': num_seeds,
          'compile_seconds': compile_seconds, 'train_seconds': seconds,
          'per_seed': [
              {'seed': seed + i,
               'training_return': _last_episodes_return(returns[i],
                                                        finished[i])}
              for i in range(num_seeds)],
          'peak_memory_mib': _peak_memory_mib()}


def _last_episodes_return(returns, finished, episodes: int = 100) -> dict:
  """The mean return of the last whole updates that finished at least
  `episodes` episodes (`returns`, `finished`: `[updates, ...]`), as our
  reproductions count the last log rows: `{'mean', 'episodes'}`."""
  total, weighted = 0, 0.0
  for update in range(len(finished) - 1, -1, -1):
    done = finished[update].astype(bool)
    total += int(done.sum())
    weighted += float(returns[update][done].sum())
    if total >= episodes:
      break
  return {'mean': weighted / total if total else None, 'episodes': total}


def _scanned_gru(ppo_rnn):
  """`ppo_rnn.ScannedRNN` in today's flax API: `ppo_rnn.py` calls
  `nn.GRUCell()` without its `features` and the static
  `GRUCell.initialize_carry(key, batch, size)`, both gone from flax. The
  same arithmetic: a 128-unit GRU cell, reset to zeros where `resets`."""
  import functools  # pylint: disable=g-import-not-at-top
  import flax.linen as nn  # pylint: disable=g-import-not-at-top
  import jax.numpy as jnp  # pylint: disable=g-import-not-at-top

  class ScannedRNN(nn.Module):

    @functools.partial(nn.scan, variable_broadcast='params', in_axes=0,
                       out_axes=0, split_rngs={'params': False})
    @nn.compact
    def __call__(self, carry, x):
      ins, resets = x
      carry = jnp.where(resets[:, None],
                        self.initialize_carry(ins.shape[0], ins.shape[1]),
                        carry)
      return nn.GRUCell(features=ins.shape[1])(carry, ins)

    @staticmethod
    def initialize_carry(batch_size, hidden_size):
      return jnp.zeros((batch_size, hidden_size))

  ppo_rnn.ScannedRNN = ScannedRNN


def purejaxrl_ppo_rnn(source: str, settings: dict, seed: int) -> dict:
  """PureJaxRL's `ppo_rnn.make_train` (its GRU PPO) with `settings`, its
  GRU ported to today's flax (`_scanned_gru`)."""
  sys.path.insert(0, os.path.join(source, 'purejaxrl'))
  import ppo_rnn  # pylint: disable=g-import-not-at-top
  _scanned_gru(ppo_rnn)
  return _purejaxrl(ppo_rnn.make_train, 'metric', settings, seed)


def purejaxql_pqn(module: str, source: str, settings: dict,
                  seed: int) -> dict:
  """purejaxql's `<module>.make_train` (`pqn_minatar`, `pqn_rnn_gymnax`)
  with `settings` (its config keys), Weights & Biases off. With
  `TEST_INTERVAL` 1 its greedy test runs at the first and the last update:
  `final_test_return` is the last's mean over the episodes its
  `TEST_NUM_ENVS` environments finished."""
  import importlib  # pylint: disable=g-import-not-at-top
  import jax  # pylint: disable=g-import-not-at-top
  sys.path.insert(0, os.path.join(source, 'purejaxql'))
  program = importlib.import_module(module)
  config = dict(settings, WANDB_MODE='disabled')
  train = program.make_train(config)  # Sets NUM_UPDATES in `config`.
  compile_seconds, seconds, out = _timed(train, jax.random.PRNGKey(seed))
  metrics = jax.device_get(out['metrics'])
  steps = int(config['NUM_UPDATES'] * config['NUM_STEPS'] *
              config['NUM_ENVS'])
  return {'env_steps': steps, 'compile_seconds': compile_seconds,
          'train_seconds': seconds, 'steps_per_second': steps / seconds,
          'final_test_return': float(
              metrics['test/returned_episode_returns'][-1]),
          'last_update_return': float(metrics['returned_episode_returns'][-1]),
          'peak_memory_mib': _peak_memory_mib()}


def purejaxrl_script(source: str) -> dict:
  """PureJaxRL's `ppo.py` as shipped (its `__main__`), output muted."""
  directory = os.path.join(source, 'purejaxrl')
  sys.path.insert(0, directory)
  with contextlib.redirect_stdout(io.StringIO()):
    runpy.run_path(os.path.join(directory, 'ppo.py'), run_name='__main__')
  return {'peak_memory_mib': _peak_memory_mib()}


def rejax(algorithm: str, settings: dict, seed: int,
          num_seeds: int = 1) -> dict:
  """`rejax.get_algo(algorithm).create(**settings)`, its `train`; with
  `num_seeds` > 1 `jax.vmap(algo.train)` over that many keys split from
  `seed`'s, as rejax's README trains many seeds at once (the figures of
  all of them: steps and speed summed, the mean final return).

  The timed program trains without rejax's evaluations (its
  `eval_callback` made a no-op), as our runs are timed without theirs;
  rejax's own evaluation of the trained state then gives the final
  return, untimed."""
  import jax  # pylint: disable=g-import-not-at-top
  import jax.numpy as jnp  # pylint: disable=g-import-not-at-top
  import rejax as rejax_lib  # pylint: disable=g-import-not-at-top
  algo = rejax_lib.get_algo(algorithm).create(**settings)
  untimed = algo.replace(eval_callback=lambda a, ts, rng: jnp.zeros(()))

  def evaluate(ts):  # rejax's own: (lengths, returns) of 128 episodes.
    return algo.eval_callback(algo, ts, ts.rng)

  key = jax.random.PRNGKey(seed)
  if num_seeds > 1:
    train, key = jax.vmap(untimed.train), jax.random.split(key, num_seeds)
    evaluate = jax.vmap(evaluate)
  else:
    train = untimed.train
  compile_seconds, seconds, (state, _) = _timed(train, key)
  _, returns = jax.device_get(jax.jit(evaluate)(state))
  steps = int(settings['total_timesteps']) * num_seeds
  return {'env_steps': steps, 'num_seeds': num_seeds,
          'compile_seconds': compile_seconds,
          'train_seconds': seconds, 'steps_per_second': steps / seconds,
          'final_eval_return': float(returns.mean()),
          'peak_memory_mib': _peak_memory_mib()}


def sbx(algorithm: str, settings: dict, seed: int) -> dict:
  """SBX's `algorithm` ('ppo') with SB3's defaults on `settings['num_envs']`
  Gymnasium environments, learning `settings['total_timesteps']` steps."""
  import sbx as sbx_lib  # pylint: disable=g-import-not-at-top
  from stable_baselines3.common import env_util  # pylint: disable=g-import-not-at-top
  start = time.perf_counter()
  env = env_util.make_vec_env(settings['env'], n_envs=settings['num_envs'],
                              seed=seed)
  model = getattr(sbx_lib, algorithm.upper())('MlpPolicy', env, seed=seed)
  model.learn(total_timesteps=settings['total_timesteps'])
  seconds = time.perf_counter() - start
  steps = int(model.num_timesteps)
  return {'env_steps': steps, 'seconds': seconds,
          'steps_per_second': steps / seconds,
          'peak_memory_mib': _peak_memory_mib()}


def main() -> None:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('program', choices=('purejaxrl_ppo',
                                          'purejaxrl_ppo_seeds',
                                          'purejaxrl_ppo_rnn',
                                          'purejaxrl_script',
                                          'purejaxql_pqn_minatar',
                                          'purejaxql_pqn_rnn', 'rejax',
                                          'sbx', 'pgx_alphazero',
                                          'navix_ppo', 'jumanji_a2c',
                                          'craftax_baselines_ppo',
                                          'xminigrid_ppo',
                                          'popgym_arcade_ppo'))
  parser.add_argument('--source', help='a checkout of luchris429/purejaxrl '
                      '(mttga/purejaxql for purejaxql_pqn_*, '
                      'sotetsuk/pgx for pgx_alphazero, '
                      'MichaelTMatthews/Craftax_Baselines for '
                      'craftax_baselines_ppo, dunnolab/xland-minigrid for '
                      'xminigrid_ppo)')
  parser.add_argument('--algorithm', default='ppo')
  parser.add_argument('--settings', default='{}', help='JSON object')
  parser.add_argument('--seed', type=int, default=0)
  parser.add_argument('--num_seeds', type=int, default=1,
                      help='purejaxrl_ppo_seeds, rejax: seeds in one '
                      'program')
  parser.add_argument('--iterations', type=int, default=1,
                      help='pgx_alphazero: iterations timed after the '
                      'two that compile')
  parser.add_argument('--hidden_sizes', default='256,256',
                      help='pgx_alphazero: the MLP\'s widths')
  args = parser.parse_args()
  settings = json.loads(args.settings)
  if args.program == 'purejaxrl_ppo':
    figures = purejaxrl_ppo(args.source, settings, args.seed)
  elif args.program == 'purejaxrl_ppo_seeds':
    figures = purejaxrl_ppo_seeds(args.source, settings, args.seed,
                                  args.num_seeds)
  elif args.program == 'purejaxrl_ppo_rnn':
    figures = purejaxrl_ppo_rnn(args.source, settings, args.seed)
  elif args.program == 'purejaxrl_script':
    figures = purejaxrl_script(args.source)
  elif args.program in PUREJAXQL_MODULES:
    figures = purejaxql_pqn(PUREJAXQL_MODULES[args.program], args.source,
                            settings, args.seed)
  elif args.program == 'sbx':
    figures = sbx(args.algorithm, settings, args.seed)
  elif args.program == 'navix_ppo':
    figures = _sibling('navix_ppo_program').navix_ppo(
        settings, args.seed, _timed, _last_episodes_return)
    figures['peak_memory_mib'] = _peak_memory_mib()
  elif args.program == 'jumanji_a2c':
    figures = _sibling('jumanji_a2c_program').jumanji_a2c(settings,
                                                          args.seed)
    figures['peak_memory_mib'] = _peak_memory_mib()
  elif args.program == 'craftax_baselines_ppo':
    figures = _sibling('craftax_baselines_program').craftax_baselines_ppo(
        args.source, settings, args.seed, _timed)
    figures['peak_memory_mib'] = _peak_memory_mib()
  elif args.program == 'xminigrid_ppo':
    figures = _sibling('xminigrid_ppo_program').xminigrid_ppo(
        args.source, settings, args.seed)
    figures['peak_memory_mib'] = _peak_memory_mib()
  elif args.program == 'popgym_arcade_ppo':
    figures = _sibling('popgym_arcade_ppo_program').popgym_arcade_ppo(
        settings, args.seed, _last_episodes_return)
    figures['peak_memory_mib'] = _peak_memory_mib()
  elif args.program == 'pgx_alphazero':
    figures = _sibling('pgx_alphazero_program').pgx_alphazero(
        args.source, settings, args.seed, args.iterations,
        [int(size) for size in args.hidden_sizes.split(',')])
  else:
    figures = rejax(args.algorithm, settings, args.seed, args.num_seeds)
  figures['versions'] = {}
  packages = ('jax', 'flax', 'gymnax', 'rejax', 'sbx-rl', 'navix',
              'craftax', 'jumanji', 'xminigrid', 'popgym-arcade', 'equinox')
  if args.program == 'pgx_alphazero':
    packages = ('jax', 'pgx', 'dm-haiku', 'mctx', 'optax')
  for package in packages:
    try:
      figures['versions'][package] = metadata.version(package)
    except metadata.PackageNotFoundError:
      pass
  print(json.dumps(figures))


if __name__ == '__main__':
  main()
