"""Recurrent PPO on XLand-MiniGrid beside XLand-MiniGrid's own, in its
setting.

A peer suite of `benchmarks.suites` (run as `benchmarks.peers` runs them:
alternating rounds in fresh processes, XLand-MiniGrid's
`training/train_single_task.py` in the peers' own environment from a
checkout, `--xminigrid_source`; `benchmarks.peer_runs`):

  peers_xminigrid_ppo: recurrent PPO on each of `--xminigrid_ids`, once
    per GRU size of `--xminigrid_widths` with the budget of the same place
    in `--xminigrid_steps`, in the setting the script trains with (its
    defaults; our `ppo_xminigrid_rnn` preset: 8,192 envs x 16 steps, one
    epoch of 16 minibatches of whole sequences, lr 1e-3 annealed, its
    network reading the view, direction, previous action and reward):
    training steps per second of ours (time limits ending the returns, as
    its GAE does) and of its `make_train`, and the return of 80 episodes
    of the sampled policy after training on both sides (its protocol).
    Its GRU is 1,024 units; a smaller one is a variant of its setting
    (its `rnn_hidden_dim`), shown as its own row.

An XLand grid (`XLand-MiniGrid-R1-9x9`, ...) plays one ruleset of one of
xminigrid's benchmarks on both sides: `--xminigrid_benchmark` (e.g.
`trivial-21k`, which xminigrid downloads on first use) and
`--xminigrid_ruleset` (its index), refused before any run when an XLand id
is named without a benchmark.

Two differences stay: the script carries its GRU's memory, and its
previous action and reward, from one episode into the next; ours starts
each episode afresh (zeros). Its per-update evaluation plays one episode
inside the timed program (`benchmarks/xminigrid_ppo_program.py`).
"""

from typing import Any, Callable, Dict, Optional, Sequence

from absl import flags

from benchmarks import peer_runs
from benchmarks import scaling

SUITES = ('peers_xminigrid_ppo',)
PRESET = 'ppo_xminigrid_rnn'
ENV_CONFIG = {'direction': True, 'previous_action_reward': True}
HEAD_WIDTH = 256
EVAL_EPISODES = 80
EVAL_POLICY = 'sampled'
# One update of the setting: 8,192 environments x 16 steps.
UPDATE_STEPS = 8192 * 16


def is_xland(env_id: str) -> bool:
  """Whether `env_id` is an XLand grid (it plays a benchmark's ruleset)."""
  return env_id.startswith('XLand-')


def has_rulesets(env_ids: Sequence[str], benchmark: Optional[str]) -> bool:
  """Whether every XLand grid of `env_ids` has a benchmark to play."""
  return benchmark is not None or not any(map(is_xland, env_ids))


def xminigrid_ppo(root: str, repeats: int, run: scaling.Runner,
                  env_ids: Sequence[str], widths: Sequence[int],
                  budgets: Sequence[int], benchmark: Optional[str] = None,
                  ruleset: int = 0) -> Dict[str, Any]:
  """Recurrent PPO on each of `env_ids` at each (GRU size, budget): ours,
  with the script's arithmetic, and the script's; XLand grids play
  ruleset `ruleset` of `benchmark` on both sides."""
  report = {'setting': '8,192 envs x 16 steps, 1 epoch x 16 minibatches '
                       'of whole sequences, lr 1e-3 annealed, gradients '
                       'clipped to global norm 0.5, values clipped, '
                       'tile and colour embeddings, 2x2 convolutions '
                       '16-32-64, the direction, previous action and '
                       'reward, a GRU, 256 tanh actor and critic heads '
                       "(XLand-MiniGrid's train_single_task.py defaults; "
                       'our ppo_xminigrid_rnn preset), time limits ending '
                       f'the returns on both sides; return of '
                       f'{EVAL_EPISODES} episodes of the {EVAL_POLICY} '
                       'policy after training, both sides; its memory '
                       'runs on across episodes, ours restarts'}
  for env_id in env_ids:
    env_kwargs, ruleset_config = dict(ENV_CONFIG), {}
    if is_xland(env_id):
      env_kwargs.update(benchmark=benchmark, ruleset=ruleset)
      ruleset_config = {'benchmark_id': benchmark, 'ruleset_id': ruleset}
    for width, steps in zip(widths, budgets):
      ours = dict(program='ours', preset=PRESET, env=f'xminigrid:{env_id}',
                  env_kwargs=env_kwargs, num_steps=steps,
                  hidden_sizes=(width, HEAD_WIDTH),
                  agent_config=peer_runs.peer_arithmetic('xminigrid'),
                  **dict(peer_runs.TRAINING_ONLY,
                         eval_episodes=EVAL_EPISODES,
                         eval_policy=EVAL_POLICY))
      runs = scaling.measure(root, {
          'ours': scaling.Measurement(ours),
          'xminigrid': scaling.Measurement(dict(
              program='xminigrid_ppo', config={
                  'env_id': env_id, 'rnn_hidden_dim': width,
                  'head_hidden_dim': HEAD_WIDTH, 'total_timesteps': steps,
                  'eval_episodes': EVAL_EPISODES, **ruleset_config})),
      }, repeats, run)
      peer_runs.ratios(runs, 'ours', 'steps_per_second', ('xminigrid',),
                       'speed')
      report[f'{env_id}, GRU {width}, {steps} steps'] = dict(
          scaling.summary(runs), env_id=env_id, width=width, steps=steps,
          **ruleset_config)
  return report


