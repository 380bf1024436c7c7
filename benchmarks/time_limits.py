r"""What bootstrapping through time limits changes; prints JSON.

  python -m benchmarks.time_limits --seeds=3 \
      --output=benchmarks/time_limit_bootstrap_learning.json

Each pair of `PAIRS` (games whose episodes end by a time limit: every
Pendulum episode, CartPole and Brax's pole balancing once they are
solved) trains with its default preset twice per seed: as the agents
learn by default, bootstrapping through time limits from the value of the
observation they cut off, and with `bootstrap_time_limits=False`, which
stops returns there as at terminations (as PureJaxRL and most single-file
scripts do). Both arms are otherwise the same runs (seeds, settings,
budget), trained side by side in one compiled program per arm
(`experiments/comparison/run_groups.py`); the table is in
docs/benchmarks/learning.md.
"""

import dataclasses
import json
import os
import time
from typing import Any, Dict, List

from absl import flags
import numpy as np

from benchmarks import fingerprints
from benchmarks import learning
from experiments.cli import help_text
from experiments.setup import config as config_lib

PAIRS = (
    learning.find('gymnax:Pendulum-v1', 'ppo'),
    learning.find('gymnax:Pendulum-v1', 'sac'),
    learning.find('gymnax:CartPole-v1', 'dqn'),
    learning.Setting('gymnax:CartPole-v1', 'ppo', eval_episodes=20,
                               min_return=475.0),
    learning.find('brax:inverted_pendulum', 'ppo'),
)
# Each arm: the value of every agent's `bootstrap_time_limits`.
ARMS = {'bootstrap': True, 'as_terminations': False}


def arm_config(setting: learning.Setting,
               bootstrap: bool) -> config_lib.ExperimentConfig:
  """Seed 0's config of `setting`'s preset with
  `bootstrap_time_limits=bootstrap`."""
  config = learning.config(setting)
  return dataclasses.replace(
      config, export_tflite=False, agent_config=dataclasses.replace(
          config.agent_config, bootstrap_time_limits=bootstrap))


def run_arm(setting: learning.Setting, bootstrap: bool,
            num_seeds: int, root: str) -> List[Dict[str, Any]]:
  """Seeds 0 … num_seeds-1 of `arm_config`, one result per seed."""
  return learning.run_seeds(arm_config(setting, bootstrap), num_seeds, root)


def _arm_row(setting: learning.Setting,
             results: List[Dict[str, Any]]) -> Dict[str, Any]:
  scored = [r for r in results if r.get('status') != 'diverged']
  returns = [r['eval_mean_return'] for r in scored]
  return {
      'median_return': float(np.median(returns)) if returns else None,
      'mean_return': float(np.mean(returns)) if returns else None,
      'target_met_by_median': bool(returns) and setting.met(
          {'eval_mean_return': float(np.median(returns))}),
      **learning.per_seed(results),
  }


FLAG_GROUPS = {
    'What to run': ('only', 'seeds'),
    'Output': ('output', 'workdir'),
}


def _define_flags() -> None:
  learning.define_run_flags('Seeds per pair and arm (0..N-1).',
                            'Run only these pairs, e.g. '
                            'gymnax:Pendulum-v1/ppo.')


def main(argv):
  del argv
  root, only = learning.run_root('time-limits')
  rows, configs, overrides = [], [], []
  for setting in PAIRS:
    if only and f'{setting.env}/{setting.agent}' not in only:
      continue
    for bootstrap in ARMS.values():
      configs.append(arm_config(setting, bootstrap))
      overrides.append({'bootstrap_time_limits': bootstrap})
    start = time.perf_counter()
    arms = {arm: _arm_row(setting, run_arm(
        setting, bootstrap, flags.FLAGS.seeds, os.path.join(root, arm)))
            for arm, bootstrap in ARMS.items()}
    rows.append({
        'env': setting.env, 'agent': setting.agent,
        'preset': setting.preset.name,
        'budget_steps': setting.preset.num_steps,
        'target': setting.target, 'arms': arms,
        'seconds': time.perf_counter() - start})
    print(json.dumps(rows[-1]), flush=True)
  learning.write_output(flags.FLAGS.seeds, rows, flags.FLAGS.output,
                        fingerprints.measured(configs, overrides))


if __name__ == '__main__':
  _define_flags()
  help_text.run(main, FLAG_GROUPS, __doc__)
