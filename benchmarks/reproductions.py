r"""Our agents beside published results; JSON.

  python -m benchmarks.reproductions --seeds=5 \
      --output=benchmarks/reproductions_learning.json
  python -m benchmarks.reproductions --seeds=5 \
      --only=dqn_cleanrl_acrobot/gymnax:Acrobot-v1 \
      --output=benchmarks/reproductions_learning.json

Each `Reproduction` trains one preset for the published budget, its seeds
side by side in one compiled program (the comparison run groups of
`benchmarks.learning`), and reports two scores per seed: the
final evaluation under the run's own protocol (recorded from each
`result.json`: greedy, sampled or ε-greedy, over how many episodes) and
the mean return of the last training episodes (at least 100, whole log
rows), which is what CleanRL publishes. A row is **reproduced** only in the
source's own setting (budget, hyperparameters, network, protocol);
anything else, a tuned preset of ours included, is **compared with** the
figure, and says what differs. Statistics: the mean and interquartile mean
(IQM) with rliable's 95% stratified-bootstrap intervals when a row has at
least `MIN_SEEDS_FOR_INTERVALS` seeds, else the mean and the seeds' range.
Each row records what it measured; a launch with `--only` rewrites those
rows of `--output` and keeps the others. The page:
docs/benchmarks/reproductions.md.
"""

import dataclasses
import json
import os
import time
from typing import Any, Dict, List, Optional, Tuple

from absl import flags
import pandas as pd

from benchmarks import fingerprints
from benchmarks import learning
from experiments.cli import help_text
from experiments.comparison import run_groups
from experiments.comparison import statistics

# Below this many seeds an IQM trims nothing and a bootstrap interval is
# the seeds' range: the mean and that range are shown instead.
MIN_SEEDS_FOR_INTERVALS = 5
# CleanRL's figure: the mean return of a seed's last training episodes.
LAST_TRAINING_EPISODES = 100
REPRODUCED, COMPARED = 'reproduced', 'compared'
# Log rows of about this many environment steps (at least one update): the
# training return's window is the last rows holding >= 100 episodes, so
# short rows keep it close to 100.
ROW_STEPS = 2048

# What a source's figure measures, and so which of ours stands beside it.
TRAINING, FINAL = 'training', 'final'

_CLEANRL = ('CleanRL {script}, docs.cleanrl.dev/rl-algorithms/{page} '
            '({table}, 500k steps)')
_CLEANRL_PROTOCOL = ('mean ± std over 3 seeds of the return of the '
                     'training episodes ({policy}), Gymnasium\'s classic '
                     'control')
_ZOO = ('RL Baselines3 Zoo benchmark.md (22e3ff2), hyperparams/{file}.yml')
_ZOO_PROTOCOL = ('one trained agent (one seed): mean ± std over the '
                 '{episodes} episodes of 150k steps of the deterministic '
                 'policy after training, Gymnasium\'s environments')
_GYMNAX_PPO = ('gymnax README, the PPO checkpoints of gymnax-blines '
               '(its own per-game configurations)')
_GYMNAX_PROTOCOL = 'one return per game; episodes, seeds and budget not given'
_BLINES_PROTOCOL = ('the README\'s return of one checkpoint (one seed) '
                    'trained 10M steps in blines\' Asterix configuration, '
                    'whose evaluation samples the policy over 164 '
                    'episodes; no spread given')


@dataclasses.dataclass(frozen=True)
class Reproduction:
  """One published result and the run of ours beside it.

  Attributes:
    agent: the agent.
    env: the environment.
    preset: the preset of ours that runs (`experiments/presets`).
    num_steps: the budget, in environment steps.
    published: the published score.
    published_spread: its ± as the source gives it (over seeds, or over
      one agent's evaluation episodes: `published_protocol` says); None:
      the source gives none.
    source: who published it, and where.
    published_protocol: how the source measured it.
    measured_as: what the figure is: `TRAINING` (the return of the last
      training episodes) or `FINAL` (an evaluation after training); ours
      measured the same way is the row's headline.
    differences: '' when the preset is the source's own setting (the row is
      reproduced); else what differs (the row is only compared with it).
    eval_episodes: episodes of our final evaluation per seed.
    overrides: agent-config values set over the preset's, as (key, value)
      pairs (an arm of a side-by-side comparison; its runs go apart).
  """
  agent: str
  env: str
  preset: str
  num_steps: int
  published: float
  published_spread: Optional[float]
  source: str
  published_protocol: str
  measured_as: str = TRAINING
  differences: str = ''
  eval_episodes: int = 100
  overrides: Tuple[Tuple[str, Any], ...] = ()

  @property
  def name(self) -> str:
    return f'{self.preset}/{self.env}'

  @property
  def kind(self) -> str:
    return COMPARED if self.differences else REPRODUCED

  @property
  def setting(self) -> learning.Setting:
    """The preset, scored over `eval_episodes` episodes at the end."""
    return learning.Setting(self.env, self.agent,
                                      eval_episodes=self.eval_episodes,
                                      preset_name=self.preset)


