"""Our canonical runs beside the single-file JAX scripts people compare with.

Run through `experiments.benchmark` (`--suites=peers_gymnax_cartpole,...`).
Every configuration runs `--seeds` times in fresh processes, the
configurations taken in turn each round (`scaling_benchmarks.measure`), so
that the machine's noise falls on all of them; figures are medians, ratios
are taken within a round. Training speed excludes compilation, reported
apart. The peers run in their own environment (`scripts/setup_peer_venv.sh`
makes `.venv-peers`; `--peer_python` points at its interpreter), never in
ours, through `scripts/peer_programs.py`; PureJaxRL is a checkout
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
  peers_ppo_rnn: a recurrent PPO on gymnax CartPole-v1 in PureJaxRL's
    `ppo_rnn.py` setting (our `ppo_rnn_gymnax_cartpole` preset: its GRU
    network, 500k steps): training steps per second of ours and of
    PureJaxRL's `ppo_rnn.py` with the same settings.
  peers_sac_pendulum: SAC on gymnax Pendulum-v1, 256-256 networks, batch
    256, one SGD step per environment step, `--sac_steps` steps: ours
    against rejax's SAC with the same sizes.
  peers_td3_pendulum: TD3 on gymnax Pendulum-v1 in rejax's setting
    (its configs/gymnax/pendulum.yaml, with ReLU and no observation
    normalisation, which ours lacks): training steps per second of ours
    and of rejax's TD3.
  peers_pqn_cartpole: PQN on gymnax CartPole-v1 in rejax's setting (our
    `pqn_gymnax_cartpole` preset, 524,288 steps): training steps per
    second of ours and of rejax's PQN with the same settings.
  peers_python_loop: the Python loop, PPO on Gymnasium CartPole-v1,
    `--python_loop_steps` steps with the default evaluations (no export),
    with 1 and `--vector_envs` environments, against SBX's PPO with
    `--vector_envs` environments (SB3's defaults, no evaluation): seconds
    of the whole run, and its steps per second against SBX's (which rounds
    the budget up to whole rollouts).
"""

import json
import os
import subprocess
import tempfile
import time
from typing import Any, Callable, Dict, List, Sequence

from experiments import command_benchmarks
from experiments import scaling_benchmarks

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEER_PROGRAMS = os.path.join(_REPO, 'scripts', 'peer_programs.py')
DEFAULT_PEER_PYTHON = os.path.join(_REPO, '.venv-peers', 'bin', 'python')
SUITES = ('peers_gymnax_cartpole', 'peers_breakout_minatar',
          'peers_ppo_rnn', 'peers_pqn_cartpole', 'peers_sac_pendulum',
          'peers_td3_pendulum', 'peers_python_loop')
# Training alone: no periodic evaluation, a short final one, no export.
_TRAINING_ONLY = dict(eval_every_steps=0, eval_every_episodes=0,
                      eval_episodes=10, export_tflite=False)


class PeerSetupError(ValueError):
  """The peers' environment or PureJaxRL's checkout is missing."""


def check_setup(peer_python: str, purejaxrl_source: str,
                suites: Sequence[str]) -> None:
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
                     'peers_ppo_rnn'}
  if needs_purejaxrl & set(suites) and not os.path.isfile(
      os.path.join(purejaxrl_source or '', 'purejaxrl', 'ppo.py')):
    raise PeerSetupError(
        f'--purejaxrl_source: {purejaxrl_source!r} is no checkout of '
        f'luchris429/purejaxrl (no purejaxrl/ppo.py); clone it and pass '
        f'its path.')


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


class Peers:
  """Runs the measurements of the peer suites (`measure`'s runner)."""

  def __init__(self, peer_python: str, purejaxrl_source: str):
    self._python = peer_python
    self._source = purejaxrl_source

  def _peer(self, program: str, seed: int, **options: Any
           ) -> Dict[str, Any]:
    """`scripts/peer_programs.py program` in the peers' environment: its
    figures, wall seconds and peak memory."""
    command = [self._python, PEER_PROGRAMS, program, f'--seed={seed}']
    for key, value in options.items():
      text = value if isinstance(value, str) else json.dumps(value)
      command.append(f'--{key}={text}')
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=_REPO, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    stdout, stderr = process.communicate()
    seconds = time.perf_counter() - start
    if process.returncode != 0:
      raise scaling_benchmarks.ChildFailed(
          f'peer program {program!r} failed ({process.returncode}): '
          f'{" ".join(command)}\n{stderr[-3000:]}')
    figures = scaling_benchmarks.parse_child_output(stdout)
    figures['process_seconds'] = seconds
    return figures

  def run(self, root: str, name: str,
          measurement: scaling_benchmarks.Measurement,
          seed: int) -> Dict[str, Any]:
    """One measurement (`settings['program']` says whose) with `seed`."""
    settings = dict(measurement.settings)
    program = settings.pop('program')
    if program == 'ours':
      return scaling_benchmarks.run_child(
          root, name, scaling_benchmarks.Measurement(settings), seed)
    if program == 'our_command':
      workdir = tempfile.mkdtemp(prefix=f'{name}-', dir=root)
      return command_benchmarks.timed_command(
          list(settings['args']) + [f'--workdir={workdir}', f'--seed={seed}'])
    if program == 'purejaxrl_script':
      figures = self._peer(program, seed, source=self._source)
      figures['seconds'] = figures['process_seconds']
      return figures
    if program in ('purejaxrl_ppo', 'purejaxrl_ppo_rnn'):
      return self._peer(program, seed, source=self._source,
                        settings=settings['config'])
    return self._peer(program, seed, algorithm=settings['algorithm'],
                      settings=settings['config'])


