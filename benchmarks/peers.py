"""Our canonical runs beside the single-file JAX scripts people compare with.

Run through `benchmarks.suites` (`--suites=peers_gymnax_cartpole,...`).
Every configuration runs `--seeds` times in fresh processes, the
configurations taken in turn each round (`scaling.measure`), so
that the machine's noise falls on all of them; figures are medians, ratios
are taken within a round. Training speed excludes compilation, reported
apart. The peers run in their own environment (`scripts/setup_peer_venv.sh`
makes `.venv-peers`; `--peer_python` points at its interpreter), never in
ours, through `benchmarks/peer_programs.py`; PureJaxRL is a checkout
(`--purejaxrl_source`), as it is not a package.

  peers_gymnax_cartpole: PPO on gymnax CartPole-v1 in PureJaxRL's setting
    (our `ppo_gymnax_cartpole` preset, 500k steps): training steps per
    second of ours, PureJaxRL's `ppo.py` and rejax's PPO with the same
    settings; and the whole default command, `python -m experiments.train
    --agent=ppo --env=gymnax:CartPole-v1` (evaluations, export and its
    check included), against PureJaxRL's whole script: seconds and peak
    memory.
  peers_breakout_minatar: PPO on Breakout-MinAtar in PureJaxRL's MinAtar
    setting (our `ppo_breakout_minatar` preset), `--minatar_steps` each:
    ours against PureJaxRL.
  peers_ppo_games: PPO on every gymnax game PureJaxRL's `ppo.py` runs
    as shipped (CartPole, Acrobot, MountainCar; the four MinAtar games),
    each in its setting for the game's kind, `ENV_NAME` the only change:
    training steps per second of ours (both arithmetics) and PureJaxRL's,
    and their ratio per round (`--ppo_games` picks games,
    `--games_minatar_steps` the MinAtar budget).
  peers_ppo_rnn: a recurrent PPO on gymnax CartPole-v1 in PureJaxRL's
    `ppo_rnn.py` setting (our `ppo_rnn_gymnax_cartpole` preset: its GRU
    network, 500k steps): training steps per second of ours and of
    PureJaxRL's `ppo_rnn.py` with the same settings.
  peers_sac_pendulum, peers_dqn_cartpole, peers_td3_pendulum,
    peers_pqn_cartpole: the RLax agent family beside rejax's
    (`benchmarks/rejax_peer.py`).
  peers_pqn_breakout_minatar, peers_pqn_rnn_memory_chain: PQN beside
    purejaxql's on MinAtar, and recurrent on MemoryChain
    (`benchmarks/purejaxql_peer.py`).
  peers_alphazero_connect_four: AlphaZero on pgx's connect four beside
    pgx's own AlphaZero example, on the same MLP
    (`benchmarks/pgx_alphazero_peer.py`).
  peers_navix_ppo: PPO on Navix's games beside Navix's own PPO
    (`benchmarks/navix_peer.py`).
  peers_craftax_ppo: PPO on Craftax beside Craftax_Baselines' PPO
    (`benchmarks/craftax_peer.py`); peers_craftax_ppo_rnn: the same with
    its recurrent PPO.
  peers_jumanji_a2c: A2C on Jumanji's Maze beside Jumanji's own A2C
    (`benchmarks/jumanji_peer.py`).
  peers_xminigrid_ppo: recurrent PPO on XLand-MiniGrid beside its own
    recurrent PPO (`benchmarks/xminigrid_peer.py`).
  peers_popgym_arcade_ppo: PPO on POPGym Arcade's games beside its own
    PPO (`benchmarks/popgym_arcade_peer.py`).
  peers_python_loop: the Python loop, PPO on Gymnasium CartPole-v1,
    `--python_loop_steps` steps with the default evaluations (no export),
    with 1 and `--vector_envs` environments, against SBX's PPO with
    `--vector_envs` environments (SB3's defaults, no evaluation): seconds
    of the whole run, and its steps per second against SBX's (which rounds
    the budget up to whole rollouts).
"""

import os
from typing import Any, Callable, Dict, Optional, Sequence

from absl import flags

from benchmarks import craftax_peer
from benchmarks import jumanji_peer
from benchmarks import navix_peer
from benchmarks import peer_runs
from benchmarks import pgx_alphazero_peer
from benchmarks import popgym_arcade_peer
from benchmarks import purejaxql_peer
from benchmarks import rejax_peer
from benchmarks import scaling
from benchmarks import xminigrid_peer

