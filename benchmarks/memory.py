r"""Memory: a recurrent PPO against a feed-forward one; prints JSON.

  python -m benchmarks.memory --seeds=3 \
      --output=benchmarks/memory_chain_learning.json
  python -m benchmarks.memory --suite=bsuite --memory_lengths=10 \
      --seeds=3 --output=benchmarks/bsuite_memory_len_learning.json

gymnax's `MemoryChain-bsuite` shows a context (which of two actions pays)
in the first observation only, then `memory_length` steps of nothing, then
asks: +1 for the right action, -1 for the wrong one, so guessing scores 0
on average. For each memory length of `MEMORY_LENGTHS`, the preset
`ppo_memory_chain` (an LSTM actor-critic) and the same PPO with the
feed-forward `mlp_actor_critic` train side by side on the same seeds and
budget, each arm's seeds in one compiled program
(`experiments/comparison/run_groups.py`). `--suite=bsuite` runs bsuite's
own `memory_len` (the game gymnax ports, from the `bsuite` package) in the
Python loop, 4 environments per seed, with the same preset. The tables
are in docs/benchmarks/learning.md.
"""

import json
import os
import time
from typing import Any, Dict, List

from absl import app
from absl import flags
from bsuite.experiments.memory_len import sweep as memory_len_sweep
import numpy as np

from agents import registry as agent_registry
from benchmarks import fingerprints
from benchmarks import learning
from experiments.cli import help_text
from experiments.presets import registry as preset_registry
from experiments.setup import config as config_lib

ENV = 'gymnax:MemoryChain-bsuite'
# Per suite: how a memory length names the environment and its settings,
# and the loop that runs it.
SUITES = ('gymnax', 'bsuite')
BSUITE_ENVS = 4
PRESET = 'ppo_memory_chain'
MEMORY_LENGTHS = (5, 10, 20, 30)
# Each arm: the network PPO trains with (the rest is the preset's).
ARMS = {'lstm': 'lstm_actor_critic', 'feed_forward': 'mlp_actor_critic'}
EVAL_EPISODES = 100


def bsuite_id(memory_length: int) -> str:
  """bsuite's `memory_len/<i>` whose setting has `memory_length`.

  Raises:
    ValueError: no setting of bsuite's sweep has that length (the valid
      ones listed).
  """
  lengths = [s['memory_length'] for s in memory_len_sweep.SETTINGS]
  if memory_length not in lengths:
    raise ValueError(f'bsuite memory_len has no setting with memory length '
                     f'{memory_length}; its lengths: '
                     f'{", ".join(map(str, lengths))}.')
  return f'bsuite:memory_len/{lengths.index(memory_length)}'


def config(network: str, memory_length: int,
           suite: str = 'gymnax') -> config_lib.ExperimentConfig:
  """Seed 0's config: the preset, with `network` and `memory_length`, on
  `suite`'s game (gymnax: the compiled loop; bsuite: the Python loop)."""
  preset = preset_registry.get(PRESET)
  if suite == 'gymnax':
    game = dict(env=ENV, env_kwargs={'memory_length': memory_length})
  else:
    game = dict(env=bsuite_id(memory_length), loop='python',
                num_envs=BSUITE_ENVS)
  return config_lib.ExperimentConfig(
      agent=preset.agent, seed=0, **game,
      agent_config=agent_registry.make_config(preset.agent, **preset.config),
      preset=preset.name, network=network, num_steps=preset.num_steps,
      eval_episodes=EVAL_EPISODES, eval_every_episodes=0,
      export_tflite=False)


def run_arm(network: str, memory_length: int, num_seeds: int,
            root: str, suite: str = 'gymnax') -> List[Dict[str, Any]]:
  """Seeds 0 … num_seeds-1 of one arm, one result per seed."""
  return learning.run_seeds(config(network, memory_length, suite),
                                      num_seeds, root)


def _arm_row(results: List[Dict[str, Any]]) -> Dict[str, Any]:
  returns = [r['eval_mean_return'] for r in results
             if r.get('status') != 'diverged']
  return {
      'median_return': float(np.median(returns)) if returns else None,
      'seeds_solved': sum(r >= 0.9 for r in returns),
      **learning.per_seed(results),
  }


FLAG_GROUPS = {
    'What to run': ('suite', 'memory_lengths', 'seeds'),
    'Output': ('output', 'workdir'),
}


def _define_flags() -> None:
  flags.DEFINE_enum('suite', 'gymnax', SUITES,
                    'gymnax: MemoryChain-bsuite in the compiled loop; '
                    'bsuite: bsuite\'s memory_len in the Python loop.')
  learning.define_run_flags('Seeds per arm (0..N-1).')
  flags.DEFINE_list('memory_lengths', [str(n) for n in MEMORY_LENGTHS],
                    'Memory lengths to run.')


def main(argv):
  del argv
  root, _ = learning.run_root('memory')
  preset = preset_registry.get(PRESET)
  suite = flags.FLAGS.suite
  try:
    lengths = [int(text) for text in flags.FLAGS.memory_lengths]
    configs = [config(network, length, suite) for length in lengths
               for network in ARMS.values()]
  except ValueError as e:
    raise app.UsageError(f'--memory_lengths: {e}') from e
  rows = []
  for length in lengths:
    start = time.perf_counter()
    arms = {arm: _arm_row(run_arm(network, length, flags.FLAGS.seeds,
                                  os.path.join(root, f'{arm}_{length}'),
                                  suite))
            for arm, network in ARMS.items()}
    rows.append({'env': configs[lengths.index(length) * len(ARMS)].env,
                 'loop': 'python' if suite == 'bsuite' else 'compiled',
                 'memory_length': length, 'preset': PRESET,
                 'networks': dict(ARMS), 'overrides': dict(preset.config),
                 'budget_steps': preset.num_steps, 'arms': arms,
                 'seconds': time.perf_counter() - start})
    print(json.dumps(rows[-1]), flush=True)
  learning.write_output(flags.FLAGS.seeds, rows, flags.FLAGS.output,
                        fingerprints.measured(configs))


if __name__ == '__main__':
  _define_flags()
  help_text.run(main, FLAG_GROUPS, __doc__)