def _ratios(runs: Dict[str, List[Dict[str, Any]]], ours: str, key: str,
            peers: Sequence[str], prefix: str) -> None:
  """Sets `<prefix>_over_<peer>` in each of our runs: our `key` over the
  peer's in the same round."""
  for peer in peers:
    for mine, theirs in zip(runs[ours], runs[peer]):
      mine[f'{prefix}_over_{peer}'] = mine[key] / theirs[key]


def gymnax_cartpole(root: str, repeats: int,
                    run: scaling_benchmarks.Runner) -> Dict[str, Any]:
  """PPO on gymnax CartPole-v1, PureJaxRL's setting: ours and the peers."""
  steps = 500_000
  runs = scaling_benchmarks.measure(root, {
      'ours': scaling_benchmarks.Measurement(dict(
          program='ours', preset='ppo_gymnax_cartpole', **_TRAINING_ONLY)),
      'purejaxrl': scaling_benchmarks.Measurement(dict(
          program='purejaxrl_ppo', config=purejaxrl_ppo_settings(
              'CartPole-v1', steps, 4, 2.5e-4, 4, 'tanh'))),
      'rejax': scaling_benchmarks.Measurement(dict(
          program='rejax', algorithm='ppo', config={
              'env': 'CartPole-v1', 'num_envs': 4, 'num_steps': 128,
              'num_epochs': 4, 'num_minibatches': 4,
              'learning_rate': 2.5e-4, 'max_grad_norm': 0.5,
              'total_timesteps': steps, 'eval_freq': steps,
              'skip_initial_evaluation': True, 'gamma': 0.99,
              'gae_lambda': 0.95, 'clip_eps': 0.2, 'ent_coef': 0.01,
              'vf_coef': 0.5, 'agent_kwargs': {'activation': 'tanh'}})),
      'our_default_command': scaling_benchmarks.Measurement(dict(
          program='our_command',
          args=('--agent=ppo', '--env=gymnax:CartPole-v1'))),
      'purejaxrl_script': scaling_benchmarks.Measurement(dict(
          program='purejaxrl_script')),
  }, repeats, run)
  _ratios(runs, 'ours', 'steps_per_second', ('purejaxrl', 'rejax'),
          'speed')
  _ratios(runs, 'our_default_command', 'seconds', ('purejaxrl_script',),
          'seconds')
  return {'setting': '4 envs x 128 steps, 4 epochs x 4 minibatches, lr '
                     '2.5e-4 annealed, separate tanh 64-64 actor and '
                     'critic, 500k steps; rejax anneals no learning rate '
                     'and evaluates once (128 episodes) at the end',
          'commands': {
              'our_default_command': 'python -m experiments.train '
                                     '--agent=ppo --env=gymnax:CartPole-v1',
              'purejaxrl_script': 'python purejaxrl/ppo.py (DEBUG on, as '
                                  'shipped; printing muted)'},
          **scaling_benchmarks.summary(runs)}


def breakout_minatar(root: str, repeats: int, run: scaling_benchmarks.Runner,
                     step_counts: Sequence[int]) -> Dict[str, Any]:
  """PPO on Breakout-MinAtar, PureJaxRL's MinAtar setting."""
  report = {'setting': '64 envs x 128 steps, 4 epochs x 8 minibatches, lr '
                       '5e-3 annealed, separate ReLU 64-64 actor and critic'}
  for steps in step_counts:
    runs = scaling_benchmarks.measure(root, {
        'ours': scaling_benchmarks.Measurement(dict(
            program='ours', preset='ppo_breakout_minatar', num_steps=steps,
            **_TRAINING_ONLY)),
        'purejaxrl': scaling_benchmarks.Measurement(dict(
            program='purejaxrl_ppo', config=purejaxrl_ppo_settings(
                'Breakout-MinAtar', steps, 64, 5e-3, 8, 'relu'))),
    }, repeats, run)
    _ratios(runs, 'ours', 'steps_per_second', ('purejaxrl',), 'speed')
    report[f'{steps}_steps'] = scaling_benchmarks.summary(runs)
  return report