SUITES = ('peers_gymnax_cartpole', 'peers_breakout_minatar',
          'peers_ppo_games', 'peers_ppo_rnn', 'peers_python_loop') + rejax_peer.SUITES + (
              purejaxql_peer.SUITES) + pgx_alphazero_peer.SUITES + (
                  navix_peer.SUITES) + craftax_peer.SUITES + (
                      jumanji_peer.SUITES) + xminigrid_peer.SUITES + (
                          popgym_arcade_peer.SUITES)


class PeerSetupError(ValueError):
  """The peers' environment or a peer's checkout is missing."""


def check_setup(peer_python: str, purejaxrl_source: Optional[str],
                suites: Sequence[str],
                purejaxql_source: Optional[str] = None,
                pgx_source: Optional[str] = None,
                craftax_baselines_source: Optional[str] = None,
                xminigrid_source: Optional[str] = None) -> None:
  """Refuses, before any run, peer suites whose peers are not installed.

  Raises:
    PeerSetupError: naming the missing path and the command that makes it.
  """
  if not any(name in SUITES for name in suites):
    return
  if not os.access(peer_python, os.X_OK):
    raise PeerSetupError(
        f'--peer_python: {peer_python} is not an interpreter; make the '
        f'peers\' environment with scripts/setup_peer_venv.sh.')
  needs_purejaxrl = {'peers_gymnax_cartpole', 'peers_breakout_minatar',
                     'peers_ppo_games', 'peers_ppo_rnn'}
  if needs_purejaxrl & set(suites) and not os.path.isfile(
      os.path.join(purejaxrl_source or '', 'purejaxrl', 'ppo.py')):
    raise PeerSetupError(
        f'--purejaxrl_source: {purejaxrl_source!r} is no checkout of '
        f'luchris429/purejaxrl (no purejaxrl/ppo.py); clone it and pass '
        f'its path.')
  if set(purejaxql_peer.SUITES) & set(suites) and not os.path.isfile(
      os.path.join(purejaxql_source or '', 'purejaxql', 'pqn_minatar.py')):
    raise PeerSetupError(
        f'--purejaxql_source: {purejaxql_source!r} is no checkout of '
        f'mttga/purejaxql (no purejaxql/pqn_minatar.py); clone it and pass '
        f'its path.')
  if set(pgx_alphazero_peer.SUITES) & set(suites) and not os.path.isfile(
      os.path.join(pgx_source or '', 'examples', 'alphazero', 'train.py')):
    raise PeerSetupError(
        f'--pgx_source: {pgx_source!r} is no checkout of sotetsuk/pgx (no '
        f'examples/alphazero/train.py); clone it and pass its path.')
  for script in (('ppo.py', 'ppo_rnn.py')
                 if 'peers_craftax_ppo_rnn' in suites else ('ppo.py',)):
    if set(craftax_peer.SUITES) & set(suites) and not os.path.isfile(
        os.path.join(craftax_baselines_source or '', script)):
      raise PeerSetupError(
          f'--craftax_baselines_source: {craftax_baselines_source!r} is no '
          f'checkout of MichaelTMatthews/Craftax_Baselines (no {script}); '
          'clone it and pass its path.')
  if set(xminigrid_peer.SUITES) & set(suites) and not os.path.isfile(
      os.path.join(xminigrid_source or '', 'training',
                   'train_single_task.py')):
    raise PeerSetupError(
        f'--xminigrid_source: {xminigrid_source!r} is no checkout of '
        f'dunnolab/xland-minigrid (no training/train_single_task.py); clone '
        f'it and pass its path.')


def purejaxrl_ppo_settings(env_id: str, num_steps: int, num_envs: int,
                           learning_rate: float, num_minibatches: int,
                           activation: str) -> Dict[str, Any]:
  """PureJaxRL `ppo.py`'s config keys for one of its published settings."""
  return {'LR': learning_rate, 'NUM_ENVS': num_envs, 'NUM_STEPS': 128,
          'TOTAL_TIMESTEPS': num_steps, 'UPDATE_EPOCHS': 4,
          'NUM_MINIBATCHES': num_minibatches, 'GAMMA': 0.99,
          'GAE_LAMBDA': 0.95, 'CLIP_EPS': 0.2, 'ENT_COEF': 0.01,
          'VF_COEF': 0.5, 'MAX_GRAD_NORM': 0.5, 'ACTIVATION': activation,
          'ENV_NAME': env_id, 'ANNEAL_LR': True}


