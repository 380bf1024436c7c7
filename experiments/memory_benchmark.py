r"""Memory: a recurrent PPO against a feed-forward one; prints JSON.

  python -m experiments.memory_benchmark --seeds=3 \
      --output=benchmarks/memory_chain_learning.json

gymnax's `MemoryChain-bsuite` shows a context (which of two actions pays)
in the first observation only, then `memory_length` steps of nothing, then
asks: +1 for the right action, -1 for the wrong one, so guessing scores 0
on average. For each memory length of `MEMORY_LENGTHS`, the preset
`ppo_memory_chain` (an LSTM actor-critic) and the same PPO with the
feed-forward `mlp_actor_critic` train side by side on the same seeds and
budget, each arm's seeds in one compiled program
(`experiments/comparison/run_groups.py`). The table is in
docs/benchmarks/learning.md.
"""

import json
import os
import tempfile
import time
from typing import Any, Dict, List

from absl import flags
import numpy as np

from agents import registry as agent_registry
from experiments import learning_benchmark
from experiments.cli import help_text
from experiments.presets import registry as preset_registry
from experiments.setup import config as config_lib
from experiments.setup import library_logs

ENV = 'gymnax:MemoryChain-bsuite'
PRESET = 'ppo_memory_chain'
MEMORY_LENGTHS = (5, 10, 20, 30)
# Each arm: the network PPO trains with (the rest is the preset's).
ARMS = {'lstm': 'lstm_actor_critic', 'feed_forward': 'mlp_actor_critic'}
EVAL_EPISODES = 100


def config(network: str, memory_length: int) -> config_lib.ExperimentConfig:
  """Seed 0's config: the preset, with `network` and `memory_length`."""
  preset = preset_registry.get(PRESET)
  return config_lib.ExperimentConfig(
      agent=preset.agent, env=ENV, seed=0,
      env_kwargs={'memory_length': memory_length},
      agent_config=agent_registry.make_config(preset.agent, **preset.config),
      preset=preset.name, network=network, num_steps=preset.num_steps,
      eval_episodes=EVAL_EPISODES, eval_every_episodes=0,
      export_tflite=False)


def run_arm(network: str, memory_length: int, num_seeds: int,
            root: str) -> List[Dict[str, Any]]:
  """Seeds 0 … num_seeds-1 of one arm, one result per seed."""
  return learning_benchmark.run_seeds(config(network, memory_length),
                                      num_seeds, root)


def _arm_row(results: List[Dict[str, Any]]) -> Dict[str, Any]:
  returns = [r['eval_mean_return'] for r in results
             if r.get('status') != 'diverged']
  return {
      'median_return': float(np.median(returns)) if returns else None,
      'seeds_solved': sum(r >= 0.9 for r in returns),
      **learning_benchmark.per_seed(results),
  }


FLAG_GROUPS = {
    'What to run': ('memory_lengths', 'seeds'),
    'Output': ('output', 'workdir'),
}


def _define_flags() -> None:
  flags.DEFINE_integer('seeds', 3, 'Seeds per arm (0..N-1).', lower_bound=1)
  flags.DEFINE_list('memory_lengths', [str(n) for n in MEMORY_LENGTHS],
                    'MemoryChain memory lengths to run.')
  flags.DEFINE_string('output', None, 'Also write the JSON here.')
  flags.DEFINE_string('workdir', None, 'Root of the runs; default a temp '
                      'dir.')


def main(argv):
  del argv
  library_logs.quiet()
  root = flags.FLAGS.workdir or tempfile.mkdtemp(prefix='memory-')
  preset = preset_registry.get(PRESET)
  rows = []
  for text in flags.FLAGS.memory_lengths:
    length = int(text)
    start = time.perf_counter()
    arms = {arm: _arm_row(run_arm(network, length, flags.FLAGS.seeds,
                                  os.path.join(root, f'{arm}_{length}')))
            for arm, network in ARMS.items()}
    rows.append({'env': ENV, 'memory_length': length, 'preset': PRESET,
                 'networks': dict(ARMS), 'overrides': dict(preset.config),
                 'budget_steps': preset.num_steps, 'arms': arms,
                 'seconds': time.perf_counter() - start})
    print(json.dumps(rows[-1]), flush=True)
  learning_benchmark.write_output(flags.FLAGS.seeds, rows, flags.FLAGS.output)


if __name__ == '__main__':
  _define_flags()
  help_text.run(main, FLAG_GROUPS, __doc__)