def _cleanrl(agent: str, env: str, preset: str, published: float,
             spread: float, differences: str = '') -> Reproduction:
  script, page, table, policy = {
      'ppo': ('ppo.py', 'ppo', 'classic control table',
              'the stochastic policy'),
      'dqn': ('dqn.py', 'dqn', 'classic control table', 'ε-greedy'),
      'c51': ('c51.py', 'c51', 'c51.py table', 'ε-greedy'),
      'pqn': ('pqn.py', 'pqn', 'classic control table', 'ε-greedy'),
  }[agent]
  return Reproduction(
      agent, env, preset, 500_000, published, spread,
      _CLEANRL.format(script=script, page=page, table=table),
      _CLEANRL_PROTOCOL.format(policy=policy), TRAINING, differences)


def _zoo(agent: str, game: str, env: str, num_steps: int, published: float,
         spread: float, episodes: int, differences: str = '') -> Reproduction:
  return Reproduction(
      agent, f'gymnax:{env}', f'{agent}_rlzoo_{game}', num_steps, published,
      spread, _ZOO.format(file='qrdqn' if agent == 'qr_dqn' else agent),
      _ZOO_PROTOCOL.format(episodes=episodes), FINAL, differences)


_PQN_DIFFERS = ('CleanRL pqn.py\'s setting but for its optimizer and '
                'initialisation: Adam here, RAdam there; Haiku\'s default '
                'weights here, orthogonal there')

