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
episode length, with the commit measured.
"""

import json
import time
from typing import Any, Dict, Sequence

from absl import app
from absl import flags
import jax
import jax.numpy as jnp
import numpy as np

from benchmarks import fingerprints
from environments import functional
from environments import registry as env_registry

_ENVS = flags.DEFINE_list('envs', [], 'Environment names (--env values).')
_EPISODES = flags.DEFINE_integer('episodes', 1000, 'Episodes each.')
_SEED = flags.DEFINE_integer('seed', 0, 'Seed of the episodes\' keys.')
_OUTPUT = flags.DEFINE_string('output', None, 'JSON file to write.')


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


def measure(names: Sequence[str], episodes: int,
            seed: int) -> Dict[str, Any]:
  """`play` on each environment (default settings), with the commit."""
  results = {}
  for name in names:
    start = time.time()
    results[name] = play(env_registry.make_functional(name), episodes, seed)
    results[name]['seconds'] = round(time.time() - start, 1)
    print(name, results[name], flush=True)
  return {'benchmark': 'random_play', 'commit': fingerprints.commit(),
          'seed': seed, 'results': results}


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f'Unexpected arguments: {argv[1:]}')
  if not _ENVS.value:
    raise app.UsageError('--envs: name at least one environment.')
  for name in _ENVS.value:
    try:
      env_registry.resolve(name).core()
    except ValueError as e:
      raise app.UsageError(f'--envs: {e}') from e
  record = measure(_ENVS.value, _EPISODES.value, _SEED.value)
  if _OUTPUT.value:
    with open(_OUTPUT.value, 'w', encoding='utf-8') as f:
      json.dump(record, f, indent=2)
      f.write('\n')


if __name__ == '__main__':
  app.run(main)
