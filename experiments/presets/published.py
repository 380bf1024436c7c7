"""Presets in a published source's own setting, for reproductions.

Each preset here is another project's configuration of an agent, carried
over setting by setting (and what could not be carried over is said in
`benchmarks/reproductions.py`, which runs them beside the source's
figure): RL Baselines3 Zoo's hyperparameter files, CleanRL's single-file
scripts, gymnax-blines' per-game configurations. None is a default: the
tuned presets of `experiments/presets/library.py` stay the pairs' own.
"""

from experiments.presets import preset as preset_lib

Preset = preset_lib.Preset

_MEASURED = 'measured by python -m benchmarks.reproductions --seeds=5'

# RL Baselines3 Zoo (DLR-RM/rl-baselines3-zoo, hyperparams/<algo>.yml at
# 22e3ff2) on Stable-Baselines3's defaults (DLR-RM/stable-baselines3 at
# e05d2db; sb3-contrib for QR-DQN). SB3's DQN: Huber loss, gradients
# clipped at 10, the target network's max (no double Q), Adam's default ε;
# QR-DQN the same without clipping. `train_freq` environment steps per
# update with `gradient_steps` SGD steps each (-1: as many as the steps);
# SB3 copies the target every `target_update_interval` environment steps,
# here counted in the SGD steps that many environment steps take.
_ZOO_DQN = {'double_q': False, 'loss': 'huber', 'max_grad_norm': 10.0,
            'num_actors': 1}
_ZOO_CARTPOLE = {
    **_ZOO_DQN, 'learning_rate': 2.3e-3, 'batch_size': 64,
    # The Zoo's 100k replay holds the whole 50k budget, as this one does.
    'replay_capacity': 50_000, 'min_replay_size': 1_000, 'discount': 0.99,
    # Copies every 10 steps while collecting 256: each phase of 128 SGD
    # steps learns against the parameters it started from.
    'update_period': 256, 'sgd_steps_per_update': 128,
    'target_update_period': 128,
    'epsilon_decay_steps': 8_000, 'epsilon_end': 0.04}  # 0.16 of 50k.
_ZOO_ACROBOT = {
    **_ZOO_DQN, 'learning_rate': 6.3e-4, 'batch_size': 128,
    # learning_starts 0: SGD from the first update's 4 transitions.
    'replay_capacity': 50_000, 'min_replay_size': 4, 'discount': 0.99,
    'update_period': 4, 'sgd_steps_per_update': 4,
    'target_update_period': 250,
    'epsilon_decay_steps': 12_000, 'epsilon_end': 0.1}  # 0.12 of 100k.
_ZOO_MOUNTAINCAR = {
    **_ZOO_DQN, 'learning_rate': 4e-3, 'batch_size': 128,
    'replay_capacity': 10_000, 'min_replay_size': 1_000, 'discount': 0.98,
    'update_period': 16, 'sgd_steps_per_update': 8,
    'target_update_period': 300,  # 600 environment steps.
    'epsilon_decay_steps': 24_000, 'epsilon_end': 0.07}  # 0.2 of 120k.
_ZOO_QR = {'loss': 'quantile_huber', 'max_grad_norm': None}
_ZOO_SOURCE = 'RL Baselines3 Zoo hyperparams/{}.yml ({}); ' + _MEASURED

RL_ZOO = tuple(
    Preset(f'{agent}_rlzoo_{game.lower()}', agent, f'gymnax:{env}',
           {**setting, **(extra if agent == 'qr_dqn' else {})},
           hidden_sizes=(256, 256), num_steps=steps,
           source=_ZOO_SOURCE.format('qrdqn' if agent == 'qr_dqn' else agent,
                                     env))
    for agent in ('dqn', 'qr_dqn')
    for game, env, setting, steps, extra in (
        ('CartPole', 'CartPole-v1', _ZOO_CARTPOLE, 50_000,
         {**_ZOO_QR, 'num_quantiles': 10}),
        ('Acrobot', 'Acrobot-v1', _ZOO_ACROBOT, 100_000,
         {**_ZOO_QR, 'num_quantiles': 25}),
        ('MountainCar', 'MountainCar-v0', _ZOO_MOUNTAINCAR, 120_000,
         {**_ZOO_QR, 'num_quantiles': 25}))
) + (
    # SB3's SAC defaults at the Zoo's step size, 1e-3 for the actor, the
    # critics and the temperature (one optimizer rate in SB3): a 256-256
    # ReLU network, batch 256, τ 0.005, the temperature learned from 1
    # towards −|A|, SGD from 100 stored transitions. The Zoo's 1M replay
    # never fills in 20k steps: ours holds the whole budget, the same
    # transitions.
    Preset('sac_rlzoo_pendulum', 'sac', 'gymnax:Pendulum-v1',
           {'actor_learning_rate': 1e-3, 'critic_learning_rate': 1e-3,
            'temperature_learning_rate': 1e-3, 'min_replay_size': 100,
            'replay_capacity': 20_000},
           hidden_sizes=(256, 256), num_steps=20_000,
           source=_ZOO_SOURCE.format('sac', 'Pendulum-v1')),
    # The Zoo's TD3: γ 0.98, a 200k replay (which holds the whole 20k
    # budget, as ours does), uniformly random actions for
    # the first 10k steps, Gaussian exploration noise 0.1 of the action
    # range's half, lr 1e-3, 400-300 networks; SB3's batch 256, τ 0.005,
    # the actor every 2 critic steps, target noise 0.2 clipped at 0.5.
    Preset('td3_rlzoo_pendulum', 'td3', 'gymnax:Pendulum-v1',
           {'actor_learning_rate': 1e-3, 'critic_learning_rate': 1e-3,
            'discount': 0.98, 'replay_capacity': 20_000,
            'min_replay_size': 10_000, 'exploration_noise': 0.1},
           hidden_sizes=(400, 300), num_steps=20_000,
           source=_ZOO_SOURCE.format('td3', 'Pendulum-v1')),
    # The Zoo's PPO on CartPole: 8 environments × 32 steps in one minibatch
    # of 256, 20 epochs, λ 0.8, γ 0.98, no entropy bonus, lr 1e-3 annealed;
    # SB3's separate 64-64 tanh actor and critic, no value clipping.
    Preset('ppo_rlzoo_cartpole', 'ppo', 'gymnax:CartPole-v1',
           {'learning_rate': 1e-3, 'anneal_learning_rate': True,
            'batch_size': 8, 'unroll_length': 32, 'num_minibatches': 1,
            'num_epochs': 20, 'gae_lambda': 0.8, 'discount': 0.98,
            'entropy_cost': 0.0, 'value_clip_epsilon': None},
           network='mlp_separate_actor_critic', hidden_sizes=(64, 64),
           num_steps=100_000, source=_ZOO_SOURCE.format('ppo', 'CartPole-v1')),
    # The Zoo's A2C on CartPole: SB3's A2C defaults (5 steps × 8
    # environments, lr 7e-4, no GAE, γ 0.99, value cost 0.5, gradients
    # clipped at 0.5, separate 64-64 tanh actor and critic) without the
    # entropy bonus.
    Preset('a2c_rlzoo_cartpole', 'a2c', 'gymnax:CartPole-v1',
           {'learning_rate': 7e-4, 'batch_size': 8, 'unroll_length': 5,
            'td_lambda': 1.0, 'discount': 0.99, 'entropy_cost': 0.0,
            'value_cost': 0.5, 'max_grad_norm': 0.5},
           network='mlp_separate_actor_critic', hidden_sizes=(64, 64),
           num_steps=500_000,
           source=_ZOO_SOURCE.format('a2c', 'CartPole-v1')),
)