def _both_arithmetics(
    root: str, repeats: int, run: scaling_benchmarks.Runner, preset: str,
    peer: str, peer_measurement: scaling_benchmarks.Measurement
) -> Dict[str, List[Dict[str, Any]]]:
  """Our `preset` twice per round, with the peer's arithmetic (time
  limits end the returns: 'ours') and as by default (bootstrapping
  through them, which takes the value of every step's next observation:
  'ours_bootstrapping'), beside `peer`; each with its speed over the
  peer's in the same round."""
  runs = scaling_benchmarks.measure(root, {
      'ours': scaling_benchmarks.Measurement(dict(
          program='ours', preset=preset,
          agent_config={'bootstrap_time_limits': False}, **_TRAINING_ONLY)),
      'ours_bootstrapping': scaling_benchmarks.Measurement(dict(
          program='ours', preset=preset, **_TRAINING_ONLY)),
      peer: peer_measurement,
  }, repeats, run)
  for ours in ('ours', 'ours_bootstrapping'):
    _ratios(runs, ours, 'steps_per_second', (peer,), 'speed')
  return runs


def ppo_rnn(root: str, repeats: int,
            run: scaling_benchmarks.Runner) -> Dict[str, Any]:
  """A GRU PPO on gymnax CartPole-v1, PureJaxRL `ppo_rnn.py`'s setting."""
  steps = 500_000
  config = purejaxrl_ppo_settings('CartPole-v1', steps, 4, 2.5e-4, 4, 'relu')
  del config['ACTIVATION']  # ppo_rnn.py's network is ReLU, not a setting.
  runs = _both_arithmetics(
      root, repeats, run, 'ppo_rnn_gymnax_cartpole', 'purejaxrl',
      scaling_benchmarks.Measurement(dict(program='purejaxrl_ppo_rnn',
                                          config=config)))
  return {'setting': '4 envs x 128 steps, 4 epochs x 4 minibatches of '
                     'whole sequences, lr 2.5e-4 annealed, a 128 ReLU '
                     'embedding, a 128 GRU, 128-ReLU actor and critic '
                     'heads, 500k steps; ours as PureJaxRL (time limits '
                     'end the returns) and as by default (bootstrapped)',
          **scaling_benchmarks.summary(runs)}


def pqn_cartpole(root: str, repeats: int,
                 run: scaling_benchmarks.Runner) -> Dict[str, Any]:
  """PQN on gymnax CartPole-v1: ours and rejax's, rejax's setting."""
  steps = 524_288
  runs = _both_arithmetics(
      root, repeats, run, 'pqn_gymnax_cartpole', 'rejax',
      scaling_benchmarks.Measurement(dict(
          program='rejax', algorithm='pqn', config={
              'env': 'CartPole-v1', 'num_envs': 16, 'num_steps': 128,
              'num_epochs': 5, 'num_minibatches': 16,
              'learning_rate': 3e-4, 'max_grad_norm': 10, 'eps_start': 1.0,
              'eps_end': 0.05, 'exploration_fraction': 0.5, 'gamma': 0.99,
              'td_lambda': 0.9, 'total_timesteps': steps,
              'eval_freq': steps, 'skip_initial_evaluation': True})))
  return {'setting': '16 envs x 128 steps, 5 epochs x 16 minibatches, lr '
                     '3e-4, λ 0.9, ε 1 → 0.05 over 262,144 steps, a 64-64 '
                     'LayerNorm ReLU Q-network, 524,288 steps; ours as '
                     'rejax (time limits end the targets) and as by '
                     'default (bootstrapped)',
          **scaling_benchmarks.summary(runs)}


