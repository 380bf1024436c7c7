"""A2C on Jumanji's Maze beside Jumanji's own A2C, in its setting.

A peer suite of `benchmarks.suites` (run as `benchmarks.peers` runs them:
alternating rounds in fresh processes, Jumanji's A2C in the peers' own
environment; `benchmarks.peer_runs`):

  peers_jumanji_a2c: A2C on `jumanji:Maze-v0` for `--jumanji_steps`, in
    the setting `jumanji.training` trains Maze with (its maze config; our
    `a2c_jumanji_maze` preset: 128 envs x 10 steps, one gradient step
    each, lr 3e-4 Adam, TD(λ 0.95) advantages, value weight 1 on the
    squared advantage, entropy 0.01, its Maze network): training steps
    per second of ours (with time limits ending the returns, and as by
    default) and of Jumanji's (`benchmarks/jumanji_a2c_program.py`), and
    the greedy return of 100 episodes after training on both sides.

Jumanji's auto-reset bootstraps a time limit from the next episode's first
observation; ours ends the return there (or bootstraps from the cut-off
observation, by default).
"""

from typing import Any, Callable, Dict

from absl import flags

from benchmarks import peer_runs
from benchmarks import scaling

SUITES = ('peers_jumanji_a2c',)
PRESET = 'a2c_jumanji_maze'
ENV = 'jumanji:Maze-v0'
EVAL_EPISODES = 100
UPDATE_STEPS = 1280  # 128 envs x 10 steps: both sides train whole updates.


def jumanji_a2c(root: str, repeats: int, run: scaling.Runner,
                steps: int) -> Dict[str, Any]:
  """A2C on Maze: ours (both arithmetics) and Jumanji's."""
  ours = dict(program='ours', preset=PRESET, env=ENV, num_steps=steps,
              **dict(peer_runs.TRAINING_ONLY, eval_episodes=EVAL_EPISODES))
  runs = scaling.measure(root, {
      'ours': scaling.Measurement(dict(
          ours, agent_config=peer_runs.peer_arithmetic('jumanji'))),
      'ours_bootstrapping': scaling.Measurement(ours),
      'jumanji': scaling.Measurement(dict(
          program='jumanji_a2c', config={
              'env': 'maze', 'steps': steps,
              'eval_episodes': EVAL_EPISODES})),
  }, repeats, run)
  for arm in ('ours', 'ours_bootstrapping'):
    peer_runs.ratios(runs, arm, 'steps_per_second', ('jumanji',), 'speed')
  return {'setting': '128 envs x 10 steps, one gradient step each, lr '
                     '3e-4 Adam unclipped, TD(λ 0.95) advantages, value '
                     'weight 1 on the squared advantage, entropy 0.01, '
                     'Jumanji\'s Maze network (convolutions 32-32-8 over '
                     'the maze, 64-64 policy and 128-128 value MLPs), '
                     f'{steps:,} steps (jumanji.training\'s maze config; '
                     'our a2c_jumanji_maze preset); ours with time limits '
                     'ending the returns and as by default '
                     '(bootstrapped); Jumanji bootstraps a time limit '
                     'from the next episode\'s first observation; greedy '
                     f'return over {EVAL_EPISODES} episodes after '
                     'training, both sides',
          ENV: scaling.summary(runs)}


def whole_updates(steps: int) -> bool:
  """Whether `steps` is a budget of whole updates (`--jumanji_steps`)."""
  return steps >= UPDATE_STEPS and steps % UPDATE_STEPS == 0


def define_flags() -> None:
  """This suite's flags (`benchmarks.peers.define_flags` calls it)."""
  flags.DEFINE_integer('jumanji_steps', 25_600, 'peers_jumanji_a2c: '
                       'training steps per run, whole updates of 1,280 '
                       '(Jumanji\'s maze config trains 64M; its program '
                       'runs about 80 steps/s on a 2-core CPU).',
                       lower_bound=UPDATE_STEPS)
  flags.register_validator(
      'jumanji_steps', whole_updates,
      message=f'--jumanji_steps: a multiple of {UPDATE_STEPS:,} (128 envs '
              'x 10 steps), so both sides train the same whole updates.')


def suites(root: str, flags_values: Any, run: scaling.Runner
          ) -> Dict[str, Callable[[], Any]]:
  """The suites of this module, by name, bound to their flag values."""
  return {'peers_jumanji_a2c': lambda: jumanji_a2c(
      root, flags_values.seeds, run, flags_values.jumanji_steps)}