# CleanRL's c51.py (cleanrl/c51.py Args defaults at fe8d8a0): its dqn.py's
# schedule (an SGD step of 128 every 10 steps from 10k, a 10k replay, the
# target copied every 500 steps, ε 1 → 0.05 over 250k, lr 2.5e-4, 120-84
# ReLU) with 101 atoms on [−100, 100], the target network's own argmax and
# Adam's ε at 0.01 / 128.
_CLEANRL_C51 = {
    'learning_rate': 2.5e-4, 'batch_size': 128, 'num_actors': 1,
    'update_period': 10, 'sgd_steps_per_update': 1, 'replay_capacity': 10_000,
    'min_replay_size': 10_000, 'target_update_period': 50,
    'epsilon_decay_steps': 250_000, 'double_q': False, 'max_grad_norm': None,
    'num_atoms': 101, 'v_min': -100.0, 'v_max': 100.0,
    'adam_epsilon': 0.01 / 128}
# CleanRL's pqn.py (Args defaults at fe8d8a0): 4 environments × 128 steps,
# 4 epochs × 4 minibatches, lr 2.5e-4 annealed, Q(λ) with λ 0.65, ε 1 →
# 0.05 over 250k, gradients clipped at 10, LayerNorm 120-84 ReLU, returns
# ended at time limits.
_CLEANRL_PQN = {
    'learning_rate': 2.5e-4, 'anneal_learning_rate': True, 'batch_size': 4,
    'unroll_length': 128, 'num_epochs': 4, 'num_minibatches': 4,
    'td_lambda': 0.65, 'discount': 0.99, 'epsilon_decay_steps': 250_000,
    'epsilon_end': 0.05, 'max_grad_norm': 10.0,
    'bootstrap_time_limits': False}

CLEANRL = tuple(
    Preset(f'{agent}_cleanrl_{game.lower()}', agent, f'gymnax:{env}',
           setting, network=network, hidden_sizes=(120, 84),
           num_steps=500_000,
           source=f'CleanRL {agent}.py (cleanrl/{agent}.py Args defaults); '
           + _MEASURED)
    for agent, setting, network in (
        ('c51', _CLEANRL_C51, None),
        ('pqn', _CLEANRL_PQN, 'mlp_layer_norm_q_values'))
    for game, env in (('CartPole', 'CartPole-v1'), ('Acrobot', 'Acrobot-v1'),
                      ('MountainCar', 'MountainCar-v0')))

# gymnax-blines' Asterix PPO (agents/Asterix-MinAtar/ppo.yaml at 3f029d6):
# 64 environments × 128 steps, 4 epochs × 8 minibatches, lr 5e-4 throughout
# (its warm-up runs from 5e-4 to 5e-4), Adam's ε 1e-5, γ 0.999, λ 0.95,
# clip 0.2 for the policy and the value, entropy 0.01, gradients clipped at
# 0.5, separate 256-256 ReLU actor and critic, returns ended at time limits.
GYMNAX_BLINES = (
    Preset('ppo_blines_asterix_minatar', 'ppo', 'gymnax:Asterix-MinAtar',
           {'learning_rate': 5e-4, 'batch_size': 64, 'unroll_length': 128,
            'num_epochs': 4, 'num_minibatches': 8, 'discount': 0.999,
            'gae_lambda': 0.95, 'clip_epsilon': 0.2,
            'value_clip_epsilon': 0.2, 'entropy_cost': 0.01,
            'value_cost': 0.5, 'max_grad_norm': 0.5,
            'bootstrap_time_limits': False},
           network='mlp_separate_actor_critic_relu', hidden_sizes=(256, 256),
           num_steps=10_000_000,
           source='gymnax-blines agents/Asterix-MinAtar/ppo.yaml; '
           + _MEASURED),
)

PRESETS = RL_ZOO + CLEANRL + GYMNAX_BLINES