def gymnax_cartpole(root: str, repeats: int,
                    run: scaling.Runner) -> Dict[str, Any]:
  """PPO on gymnax CartPole-v1, PureJaxRL's setting: ours and the peers."""
  steps = 500_000
  runs = scaling.measure(root, {
      # PureJaxRL's arithmetic (time limits end the returns), rejax's (and
      # each gradient entry clipped), then ours by default (bootstrapping
      # through time limits, the global norm clipped).
      'ours': scaling.Measurement(dict(
          program='ours', preset='ppo_gymnax_cartpole',
          agent_config=peer_runs.peer_arithmetic('purejaxrl'),
          **peer_runs.TRAINING_ONLY)),
      'ours_as_rejax': scaling.Measurement(dict(
          program='ours', preset='ppo_gymnax_cartpole',
          agent_config=peer_runs.peer_arithmetic('rejax'),
          **peer_runs.TRAINING_ONLY)),
      'ours_bootstrapping': scaling.Measurement(dict(
          program='ours', preset='ppo_gymnax_cartpole',
          **peer_runs.TRAINING_ONLY)),
      'purejaxrl': scaling.Measurement(dict(
          program='purejaxrl_ppo', config=purejaxrl_ppo_settings(
              'CartPole-v1', steps, 4, 2.5e-4, 4, 'tanh'))),
      'rejax': scaling.Measurement(dict(
          program='rejax', algorithm='ppo', config={
              'env': 'CartPole-v1', 'num_envs': 4, 'num_steps': 128,
              'num_epochs': 4, 'num_minibatches': 4,
              'learning_rate': 2.5e-4, 'max_grad_norm': 0.5,
              'total_timesteps': steps, 'eval_freq': steps,
              'skip_initial_evaluation': True, 'gamma': 0.99,
              'gae_lambda': 0.95, 'clip_eps': 0.2, 'ent_coef': 0.01,
              'vf_coef': 0.5, 'agent_kwargs': {'activation': 'tanh'}})),
      'our_default_command': scaling.Measurement(dict(
          program='our_command',
          args=('--agent=ppo', '--env=gymnax:CartPole-v1'))),
      'purejaxrl_script': scaling.Measurement(dict(
          program='purejaxrl_script')),
  }, repeats, run)
  peer_runs.ratios(runs, 'ours', 'steps_per_second', ('purejaxrl',),
                   'speed')
  peer_runs.ratios(runs, 'ours_as_rejax', 'steps_per_second', ('rejax',),
                   'speed')
  peer_runs.ratios(runs, 'ours_bootstrapping', 'steps_per_second',
                   ('purejaxrl', 'rejax'), 'speed')
  peer_runs.ratios(runs, 'our_default_command', 'seconds',
                   ('purejaxrl_script',), 'seconds')
  return {'setting': '4 envs x 128 steps, 4 epochs x 4 minibatches, lr '
                     '2.5e-4 annealed, separate tanh 64-64 actor and '
                     'critic, 500k steps; ours as PureJaxRL (time limits '
                     'end the returns), as rejax (and each gradient entry '
                     'clipped) and as by default (bootstrapped, the global '
                     'norm clipped); '
                     'rejax anneals no learning rate and evaluates once '
                     '(128 episodes) at the end',
          'commands': {
              'our_default_command': 'python -m experiments.train '
                                     '--agent=ppo --env=gymnax:CartPole-v1',
              'purejaxrl_script': 'python purejaxrl/ppo.py (DEBUG on, as '
                                  'shipped; printing muted)'},
          **scaling.summary(runs)}


def breakout_minatar(root: str, repeats: int, run: scaling.Runner,
                     step_counts: Sequence[int]) -> Dict[str, Any]:
  """PPO on Breakout-MinAtar, PureJaxRL's MinAtar setting."""
  report = {'setting': '64 envs x 128 steps, 4 epochs x 8 minibatches, lr '
                       '5e-3 annealed, separate ReLU 64-64 actor and '
                       'critic; ours as PureJaxRL (time limits end the '
                       'returns) and as by default (bootstrapped)'}
  for steps in step_counts:
    runs = peer_runs.both_arithmetics(
        root, repeats, run, 'ppo_breakout_minatar', 'purejaxrl',
        scaling.Measurement(dict(
            program='purejaxrl_ppo', config=purejaxrl_ppo_settings(
                'Breakout-MinAtar', steps, 64, 5e-3, 8, 'relu'))),
        num_steps=steps)
    report[f'{steps}_steps'] = scaling.summary(runs)
  return report