def sac_pendulum(root: str, repeats: int, run: scaling_benchmarks.Runner,
                 steps: int) -> Dict[str, Any]:
  """SAC on gymnax Pendulum-v1: ours and rejax's, the same sizes."""
  runs = scaling_benchmarks.measure(root, {
      'ours': scaling_benchmarks.Measurement(dict(
          program='ours', preset='sac_pendulum', num_steps=steps,
          hidden_sizes=(256, 256), **_TRAINING_ONLY)),
      'rejax': scaling_benchmarks.Measurement(dict(
          program='rejax', algorithm='sac', config={
              'env': 'Pendulum-v1', 'num_envs': 1, 'batch_size': 256,
              'num_epochs': 1, 'fill_buffer': 1000,
              'buffer_size': 100_000, 'learning_rate': 1e-3,
              'gamma': 0.99, 'polyak': 0.995, 'total_timesteps': steps,
              'eval_freq': steps, 'skip_initial_evaluation': True,
              # rejax's SAC reads its sizes here, not from agent_kwargs.
              'hidden_layer_sizes': [256, 256]})),
  }, repeats, run)
  _ratios(runs, 'ours', 'steps_per_second', ('rejax',), 'speed')
  return {'setting': f'256-256 networks, batch 256, one SGD step per '
                     f'environment step after 1000, lr 1e-3, {steps} steps',
          **scaling_benchmarks.summary(runs)}


def td3_pendulum(root: str, repeats: int,
                 run: scaling_benchmarks.Runner) -> Dict[str, Any]:
  """TD3 on gymnax Pendulum-v1: ours and rejax's, rejax's setting."""
  steps = 10_000
  # rejax gives its noises in action units; Pendulum's half-range is 2.
  runs = scaling_benchmarks.measure(root, {
      'ours': scaling_benchmarks.Measurement(dict(
          program='ours', preset='td3_pendulum', num_steps=steps,
          hidden_sizes=(64, 64), agent_config={
              'actor_learning_rate': 1e-3, 'critic_learning_rate': 1e-3,
              'batch_size': 100, 'replay_capacity': 10_000,
              'min_replay_size': 1000, 'tau': 0.05, 'policy_delay': 2,
              'exploration_noise': 0.15, 'target_noise': 0.1,
              'target_noise_clip': 0.25},
          **_TRAINING_ONLY)),
      'rejax': scaling_benchmarks.Measurement(dict(
          program='rejax', algorithm='td3', config={
              'env': 'Pendulum-v1', 'num_envs': 1, 'buffer_size': 10_000,
              'fill_buffer': 1000, 'batch_size': 100, 'learning_rate': 1e-3,
              'num_epochs': 1, 'gamma': 0.99, 'polyak': 0.95,
              'exploration_noise': 0.3, 'target_noise': 0.2,
              'target_noise_clip': 0.5, 'policy_delay': 2,
              'normalize_observations': False,
              'actor_kwargs': {'activation': 'relu'},
              'critic_kwargs': {'activation': 'relu'},
              'total_timesteps': steps, 'eval_freq': steps,
              'skip_initial_evaluation': True})),
  }, repeats, run)
  _ratios(runs, 'ours', 'steps_per_second', ('rejax',), 'speed')
  return {'setting': f'64-64 ReLU networks, batch 100, one critic step per '
                     f'environment step after 1000 random ones, the actor '
                     f'and targets (τ 0.05) every second, lr 1e-3, '
                     f'exploration noise 0.3, target noise 0.2 clipped at '
                     f'0.5, {steps} steps',
          **scaling_benchmarks.summary(runs)}


def python_loop(root: str, repeats: int, run: scaling_benchmarks.Runner,
                steps: int, num_envs: int) -> Dict[str, Any]:
  """The Python loop with 1 and `num_envs` environments, and SBX's PPO."""
  common = dict(program='ours', agent='ppo', env='gym:CartPole-v1',
                loop='python', num_episodes=None, num_steps=steps,
                export_tflite=False)
  runs = scaling_benchmarks.measure(root, {
      'one_env': scaling_benchmarks.Measurement(dict(common)),
      f'{num_envs}_envs': scaling_benchmarks.Measurement(dict(
          common, num_envs=num_envs)),
      f'sbx_{num_envs}_envs': scaling_benchmarks.Measurement(dict(
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
          **scaling_benchmarks.summary(runs)}


def suites(root: str, flags_values: Any) -> Dict[str, Callable[[], Any]]:
  """The suites of this module, by name, bound to their flag values."""
  f = flags_values
  run = Peers(f.peer_python, f.purejaxrl_source).run
  return {
      'peers_gymnax_cartpole': lambda: gymnax_cartpole(root, f.seeds, run),
      'peers_breakout_minatar': lambda: breakout_minatar(
          root, f.seeds, run, [int(n) for n in f.minatar_steps]),
      'peers_ppo_rnn': lambda: ppo_rnn(root, f.seeds, run),
      'peers_pqn_cartpole': lambda: pqn_cartpole(root, f.seeds, run),
      'peers_sac_pendulum': lambda: sac_pendulum(root, f.seeds, run,
                                                 f.sac_steps),
      'peers_td3_pendulum': lambda: td3_pendulum(root, f.seeds, run),
      'peers_python_loop': lambda: python_loop(
          root, f.seeds, run, f.python_loop_steps, f.vector_envs),
  }
