"""PPO on Navix's games beside Navix's own PPO, in its setting.

A peer suite of `benchmarks.suites` (run as `benchmarks.peers` runs them:
alternating rounds in fresh processes, Navix's PPO in the peers' own
environment; `benchmarks.peer_runs`):

  peers_navix_ppo: PPO on each of `--navix_ids` at `--navix_steps`, in
    the setting Navix's baselines/ppo.py trains every Navix game with
    (`navix.agents.PPOHparams`' defaults; our `ppo_navix` preset: 16
    envs x 128 steps, 1 epoch x 8 minibatches, lr 2.5e-4 annealed,
    separate tanh 64-64 actor and critic on the flattened symbolic
    observation): training steps per second of ours (with Navix's
    arithmetic, time limits ending the returns, and as by default) and
    of Navix's `PPO.train`, and the greedy return of 100 episodes after
    training on both sides (the same protocol), with Navix's mean return
    of its last training episodes beside it.

Navix's PPO discounts step t of an episode by γ^t, not γ (its
`evaluate_experience`), and steps its games with their auto-reset; ours
discounts by γ and resets in the loop.
"""

from typing import Any, Callable, Dict, Sequence

from absl import flags

from benchmarks import peer_runs
from benchmarks import scaling

SUITES = ('peers_navix_ppo',)
PRESET = 'ppo_navix'
EVAL_EPISODES = 100


def navix_ppo(root: str, repeats: int, run: scaling.Runner,
              env_ids: Sequence[str], steps: int) -> Dict[str, Any]:
  """PPO on each of `env_ids`: ours (both arithmetics) and Navix's."""
  ours = dict(program='ours', preset=PRESET, num_steps=steps,
              **dict(peer_runs.TRAINING_ONLY, eval_episodes=EVAL_EPISODES))
  report = {'setting': '16 envs x 128 steps, 1 epoch x 8 minibatches, lr '
                       '2.5e-4 annealed, separate tanh 64-64 actor and '
                       f'critic, flattened symbolic observations, {steps:,} '
                       'steps (Navix\'s PPOHparams; our ppo_navix preset); '
                       'ours with Navix\'s arithmetic (time limits end the '
                       'returns) and as by default (bootstrapped); Navix '
                       'discounts step t by γ^t; greedy return over '
                       f'{EVAL_EPISODES} episodes after training, both '
                       'sides'}
  for env_id in env_ids:
    runs = scaling.measure(root, {
        'ours': scaling.Measurement(dict(
            ours, env=f'navix:{env_id}',
            agent_config=peer_runs.peer_arithmetic('navix'))),
        'ours_bootstrapping': scaling.Measurement(dict(
            ours, env=f'navix:{env_id}')),
        'navix': scaling.Measurement(dict(
            program='navix_ppo', config={
                'env_id': env_id, 'budget': steps,
                'eval_episodes': EVAL_EPISODES})),
    }, repeats, run)
    for arm in ('ours', 'ours_bootstrapping'):
      peer_runs.ratios(runs, arm, 'steps_per_second', ('navix',), 'speed')
    report[env_id] = scaling.summary(runs)
  return report


def define_flags() -> None:
  """This suite's flags (`benchmarks.peers.define_flags` calls it)."""
  flags.DEFINE_list('navix_ids', ['Navix-Empty-8x8-v0',
                                  'Navix-DoorKey-5x5-v0'],
                    'peers_navix_ppo: the Navix games (ids without '
                    '"navix:").')
  flags.DEFINE_integer('navix_steps', 1_000_000, 'peers_navix_ppo: '
                       'training steps per run (Navix\'s PPO budget).',
                       lower_bound=2048)


def suites(root: str, flags_values: Any, run: scaling.Runner
          ) -> Dict[str, Callable[[], Any]]:
  """The suites of this module, by name, bound to their flag values."""
  f = flags_values
  return {'peers_navix_ppo': lambda: navix_ppo(
      root, f.seeds, run, f.navix_ids, f.navix_steps)}
