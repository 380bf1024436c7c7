"""PPO on POPGym Arcade's games beside POPGym Arcade's own PPO, in its
setting.

A peer suite of `benchmarks.suites` (run as `benchmarks.peers` runs them:
alternating rounds in fresh processes, POPGym Arcade's PPO in the peers'
own environment; `benchmarks.peer_runs`):

  peers_popgym_arcade_ppo: PPO on each of `--popgym_arcade_ids` at
    `--popgym_arcade_steps`, in the setting of popgym-arcade 0.0.5's
    baselines/ppo.py with its train.py's defaults (our
    `ppo_popgym_arcade` preset: 16 envs x 128 steps, 4 epochs x 16
    minibatches, lr 1e-4 annealed, its actor and critic of a convolution
    tower and a LayerNorm trunk each, `networks.popgym_arcade_conv`, on
    128x128 images): training steps per second of ours (with its
    arithmetic: time limits end the returns) and of its
    `make_train`, and the greedy return of `EVAL_EPISODES` episodes after
    training on both sides (the same protocol), with its mean return of
    the last training episodes beside it.

On a 2-core CPU one update of its program takes about half an hour
(ours about 1.5 minutes), so the default budget is one update: a speed
measurement, not a learning one. AutoEncode's games (4 actions) are
refused: its PPO's network has 5 logits.
"""

from typing import Any, Callable, Dict, Sequence

from absl import flags

from benchmarks import peer_runs
from benchmarks import scaling
from environments import popgym_arcade_adapter

SUITES = ('peers_popgym_arcade_ppo',)
PRESET = 'ppo_popgym_arcade'
EVAL_EPISODES = 32
# POPGym Arcade's train.py defaults for PPO, as its config keys.
SETTING = {'PARTIAL': False, 'OBS_SIZE': 128, 'LR': 1e-4, 'NUM_ENVS': 16,
           'NUM_STEPS': 128, 'UPDATE_EPOCHS': 4, 'NUM_MINIBATCHES': 16,
           'GAMMA': 0.99, 'GAE_LAMBDA': 0.95, 'CLIP_EPS': 0.2,
           'ENT_COEF': 0.01, 'VF_COEF': 0.5, 'MAX_GRAD_NORM': 0.5,
           'ANNEAL_LR': True}
UPDATE_STEPS = SETTING['NUM_ENVS'] * SETTING['NUM_STEPS']
# The games its PPO plays: all but AutoEncode's (4 actions; its network
# has 5 logits).
PLAYABLE = tuple(i for i in popgym_arcade_adapter.IDS
                 if not i.startswith('AutoEncode'))


def popgym_arcade_ppo(root: str, repeats: int, run: scaling.Runner,
                      env_ids: Sequence[str], steps: int) -> Dict[str, Any]:
  """PPO on each of `env_ids`: ours (its arithmetic) and POPGym
  Arcade's."""
  report = {'setting': '16 envs x 128 steps, 4 epochs x 16 minibatches, lr '
                       '1e-4 annealed, clip 0.2 on the policy and the '
                       'value, separate actor and critic, each a '
                       'convolution tower (64-128-256-512, leaky ReLU, max '
                       'pools) and a 256-256 LayerNorm trunk, 128x128 '
                       f'images, fully observed, {steps:,} steps '
                       '(popgym-arcade 0.0.5 baselines/ppo.py with train.py\'s'
                       ' defaults; our ppo_popgym_arcade preset); ours with '
                       'its arithmetic (time limits end the returns); '
                       f'greedy return over {EVAL_EPISODES} episodes after '
                       'training, both sides'}
  for env_id in env_ids:
    runs = scaling.measure(root, {
        'ours': scaling.Measurement(dict(
            program='ours', preset=PRESET, num_steps=steps,
            env=f'popgym_arcade:{env_id}',
            agent_config=peer_runs.peer_arithmetic('popgym_arcade'),
            **dict(peer_runs.TRAINING_ONLY, eval_episodes=EVAL_EPISODES))),
        'popgym_arcade': scaling.Measurement(dict(
            program='popgym_arcade_ppo', config=dict(
                SETTING, ENV_NAME=env_id, TOTAL_TIMESTEPS=steps,
                EVAL_EPISODES=EVAL_EPISODES))),
    }, repeats, run)
    peer_runs.ratios(runs, 'ours', 'steps_per_second', ('popgym_arcade',),
                     'speed')
    report[env_id] = scaling.summary(runs)
  return report


def whole_updates(steps: int) -> bool:
  """Whether `steps` is a budget of whole updates
  (`--popgym_arcade_steps`)."""
  return steps >= UPDATE_STEPS and steps % UPDATE_STEPS == 0


def define_flags() -> None:
  """This suite's flags (`benchmarks.peers.define_flags` calls it)."""
  flags.DEFINE_list('popgym_arcade_ids', ['CartPoleHard'],
                    'peers_popgym_arcade_ppo: the POPGym Arcade games (ids '
                    'without "popgym_arcade:"; its train.py\'s default).')
  flags.register_validator(
      'popgym_arcade_ids', lambda ids: set(ids) <= set(PLAYABLE),
      message='--popgym_arcade_ids: POPGym Arcade games its PPO plays: '
              f'{", ".join(PLAYABLE)} (AutoEncode\'s 4 actions do not fit '
              'its 5-logit network).')
  flags.DEFINE_integer('popgym_arcade_steps', UPDATE_STEPS,
                       'peers_popgym_arcade_ppo: training steps per run, '
                       f'whole updates of {UPDATE_STEPS:,} (its own budget '
                       'is 10M; on a 2-core CPU one update of its program '
                       'takes about half an hour).', lower_bound=UPDATE_STEPS)
  flags.register_validator(
      'popgym_arcade_steps', whole_updates,
      message=f'--popgym_arcade_steps: a multiple of {UPDATE_STEPS:,} (16 '
              'envs x 128 steps), so both sides train the same whole '
              'updates.')


def suites(root: str, flags_values: Any, run: scaling.Runner
          ) -> Dict[str, Callable[[], Any]]:
  """The suites of this module, by name, bound to their flag values."""
  f = flags_values
  return {'peers_popgym_arcade_ppo': lambda: popgym_arcade_ppo(
      root, f.seeds, run, f.popgym_arcade_ids, f.popgym_arcade_steps)}
