r"""Our agents beside published results, in the published budgets; JSON.

  python -m experiments.reproductions --seeds=3 \
      --output=benchmarks/reproductions_learning.json
  python -m experiments.reproductions --seeds=3 --only=ppo/gymnax:Acrobot-v1

Each `Reproduction` trains its pair's default preset (the published
setting where one exists, `experiments/presets/library.py`) for the
published budget, its seeds side by side in one compiled program (the
comparison run groups `experiments.learning_benchmark` uses), scores each
seed by its greedy return over 100 episodes at the end, and reports the
mean and the interquartile mean (IQM) over seeds with rliable's 95%
stratified-bootstrap intervals (`experiments.comparison.statistics`)
beside the published figure and its source. The page:
docs/benchmarks/reproductions.md.
"""

import dataclasses
import json
import tempfile
import time
from typing import Any, Dict, List, Optional

from absl import flags

from experiments import learning_benchmark
from experiments.cli import help_text
from experiments.comparison import statistics
from experiments.setup import library_logs

_CLEANRL_PPO = ('CleanRL ppo.py, average episodic return over 3 seeds at '
                '500k steps (docs.cleanrl.dev/rl-algorithms/ppo)')
_GYMNAX_PPO = ('the gymnax README\'s PPO checkpoints (gymnax-blines), one '
               'return each, no spread given')
_CLEANRL_DQN = ('CleanRL dqn.py, average episodic return over 3 seeds at '
                '500k steps (docs.cleanrl.dev/rl-algorithms/dqn)')


@dataclasses.dataclass(frozen=True)
class Reproduction:
  """One published result and the run that reproduces it.

  Attributes:
    agent: the agent.
    env: the environment.
    num_steps: the published budget, in environment steps.
    published: the published score.
    published_spread: its ± (the source's spread over its seeds); None:
      the source gives none.
    source: who published it, how it was measured, and where.
  """
  agent: str
  env: str
  num_steps: int
  published: float
  published_spread: Optional[float]
  source: str

  @property
  def name(self) -> str:
    return f'{self.agent}/{self.env}'

  @property
  def setting(self) -> learning_benchmark.Setting:
    """The pair's default preset, scored over 100 greedy episodes."""
    return learning_benchmark.Setting(self.env, self.agent,
                                      eval_episodes=100)


REPRODUCTIONS = (
    Reproduction('ppo', 'gymnax:CartPole-v1', 500_000, 490.04, 6.12,
                 _CLEANRL_PPO),
    Reproduction('ppo', 'gymnax:Acrobot-v1', 500_000, -86.36, 1.32,
                 _CLEANRL_PPO),
    Reproduction('dqn', 'gymnax:CartPole-v1', 500_000, 488.69, 16.11,
                 _CLEANRL_DQN),
    Reproduction('dqn', 'gymnax:Acrobot-v1', 500_000, -91.54, 7.20,
                 _CLEANRL_DQN),
) + tuple(
    Reproduction('ppo', f'gymnax:{game}-MinAtar', 10_000_000, score, None,
                 _GYMNAX_PPO)
    for game, score in (('Breakout', 28.0), ('SpaceInvaders', 131.0),
                        ('Asterix', 15.0), ('Freeway', 58.0)))


def run(reproduction: Reproduction, num_seeds: int,
        root: str) -> List[Dict[str, Any]]:
  """Seeds 0 … num_seeds-1 of `reproduction`, one result per seed."""
  config = dataclasses.replace(
      learning_benchmark.config(reproduction.setting),
      num_steps=reproduction.num_steps, num_episodes=None)
  return learning_benchmark.run_seeds(config, num_seeds, root)


def row(reproduction: Reproduction,
        results: List[Dict[str, Any]]) -> Dict[str, Any]:
  """The JSON row of `reproduction` from its seeds' `results`."""
  seeds = learning_benchmark.per_seed(results)
  returns = [r['eval_mean_return'] for r in seeds['per_seed']]
  return {
      'agent': reproduction.agent, 'env': reproduction.env,
      'preset': reproduction.setting.preset.name,
      'num_steps': reproduction.num_steps,
      'published': reproduction.published,
      'published_spread': reproduction.published_spread,
      'source': reproduction.source,
      'greedy_return': (statistics.over_seeds(returns, ('mean', 'iqm'))
                        if returns else None),
      **seeds,
  }


FLAG_GROUPS = {
    'What to run': ('only', 'seeds'),
    'Output': ('output', 'workdir'),
}


def _define_flags() -> None:
  learning_benchmark.define_run_flags('Seeds per reproduction (0..N-1).')
  flags.DEFINE_list('only', None, 'Run only these, e.g. '
                    'ppo/gymnax:CartPole-v1 (agent/env).')


def main(argv):
  del argv
  library_logs.quiet()
  root = flags.FLAGS.workdir or tempfile.mkdtemp(prefix='reproductions-')
  only = set(flags.FLAGS.only or ())
  known = {r.name for r in REPRODUCTIONS}
  if only - known:
    raise SystemExit(f'--only: unknown {sorted(only - known)}; valid: '
                     f'{", ".join(sorted(known))}.')
  rows = []
  for reproduction in REPRODUCTIONS:
    if only and reproduction.name not in only:
      continue
    start = time.perf_counter()
    result = row(reproduction, run(reproduction, flags.FLAGS.seeds, root))
    result['seconds'] = time.perf_counter() - start
    rows.append(result)
    print(json.dumps({k: result[k] for k in ('agent', 'env', 'published',
                                              'greedy_return')}),
          flush=True)
  learning_benchmark.write_output(flags.FLAGS.seeds, rows,
                                  flags.FLAGS.output)


if __name__ == '__main__':
  _define_flags()
  help_text.run(main, FLAG_GROUPS, __doc__)