def define_flags() -> None:
  """This suite's flags (`benchmarks.peers.define_flags` calls it)."""
  flags.DEFINE_list('xminigrid_ids', ['MiniGrid-Empty-6x6'],
                    'peers_xminigrid_ppo: the games (xminigrid ids without '
                    '"xminigrid:"; the script\'s default game first).')
  flags.DEFINE_list('xminigrid_widths', ['1024'],
                    'peers_xminigrid_ppo: GRU sizes, one setting each '
                    '(1024: the script\'s own).')
  flags.DEFINE_list('xminigrid_steps', [str(7 * UPDATE_STEPS)],
                    'peers_xminigrid_ppo: training steps per run, one per '
                    f'GRU size, each a multiple of {UPDATE_STEPS:,} (one '
                    'update; the script\'s 1M default trains 7).')
  flags.DEFINE_string('xminigrid_benchmark', None,
                      'peers_xminigrid_ppo: the benchmark whose ruleset '
                      'the XLand ids play on both sides (e.g. trivial-21k; '
                      'xminigrid downloads it on first use).')
  flags.DEFINE_integer('xminigrid_ruleset', 0,
                       'peers_xminigrid_ppo: the index of that ruleset.',
                       lower_bound=0)
  flags.register_multi_flags_validator(
      ['xminigrid_ids', 'xminigrid_benchmark'],
      lambda values: has_rulesets(values['xminigrid_ids'],
                                  values['xminigrid_benchmark']),
      message='--xminigrid_ids names an XLand grid, which plays a '
              "benchmark's ruleset: set --xminigrid_benchmark (e.g. "
              'trivial-21k) and --xminigrid_ruleset.')
  flags.DEFINE_string('xminigrid_source', None,
                      'peers_xminigrid_ppo: a checkout of '
                      'github.com/dunnolab/xland-minigrid (the folder '
                      'holding training/train_single_task.py).')
  flags.register_multi_flags_validator(
      ['xminigrid_widths', 'xminigrid_steps'],
      lambda values: peer_runs.widths_and_budgets(
          values['xminigrid_widths'], values['xminigrid_steps'], UPDATE_STEPS),
      message='--xminigrid_widths and --xminigrid_steps: one budget per '
              'GRU size, each size an int >= 1, each budget a positive '
              f'multiple of {UPDATE_STEPS:,} (8,192 envs x 16 steps).')


def suites(root: str, flags_values: Any, run: scaling.Runner
          ) -> Dict[str, Callable[[], Any]]:
  """The suites of this module, by name, bound to their flag values."""
  f = flags_values
  return {'peers_xminigrid_ppo': lambda: xminigrid_ppo(
      root, f.seeds, run, f.xminigrid_ids,
      [int(w) for w in f.xminigrid_widths],
      [int(s) for s in f.xminigrid_steps], f.xminigrid_benchmark,
      f.xminigrid_ruleset)}
