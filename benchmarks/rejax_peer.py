"""The RLax agent family beside rejax's implementations, in rejax's settings.

Peer suites of `benchmarks.suites` (run as `benchmarks.peers` runs them:
alternating rounds in fresh processes, rejax in its own environment;
`benchmarks.peer_runs`):

  peers_sac_pendulum: SAC on gymnax Pendulum-v1, batch 256, one SGD step
    per environment step, `--sac_steps` steps: ours against rejax's SAC
    with the same sizes, 256-256 networks (our default) and 64-64
    (rejax's).
  peers_dqn_cartpole: DQN on gymnax CartPole-v1 in rejax's setting (its
    configs/gymnax/cartpole.yaml, with the plain 64-64 ReLU Q-network), at
    its minibatch of 100 and at our agent's 32: training steps per second
    of ours and of rejax's DQN.
  peers_td3_pendulum: TD3 on gymnax Pendulum-v1 in rejax's setting
    (its configs/gymnax/pendulum.yaml, with ReLU and no observation
    normalisation, which ours lacks), and again at our agent's minibatch
    of 256: training steps per second of ours and of rejax's TD3.
  peers_pqn_cartpole: PQN on gymnax CartPole-v1 in rejax's setting (our
    `pqn_gymnax_cartpole` preset, 524,288 steps): training steps per
    second of ours and of rejax's PQN with the same settings.
  peers_ppo_continuous: PPO over continuous actions on gymnax
    Pendulum-v1 and MountainCarContinuous-v0, each in rejax's setting for
    it (its configs/gymnax/pendulum.yaml and continuous_mountaincar.yaml;
    tanh networks and raw observations on both sides): training steps per
    second of ours and of rejax's PPO.
  peers_ppo_seeds: many seeds in one program: PPO on gymnax CartPole-v1 in
    rejax's setting (its configs/gymnax/cartpole.yaml), `--seeds_per_program`
    seeds (16 and 64) trained at once: ours with `--num_seeds`, rejax's as
    its README does it, `jax.vmap(algo.train)` over their keys; training
    steps per second of all the seeds together.
"""

from typing import Any, Callable, Dict, Sequence, Tuple

from benchmarks import peer_runs
from benchmarks import scaling

SUITES = ('peers_pqn_cartpole', 'peers_sac_pendulum', 'peers_dqn_cartpole',
          'peers_td3_pendulum', 'peers_ppo_seeds', 'peers_ppo_continuous')

# rejax's PPO on CartPole-v1 (its configs/gymnax/cartpole.yaml), by key.
REJAX_PPO_CARTPOLE = {
    'env': 'CartPole-v1', 'agent_kwargs': {'activation': 'tanh'},
    'num_envs': 5, 'num_steps': 100, 'num_epochs': 5, 'num_minibatches': 5,
    'learning_rate': 7.5e-4, 'max_grad_norm': 0.5,
    'total_timesteps': 100_000, 'gamma': 0.99, 'gae_lambda': 0.95,
    'clip_eps': 0.2, 'ent_coef': 0.01, 'vf_coef': 0.5}