# The gymnax games PureJaxRL's `ppo.py` runs as shipped, each in the
# setting it ships for its kind: classic control (its CartPole config,
# 500k steps) and MinAtar (its MinAtar config). Ours: the preset of that
# setting, on each game.
PPO_GAMES = {
    'CartPole-v1': 'classic_control', 'Acrobot-v1': 'classic_control',
    'MountainCar-v0': 'classic_control',
    'Breakout-MinAtar': 'minatar', 'Asterix-MinAtar': 'minatar',
    'Freeway-MinAtar': 'minatar', 'SpaceInvaders-MinAtar': 'minatar',
}
_PPO_SETTINGS = {
    # (our preset, PureJaxRL's envs, lr, minibatches, activation)
    'classic_control': ('ppo_gymnax_cartpole', 4, 2.5e-4, 4, 'tanh'),
    'minatar': ('ppo_breakout_minatar', 64, 5e-3, 8, 'relu'),
}


def ppo_games(root: str, repeats: int, run: scaling.Runner,
              minatar_steps: int,
              games: Sequence[str] = tuple(PPO_GAMES)) -> Dict[str, Any]:
  """PPO on each of `games` in PureJaxRL's setting for its kind: ours (both
  arithmetics) beside PureJaxRL's `ppo.py` with only its `ENV_NAME`
  changed."""
  report = {'setting': {
      'classic_control': '4 envs x 128 steps, 4 epochs x 4 minibatches, lr '
                         '2.5e-4 annealed, separate tanh 64-64 actor and '
                         'critic, 500k steps (ppo_gymnax_cartpole)',
      'minatar': f'64 envs x 128 steps, 4 epochs x 8 minibatches, lr 5e-3 '
                 f'annealed, separate ReLU 64-64 actor and critic, '
                 f'{minatar_steps:,} steps (ppo_breakout_minatar)',
      'arms': 'ours as PureJaxRL (time limits end the returns) and as by '
              'default (bootstrapped)'}}
  for game in games:
    kind = PPO_GAMES[game]
    preset, envs, learning_rate, minibatches, activation = (
        _PPO_SETTINGS[kind])
    steps = 500_000 if kind == 'classic_control' else minatar_steps
    runs = peer_runs.both_arithmetics(
        root, repeats, run, preset, 'purejaxrl', scaling.Measurement(dict(
            program='purejaxrl_ppo', config=purejaxrl_ppo_settings(
                game, steps, envs, learning_rate, minibatches, activation))),
        env=f'gymnax:{game}', num_steps=steps)
    report[game] = {'kind': kind, 'steps': steps, **scaling.summary(runs)}
  return report


def ppo_rnn(root: str, repeats: int,
            run: scaling.Runner) -> Dict[str, Any]:
  """A GRU PPO on gymnax CartPole-v1, PureJaxRL `ppo_rnn.py`'s setting."""
  steps = 500_000
  config = purejaxrl_ppo_settings('CartPole-v1', steps, 4, 2.5e-4, 4, 'relu')
  del config['ACTIVATION']  # ppo_rnn.py's network is ReLU, not a setting.
  runs = peer_runs.both_arithmetics(
      root, repeats, run, 'ppo_rnn_gymnax_cartpole', 'purejaxrl',
      scaling.Measurement(dict(program='purejaxrl_ppo_rnn',
                                          config=config)))
  return {'setting': '4 envs x 128 steps, 4 epochs x 4 minibatches of '
                     'whole sequences, lr 2.5e-4 annealed, a 128 ReLU '
                     'embedding, a 128 GRU, 128-ReLU actor and critic '
                     'heads, 500k steps; ours as PureJaxRL (time limits '
                     'end the returns) and as by default (bootstrapped)',
          **scaling.summary(runs)}


def python_loop(root: str, repeats: int, run: scaling.Runner,
                steps: int, num_envs: int) -> Dict[str, Any]:
  """The Python loop with 1 and `num_envs` environments, and SBX's PPO."""
  common = dict(program='ours', agent='ppo', env='gym:CartPole-v1',
                loop='python', num_episodes=None, num_steps=steps,
                export_tflite=False)
  runs = scaling.measure(root, {
      'one_env': scaling.Measurement(dict(common)),
      f'{num_envs}_envs': scaling.Measurement(dict(
          common, num_envs=num_envs)),
      f'sbx_{num_envs}_envs': scaling.Measurement(dict(
          program='sbx', algorithm='ppo', config={
              'env': 'CartPole-v1', 'num_envs': num_envs,
              'total_timesteps': steps})),
  }, repeats, run)
  for name_runs in runs.values():
    for figures in name_runs:
      figures.setdefault('seconds', figures.get('run_seconds'))
  rate = lambda figures: figures['env_steps'] / figures['seconds']
  for mine, one, sbx in zip(runs[f'{num_envs}_envs'], runs['one_env'],
                            runs[f'sbx_{num_envs}_envs']):
    mine['speedup_over_one_env'] = one['seconds'] / mine['seconds']
    # Per step: SBX rounds the budget up to whole rollouts (2048 x N).
    mine['speedup_over_sbx'] = rate(mine) / rate(sbx)
  return {'setting': f'PPO defaults, {steps} steps, default evaluations '
                     f'(ours; SBX: none), no export',
          **scaling.summary(runs)}