REPRODUCTIONS = (
    _cleanrl('ppo', 'gymnax:CartPole-v1', 'ppo_gymnax_cartpole', 490.04,
             6.12),
    _cleanrl('ppo', 'gymnax:Acrobot-v1', 'ppo_gymnax_acrobot', -86.36, 1.32),
    _cleanrl('dqn', 'gymnax:CartPole-v1', 'dqn_cleanrl_cartpole', 488.69,
             16.11),
    _cleanrl('dqn', 'gymnax:Acrobot-v1', 'dqn_cleanrl_acrobot', -91.54, 7.20),
    _cleanrl('c51', 'gymnax:CartPole-v1', 'c51_cleanrl_cartpole', 481.20,
             20.53),
    _cleanrl('c51', 'gymnax:Acrobot-v1', 'c51_cleanrl_acrobot', -87.70, 5.52),
    _cleanrl('c51', 'gymnax:MountainCar-v0', 'c51_cleanrl_mountaincar',
             -166.38, 27.94),
    _zoo('dqn', 'cartpole', 'CartPole-v1', 50_000, 500.0, 0.0, 300),
    _zoo('dqn', 'acrobot', 'Acrobot-v1', 100_000, -76.639, 11.752, 1932),
    _zoo('dqn', 'mountaincar', 'MountainCar-v0', 120_000, -100.849, 9.925,
         1487),
    _zoo('qr_dqn', 'cartpole', 'CartPole-v1', 50_000, 500.0, 0.0, 300),
    _zoo('qr_dqn', 'acrobot', 'Acrobot-v1', 100_000, -69.135, 9.967, 2138),
    _zoo('qr_dqn', 'mountaincar', 'MountainCar-v0', 120_000, -106.042,
         15.536, 1414),
    _zoo('sac', 'pendulum', 'Pendulum-v1', 20_000, -156.995, 88.714, 750),
    _zoo('td3', 'pendulum', 'Pendulum-v1', 20_000, -151.855, 90.227, 750),
    Reproduction('ppo', 'gymnax:Asterix-MinAtar', 'ppo_blines_asterix_minatar',
                 10_000_000, 15.0, None, _GYMNAX_PPO, _BLINES_PROTOCOL, FINAL,
                 eval_episodes=164),
    _zoo('ppo', 'cartpole', 'CartPole-v1', 100_000, 500.0, 0.0, 300,
         'the Zoo\'s setting but for the clipping range: constant 0.2 here, '
         'annealed linearly to 0 there'),
    _zoo('a2c', 'cartpole', 'CartPole-v1', 500_000, 500.0, 0.0, 300,
         'SB3\'s A2C setting but for the optimizer: Adam here, RMSprop '
         '(α 0.99, ε 1e-5) there'),
    _zoo('ppo', 'acrobot', 'Acrobot-v1', 1_000_000, -73.506, 18.201, 2013,
         'the Zoo\'s setting without its observation and reward '
         'normalisation (VecNormalize), which our loops lack'),
    _zoo('a2c', 'acrobot', 'Acrobot-v1', 500_000, -83.353, 17.213, 1778,
         'SB3\'s A2C setting without the Zoo\'s observation and reward '
         'normalisation (VecNormalize), which our loops lack, and with '
         'Adam for RMSprop'),
    _cleanrl('pqn', 'gymnax:CartPole-v1', 'pqn_cleanrl_cartpole', 495.13,
             6.89, _PQN_DIFFERS),
    _cleanrl('pqn', 'gymnax:Acrobot-v1', 'pqn_cleanrl_acrobot', -95.63, 5.73,
             _PQN_DIFFERS),
    _cleanrl('pqn', 'gymnax:MountainCar-v0', 'pqn_cleanrl_mountaincar',
             -200.0, 0.0, _PQN_DIFFERS),
    _cleanrl('dqn', 'gymnax:CartPole-v1', 'dqn_gymnax_cartpole', 488.69,
             16.11, 'ours, tuned: PureJaxRL\'s CartPole DQN setting (10 '
             'environments, an SGD step every step of them, double Q, '
             '64-64 network)'),
    _cleanrl('dqn', 'gymnax:Acrobot-v1', 'dqn_gymnax_acrobot', -91.54, 7.20,
             'ours, tuned from rejax\'s Acrobot DQN: 5 environments × 5 SGD '
             'steps of 100 per step (~8× CleanRL\'s gradient samples per '
             'environment step), lr 1e-3 (4×), a 100k replay, Huber loss, '
             'double Q'),
) + tuple(
    Reproduction('ppo', f'gymnax:{game}-MinAtar', f'ppo_{preset}_minatar',
                 10_000_000, score, None, _GYMNAX_PPO, _GYMNAX_PROTOCOL,
                 FINAL, 'another agent\'s setting: ours is PureJaxRL\'s '
                 'MinAtar PPO (one setting for every game, 64-64 ReLU '
                 'MLPs), gymnax-blines tuned each game')
    for game, preset, score in (
        ('Breakout', 'breakout', 28.0),
        ('SpaceInvaders', 'space_invaders', 131.0),
        ('Asterix', 'asterix', 15.0), ('Freeway', 'freeway', 58.0)))


def _root(reproduction: Reproduction, root: str) -> str:
  """The row's runs: a directory per preset and overrides (two presets of
  one agent and environment are two experiments)."""
  return os.path.join(root, reproduction.preset + ''.join(
      f'-{key}={value}' for key, value in reproduction.overrides))


def seed_directories(reproduction: Reproduction, num_seeds: int,
                     root: str) -> List[str]:
  """Where each seed's logs go under `root`."""
  groups = run_groups.groups_for(config(reproduction), num_seeds,
                                 _root(reproduction, root))
  return [d for group in groups for d in group.seed_dirs]


def config(reproduction: Reproduction):
  """The run: the preset at the published budget, logging rows of about
  `ROW_STEPS` steps so the last training episodes are counted closely."""
  base = learning.config(reproduction.setting)
  return dataclasses.replace(
      base, num_steps=reproduction.num_steps, num_episodes=None,
      log_every_episodes=0, log_every_steps=ROW_STEPS,
      agent_config=dataclasses.replace(base.agent_config,
                                       **dict(reproduction.overrides)),
      # The preset's, else resolved again from the overridden config.
      num_envs=reproduction.setting.preset.num_envs)


def run(reproduction: Reproduction, num_seeds: int,
        root: str) -> List[Dict[str, Any]]:
  """Seeds 0 … num_seeds-1 of `reproduction`, one result per seed."""
  return learning.run_seeds(config(reproduction), num_seeds,
                                      _root(reproduction, root))


