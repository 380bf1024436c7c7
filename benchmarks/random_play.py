r"""Uniformly random play on environments' cores: the weak reference of
their reference scores (`environments.reference_scores`).

  python -m benchmarks.random_play --episodes=1000 \
      --envs=navix:Navix-Empty-5x5-v0,jumanji:Snake-v1 \
      --output=benchmarks/suites_random_play.json

Each environment plays `--episodes` episodes of uniformly random actions
(legal ones only, where the core says which: `legal_actions`), from keys
split from `PRNGKey(--seed)`, as one jitted, vmapped `while_loop` (each
episode to its end or the core's `max_episode_steps`). Prints, and writes
as JSON, each environment's mean return, its standard error and the mean
episode length, with the commit and the code measured (each
environment's adapter). The suites' `REFERENCE_SCORES` take their random
play from benchmarks/suites_random_play.json (a test holds them equal).
"""

import inspect
import json
import os
import time
from typing import Any, Dict, List, Sequence

from absl import app
from absl import flags
import jax
import jax.numpy as jnp
import numpy as np

from benchmarks import fingerprints
from environments import functional
from environments import registry as env_registry
from environments import suites
from experiments.cli import help_text
from experiments.storage import atomic_files

# What --help shows (every flag in one group).
FLAG_GROUPS = {'Measurement': ('envs', 'episodes', 'seed'),
               'Output': ('output',)}


def _define_flags() -> None:
  # Defined only when run as a program: tests import this module.
  flags.DEFINE_list('envs', [], 'Environment names (--env values).')
  flags.DEFINE_integer('episodes', 1000, 'Episodes each.', lower_bound=2)
  flags.DEFINE_integer('seed', 0, 'Seed of the episodes\' keys.')
  flags.DEFINE_string('output', None, 'Also write the JSON here.')


def play(core: Any, episodes: int, seed: int) -> Dict[str, float]:
  """Mean return (and its standard error) and mean length of `episodes`
  episodes of uniformly random (legal) actions on `core`."""
  num_actions = core.action_spec().num_values
  legal_actions = getattr(core, 'legal_actions', None)
  limit = core.max_episode_steps

  def episode(key):
    reset_key, key = jax.random.split(key)
    state, timestep = core.reset(reset_key)

    def going(carry):
      steps, _, _, _, done, _ = carry
      return ~done & (steps < limit)

    def step(carry):
      steps, state, timestep, total, _, key = carry
      key, action_key = jax.random.split(key)
      logits = jnp.zeros(num_actions)
      if legal_actions is not None:
        logits = jnp.where(legal_actions(timestep.observation), 0., -jnp.inf)
      action = jax.random.categorical(action_key, logits).astype(jnp.int32)
      state, timestep = core.step(state, action)
      return (steps + 1, state, timestep, total + timestep.reward,
              timestep.step_type == functional.LAST, key)

    steps, _, _, total, _, _ = jax.lax.while_loop(
        going, step, (jnp.int32(0), state, timestep, jnp.float32(0.),
                      jnp.bool_(False), key))
    return total, steps

  keys = jax.random.split(jax.random.PRNGKey(seed), episodes)
  returns, lengths = jax.jit(jax.vmap(episode))(keys)
  returns = np.asarray(returns, np.float64)
  return {'mean_return': float(returns.mean()),
          'standard_error': float(returns.std(ddof=1) /
                                  np.sqrt(len(returns))),
          'mean_length': float(np.mean(lengths)),
          'episodes': episodes}


def _code(names: Sequence[str], cores: Sequence[Any]) -> List[str]:
  """The project files defining `cores`' classes, the adapters that made
  them (a suite's adapter may build a shared core class: Craftax's and
  POPGym Arcade's games are gymnax cores) and the core interface."""
  factories = [type(core) for core in cores] + [
      suites.SUITES[prefix].make_core for prefix, _ in map(suites.split, names)
      if prefix]
  paths = {os.path.relpath(inspect.getsourcefile(factory), fingerprints.ROOT)
           for factory in factories}
  return sorted(paths | {'environments/functional.py',
                         'benchmarks/random_play.py'})


def measure(names: Sequence[str], episodes: int,
            seed: int) -> Dict[str, Any]:
  """`play` on each environment (default settings), with what it measured."""
  results, cores = {}, []
  for name in names:
    start = time.perf_counter()
    cores.append(env_registry.make_functional(name))
    results[name] = play(cores[-1], episodes, seed)
    results[name]['seconds'] = round(time.perf_counter() - start, 1)
    print(name, results[name], flush=True)
  return {'random_play': results, 'episodes': episodes, 'seed': seed,
          'measured': {'commit': fingerprints.commit(),
                       'code': fingerprints.code_hashes(_code(names,
                                                              cores))}}


def main(argv: Sequence[str]) -> None:
  del argv
  f = flags.FLAGS
  if not f.envs:
    raise app.UsageError('--envs: name at least one environment (--env '
                         'values, e.g. navix:Navix-Empty-5x5-v0).')
  for name in f.envs:
    try:
      env_registry.check_name(name)
    except ValueError as e:
      raise app.UsageError(f'--envs: {e}') from e
  text = json.dumps(measure(f.envs, f.episodes, f.seed), indent=1)
  if f.output:
    atomic_files.write_bytes(f.output, (text + '\n').encode())


if __name__ == '__main__':
  _define_flags()
  help_text.run(main, FLAG_GROUPS, __doc__)