def pqn_cartpole(root: str, repeats: int,
                 run: scaling.Runner) -> Dict[str, Any]:
  """PQN on gymnax CartPole-v1: ours and rejax's, rejax's setting."""
  steps = 524_288
  runs = peer_runs.both_arithmetics(
      root, repeats, run, 'pqn_gymnax_cartpole', 'rejax',
      scaling.Measurement(dict(
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
                     'rejax (time limits end the targets, each gradient '
                     'entry clipped at 10) and as by default '
                     '(bootstrapped, the global norm clipped)',
          **scaling.summary(runs)}


def _pairs(root: str, repeats: int, run: scaling.Runner,
           pairs: Dict[str, Tuple[scaling.Measurement, scaling.Measurement]]
          ) -> scaling.Runs:
  """Each pair `{suffix: (ours, rejax's)}` measured as arms `ours<suffix>`
  and `rejax<suffix>`, in turn, each of our runs with its speed over
  rejax's in the same round."""
  runs = scaling.measure(root, {
      f'{who}{suffix}': measurement
      for suffix, pair in pairs.items()
      for who, measurement in zip(('ours', 'rejax'), pair)}, repeats, run)
  for suffix in pairs:
    peer_runs.ratios(runs, f'ours{suffix}', 'steps_per_second',
                     (f'rejax{suffix}',), 'speed')
  return runs


# SAC's widths in each pair of arms: our agent's default, and rejax's.
SAC_WIDTHS = {'': (256, 256), '_64_64': (64, 64)}


def sac_pendulum(root: str, repeats: int, run: scaling.Runner,
                 steps: int) -> Dict[str, Any]:
  """SAC on gymnax Pendulum-v1: ours and rejax's, the same sizes, at our
  agent's default widths and at rejax's."""
  pairs = {}
  for suffix, sizes in SAC_WIDTHS.items():
    pairs[suffix] = (scaling.Measurement(dict(
        program='ours', preset='sac_pendulum', num_steps=steps,
        hidden_sizes=sizes, **peer_runs.TRAINING_ONLY)), scaling.Measurement(dict(
        program='rejax', algorithm='sac', config={
            'env': 'Pendulum-v1', 'num_envs': 1, 'batch_size': 256,
            'num_epochs': 1, 'fill_buffer': 1000,
            'buffer_size': 100_000, 'learning_rate': 1e-3,
            'gamma': 0.99, 'polyak': 0.995, 'total_timesteps': steps,
            'eval_freq': steps, 'skip_initial_evaluation': True,
            # rejax's SAC reads its sizes here, not from agent_kwargs.
            'hidden_layer_sizes': list(sizes)})))
  runs = _pairs(root, repeats, run, pairs)
  return {'setting': f'256-256 networks (our agent\'s default; the _64_64 '
                     f'arms: 64-64, rejax\'s), batch 256, one SGD step per '
                     f'environment step after 1000, lr 1e-3, {steps} steps',
          **scaling.summary(runs)}


# DQN's minibatch in each pair of arms: rejax's setting's, and our
# agent's default.
DQN_BATCHES = {'': 100, '_batch_32': 32}


def dqn_cartpole(root: str, repeats: int,
                 run: scaling.Runner) -> Dict[str, Any]:
  """DQN on gymnax CartPole-v1: ours and rejax's, rejax's setting, at its
  minibatch of 100 and at our agent's 32."""
  steps = 100_000
  pairs = {}
  for suffix, batch in DQN_BATCHES.items():
    pairs[suffix] = (scaling.Measurement(dict(
        program='ours', agent='dqn', env='gymnax:CartPole-v1',
        num_steps=steps, hidden_sizes=(64, 64), agent_config={
            'num_actors': 10, 'update_period': 1,
            'sgd_steps_per_update': 5, 'batch_size': batch,
            'replay_capacity': 50_000, 'min_replay_size': 5_000,
            'learning_rate': 1e-3, 'loss': 'l2', 'max_grad_norm': 10.0,
            'target_update_period': 5, 'target_update_rate': 0.02,
            'epsilon_decay_steps': steps // 2, 'double_q': True,
            **peer_runs.peer_arithmetic('rejax')},
        **peer_runs.TRAINING_ONLY)), scaling.Measurement(dict(
        program='rejax', algorithm='dqn', config={
            'env': 'CartPole-v1', 'agent': 'QNetwork',
            'agent_kwargs': {'activation': 'relu'}, 'num_envs': 10,
            'buffer_size': 50_000, 'fill_buffer': 5_000,
            'batch_size': batch, 'max_grad_norm': 10,
            'learning_rate': 1e-3, 'num_epochs': 5, 'polyak': 0.98,
            'eps_start': 1.0, 'eps_end': 0.05,
            'exploration_fraction': 0.5, 'gamma': 0.99, 'ddqn': True,
            'normalize_observations': False, 'total_timesteps': steps,
            'eval_freq': steps, 'skip_initial_evaluation': True})))
  runs = _pairs(root, repeats, run, pairs)
  return {'setting': f'10 envs, 5 SGD steps of 100 (the _batch_32 arms: '
                     f'32, our agent\'s default) per step of them, a 50k '
                     f'replay learning from 5k, lr 1e-3, L2 loss, double Q, '
                     f'Polyak targets (τ 0.02 every 5 SGD steps), ε 1 → '
                     f'0.05 over {steps // 2} steps, each gradient entry '
                     f'clipped at 10 and time limits ending the targets '
                     f'(ours: gradient_clipping=each_entry, '
                     f'bootstrap_time_limits=false), a 64-64 ReLU '
                     f'Q-network, {steps} steps',
          **scaling.summary(runs)}


# TD3's minibatch in each pair of arms: rejax's setting's, and our
# agent's default.
TD3_BATCHES = {'': 100, '_batch_256': 256}


def td3_pendulum(root: str, repeats: int,
                 run: scaling.Runner) -> Dict[str, Any]:
  """TD3 on gymnax Pendulum-v1: ours and rejax's, rejax's setting, at its
  minibatch of 100 and at our agent's 256."""
  steps = 10_000
  pairs = {}
  for suffix, batch in TD3_BATCHES.items():
    # rejax gives its noises in action units; Pendulum's half-range is 2.
    pairs[suffix] = (scaling.Measurement(dict(
        program='ours', preset='td3_pendulum', num_steps=steps,
        hidden_sizes=(64, 64), agent_config={
            'actor_learning_rate': 1e-3, 'critic_learning_rate': 1e-3,
            'batch_size': batch, 'replay_capacity': 10_000,
            'min_replay_size': 1000, 'tau': 0.05, 'policy_delay': 2,
            'exploration_noise': 0.15, 'target_noise': 0.1,
            'target_noise_clip': 0.25},
        **peer_runs.TRAINING_ONLY)), scaling.Measurement(dict(
        program='rejax', algorithm='td3', config={
            'env': 'Pendulum-v1', 'num_envs': 1, 'buffer_size': 10_000,
            'fill_buffer': 1000, 'batch_size': batch, 'learning_rate': 1e-3,
            'num_epochs': 1, 'gamma': 0.99, 'polyak': 0.95,
            'exploration_noise': 0.3, 'target_noise': 0.2,
            'target_noise_clip': 0.5, 'policy_delay': 2,
            'normalize_observations': False,
            'actor_kwargs': {'activation': 'relu'},
            'critic_kwargs': {'activation': 'relu'},
            'total_timesteps': steps, 'eval_freq': steps,
            'skip_initial_evaluation': True})))
  runs = _pairs(root, repeats, run, pairs)
  return {'setting': f'64-64 ReLU networks, batch 100 (rejax\'s; the '
                     f'_batch_256 arms: 256, our agent\'s default), one '
                     f'critic step per environment step after 1000 random '
                     f'ones, the actor and targets (τ 0.05) every second, '
                     f'lr 1e-3, exploration noise 0.3, target noise 0.2 '
                     f'clipped at 0.5, {steps} steps',
          **scaling.summary(runs)}


# rejax's PPO setting of each continuous-action game (its
# configs/gymnax/<file>.yaml), by our arm's suffix: (game, envs, lr, γ,
# max grad norm, steps).
PPO_CONTINUOUS = {
    '_pendulum': ('Pendulum-v1', 100, 1e-3, 0.995, 10.0, 150_000),
    '_mountaincar_continuous': ('MountainCarContinuous-v0', 5, 3e-4, 0.9,
                                10.0, 200_000),
}


def ppo_continuous(root: str, repeats: int,
                   run: scaling.Runner) -> Dict[str, Any]:
  """PPO over continuous actions beside rejax's, in its setting for each
  game: 100 steps per environment, 10 epochs x 10 minibatches, λ 0.95."""
  pairs = {}
  for suffix, (game, envs, lr, gamma, clip, steps) in PPO_CONTINUOUS.items():
    pairs[suffix] = (scaling.Measurement(dict(
        program='ours', agent='ppo', env=f'gymnax:{game}',
        network='mlp_gaussian_actor_critic', num_steps=steps,
        agent_config={
            'batch_size': envs, 'unroll_length': 100, 'num_epochs': 10,
            'num_minibatches': 10, 'learning_rate': lr, 'discount': gamma,
            'gae_lambda': 0.95, 'clip_epsilon': 0.2,
            'value_clip_epsilon': 0.2, 'entropy_cost': 0.0,
            'value_cost': 0.5, 'max_grad_norm': clip,
            **peer_runs.peer_arithmetic('rejax')},
        **peer_runs.TRAINING_ONLY)), scaling.Measurement(dict(
            program='rejax', algorithm='ppo', config={
                'env': game, 'agent_kwargs': {'activation': 'tanh'},
                'num_envs': envs, 'num_steps': 100, 'num_epochs': 10,
                'num_minibatches': 10, 'learning_rate': lr,
                'max_grad_norm': clip, 'total_timesteps': steps,
                'gamma': gamma, 'gae_lambda': 0.95, 'clip_eps': 0.2,
                'ent_coef': 0.0, 'vf_coef': 0.5,
                'normalize_observations': False, 'eval_freq': steps,
                'skip_initial_evaluation': True})))
  runs = _pairs(root, repeats, run, pairs)
  return {'setting': 'rejax\'s PPO setting for each game: Pendulum 100 '
                     'envs, lr 1e-3, γ 0.995, 150k steps; '
                     'MountainCarContinuous 5 envs, lr 3e-4, γ 0.9, 200k '
                     'steps; both 100 steps per env, 10 epochs x 10 '
                     'minibatches, λ 0.95, clip 0.2, no entropy bonus, '
                     '64-64 tanh actor (a learned log-std) and critic, raw '
                     'observations, time limits ending the returns, each '
                     'gradient entry clipped at 10 (ours: '
                     'gradient_clipping=each_entry). Not the same '
                     'arithmetic: rejax steps its actor and critic with '
                     'an Adam each on its own loss; ours one Adam on the '
                     'sum',
          **scaling.summary(runs)}


def ppo_seeds(root: str, repeats: int, run: scaling.Runner,
              counts: Sequence[int]) -> Dict[str, Any]:
  """PPO on gymnax CartPole-v1 in rejax's setting, `counts` seeds in one
  program each: ours and rejax's vmapped `train`."""
  steps = REJAX_PPO_CARTPOLE['total_timesteps']
  measurements = {}
  for n in counts:
    measurements[f'ours_{n}_seeds'] = scaling.Measurement(dict(
        program='ours', agent='ppo', env='gymnax:CartPole-v1',
        network='mlp_separate_actor_critic', num_seeds=n, num_steps=steps,
        agent_config={
            'batch_size': 5, 'unroll_length': 100, 'num_epochs': 5,
            'num_minibatches': 5, 'learning_rate': 7.5e-4,
            'max_grad_norm': 0.5, 'discount': 0.99, 'gae_lambda': 0.95,
            'clip_epsilon': 0.2, 'value_clip_epsilon': 0.2,
            'entropy_cost': 0.01, 'value_cost': 0.5,
            **peer_runs.peer_arithmetic('rejax')},
        **peer_runs.TRAINING_ONLY))
    measurements[f'rejax_{n}_seeds'] = scaling.Measurement(dict(
        program='rejax', algorithm='ppo', num_seeds=n,
        config=dict(REJAX_PPO_CARTPOLE, eval_freq=steps,
                    skip_initial_evaluation=True)))
  runs = scaling.measure(root, measurements, repeats, run)
  for n in counts:
    peer_runs.ratios(runs, f'ours_{n}_seeds', 'steps_per_second',
                     (f'rejax_{n}_seeds',), 'speed')
  return {'setting': f'5 envs x 100 steps, 5 epochs x 5 minibatches, lr '
                     f'7.5e-4, 64-64 tanh actor and critic, {steps:,} steps '
                     f'per seed; time limits end the returns and each '
                     f'gradient entry is clipped at 0.5 on both sides '
                     f'(ours: gradient_clipping=each_entry). Not the same '
                     f'arithmetic: rejax steps its actor and critic with '
                     f'an Adam each on its own loss; ours one Adam on the '
                     f'sum',
          **scaling.summary(runs)}


def suites(root: str, flags_values: Any, run: scaling.Runner
          ) -> Dict[str, Callable[[], Any]]:
  """The suites of this module, by name, bound to their flag values."""
  f = flags_values
  return {
      'peers_pqn_cartpole': lambda: pqn_cartpole(root, f.seeds, run),
      'peers_sac_pendulum': lambda: sac_pendulum(root, f.seeds, run,
                                                 f.sac_steps),
      'peers_dqn_cartpole': lambda: dqn_cartpole(root, f.seeds, run),
      'peers_td3_pendulum': lambda: td3_pendulum(root, f.seeds, run),
      'peers_ppo_continuous': lambda: ppo_continuous(root, f.seeds, run),
      'peers_ppo_seeds': lambda: ppo_seeds(
          root, f.seeds, run, [int(n) for n in f.seeds_per_program]),
  }