def training_return(train_csv: str,
                    episodes: int = LAST_TRAINING_EPISODES) -> Dict[str, Any]:
  """The mean return of the last training episodes in `train_csv`: the
  last whole log rows that hold at least `episodes` of them, each row's
  mean weighted by its episodes. `{'mean', 'episodes'}` (the episodes
  counted)."""
  rows = pd.read_csv(train_csv)
  counts = rows['progress/episodes'].diff().fillna(
      rows['progress/episodes']).to_numpy()
  returns = rows['train/episode_return'].to_numpy()
  total, weighted = 0, 0.0
  for count, value in zip(counts[::-1], returns[::-1]):
    if count <= 0:
      continue
    total += int(count)
    weighted += float(count) * float(value)
    if total >= episodes:
      break
  return {'mean': weighted / total if total else None, 'episodes': total}


def summary(values: List[float]) -> Dict[str, Any]:
  """The seeds' statistics: mean and IQM with 95% intervals from
  `MIN_SEEDS_FOR_INTERVALS` seeds on, else the mean and the range."""
  if len(values) >= MIN_SEEDS_FOR_INTERVALS:
    return {'seeds': len(values),
            **statistics.over_seeds(values, ('mean', 'iqm'))}
  return {'seeds': len(values), 'mean': sum(values) / len(values),
          'range': [min(values), max(values)]}


def row(reproduction: Reproduction, results: List[Dict[str, Any]],
        directories: List[str]) -> Dict[str, Any]:
  """The JSON row of `reproduction` from its seeds' `results`, whose logs
  are in `directories` (in seed order)."""
  seeds = learning.per_seed(results)
  by_seed = dict(zip(range(len(directories)), directories))
  for entry in seeds['per_seed']:
    entry['training_return'] = training_return(
        os.path.join(by_seed[entry['seed']], 'train.csv'))
  finished = [r for r in results if r.get('status') != 'diverged']
  final = [r['eval_mean_return'] for r in seeds['per_seed']]
  # A seed with no finished training episode has no training return.
  training = [r['training_return']['mean'] for r in seeds['per_seed']
              if r['training_return']['mean'] is not None]
  return {
      'kind': reproduction.kind, 'agent': reproduction.agent,
      'env': reproduction.env, 'preset': reproduction.preset,
      'num_steps': reproduction.num_steps,
      'published': reproduction.published,
      'published_spread': reproduction.published_spread,
      'source': reproduction.source,
      'published_protocol': reproduction.published_protocol,
      'differences': reproduction.differences,
      'measured_as': reproduction.measured_as,
      'protocol': (learning.protocol(finished) if finished
                   else None),
      'final_score': summary(final) if final else None,
      'training_return': summary(training) if training else None,
      **seeds,
  }


FLAG_GROUPS = {
    'What to run': ('only', 'seeds'),
    'Output': ('output', 'workdir'),
}


def _define_flags() -> None:
  learning.define_run_flags(
      'Seeds per reproduction (0..N-1).', 'Run only these, e.g. '
      'dqn_cleanrl_acrobot/gymnax:Acrobot-v1 (preset/env).')


def main(argv):
  del argv
  root, only = learning.run_root('reproductions')
  known = {r.name for r in REPRODUCTIONS}
  if only - known:
    raise SystemExit(f'--only: unknown {sorted(only - known)}; valid: '
                     f'{", ".join(sorted(known))}.')
  chosen = [r for r in REPRODUCTIONS if not only or r.name in only]
  try:
    kept = learning.rows_kept(flags.FLAGS.output, flags.FLAGS.seeds)
  except ValueError as e:
    raise SystemExit(str(e)) from e
  rows = []
  for reproduction in chosen:
    start = time.perf_counter()
    result = row(reproduction, run(reproduction, flags.FLAGS.seeds, root),
                 seed_directories(reproduction, flags.FLAGS.seeds, root))
    result['seconds'] = time.perf_counter() - start
    result['measured'] = fingerprints.measured(
        [config(reproduction)], [dict(reproduction.overrides)])
    rows.append(result)
    print(json.dumps({k: result[k] for k in (
        'preset', 'env', 'published', 'protocol', 'training_return',
        'final_score')}), flush=True)
    # After every row, so a failure keeps what was measured.
    learning.write_output(flags.FLAGS.seeds, _in_order(
        learning.merged(kept, rows, _name)), flags.FLAGS.output)


def _name(result: Dict[str, Any]) -> str:
  return f'{result["preset"]}/{result["env"]}'


def _in_order(results: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
  """`results` in the order of `REPRODUCTIONS` (rows it no longer lists
  last)."""
  order = {r.name: i for i, r in enumerate(REPRODUCTIONS)}
  return sorted(results, key=lambda r: order.get(_name(r), len(order)))

if __name__ == '__main__':
  _define_flags()
  help_text.run(main, FLAG_GROUPS, __doc__)