def define_flags() -> None:
  """The peer suites' flags (`benchmarks.suites` defines them when run as
  a program)."""
  flags.DEFINE_string('peer_python', peer_runs.DEFAULT_PEER_PYTHON,
                      'peers_*: the interpreter of the peers\' environment '
                      '(scripts/setup_peer_venv.sh makes it).')
  flags.DEFINE_string('purejaxrl_source', None,
                      'peers_gymnax_cartpole, peers_breakout_minatar, '
                      'peers_ppo_games, peers_ppo_rnn: a checkout of '
                      'github.com/luchris429/purejaxrl.')
  flags.DEFINE_list('minatar_steps', ['1000000', '10000000'],
                    'peers_breakout_minatar: training steps of each '
                    'comparison.')
  flags.DEFINE_list('ppo_games', None,
                    'peers_ppo_games: the games to run (gymnax ids without '
                    '"gymnax:"); default every one of peers.PPO_GAMES.')
  flags.DEFINE_integer('games_minatar_steps', 1_000_000,
                       'peers_ppo_games: training steps per MinAtar run.',
                       lower_bound=8192)
  flags.DEFINE_string('purejaxql_source', None,
                      'peers_pqn_breakout_minatar and '
                      'peers_pqn_rnn_memory_chain: a checkout of '
                      'github.com/mttga/purejaxql.')
  flags.DEFINE_integer('pqn_minatar_steps', 2_000_000,
                       'peers_pqn_breakout_minatar: training steps per run '
                       '(its schedules fitted to them).', lower_bound=4096)
  flags.DEFINE_string('pgx_source', None,
                      'peers_alphazero_connect_four: a checkout of '
                      'github.com/sotetsuk/pgx (the folder holding '
                      'examples/alphazero/).')
  flags.DEFINE_integer('alphazero_iterations', 300,
                       'peers_alphazero_connect_four: iterations per run '
                       '(each 64 games x 16 moves of self-play, then one '
                       'pass in 4 minibatches); ours trains as many '
                       'updates.', lower_bound=1)
  flags.DEFINE_list('seeds_per_program', ['16', '64'],
                    'peers_ppo_seeds: seeds in one program of each pair of '
                    'arms (ours, rejax\'s).')
  flags.DEFINE_integer('sac_steps', 5_000, 'peers_sac_pendulum: training '
                       'steps per run.', lower_bound=1_001)
  flags.DEFINE_integer('python_loop_steps', 40_000, 'peers_python_loop: '
                       'training steps per run.', lower_bound=1)
  navix_peer.define_flags()
  craftax_peer.define_flags()
  jumanji_peer.define_flags()
  xminigrid_peer.define_flags()
  popgym_arcade_peer.define_flags()


def suites(root: str, flags_values: Any) -> Dict[str, Callable[[], Any]]:
  """The peer suites, by name, bound to their flag values."""
  f = flags_values
  run = peer_runs.Peers(f.peer_python, f.purejaxrl_source,
                        f.purejaxql_source, f.pgx_source,
                        f.craftax_baselines_source,
                        f.xminigrid_source).run
  return {
      **rejax_peer.suites(root, f, run),
      **purejaxql_peer.suites(root, f, run),
      **pgx_alphazero_peer.suites(root, f, run),
      **navix_peer.suites(root, f, run),
      **craftax_peer.suites(root, f, run),
      **jumanji_peer.suites(root, f, run),
      **xminigrid_peer.suites(root, f, run),
      **popgym_arcade_peer.suites(root, f, run),
      'peers_gymnax_cartpole': lambda: gymnax_cartpole(root, f.seeds, run),
      'peers_breakout_minatar': lambda: breakout_minatar(
          root, f.seeds, run, [int(n) for n in f.minatar_steps]),
      'peers_ppo_games': lambda: ppo_games(
          root, f.seeds, run, f.games_minatar_steps,
          f.ppo_games or tuple(PPO_GAMES)),
      'peers_ppo_rnn': lambda: ppo_rnn(root, f.seeds, run),
      'peers_python_loop': lambda: python_loop(
          root, f.seeds, run, f.python_loop_steps, f.vector_envs),
  }
