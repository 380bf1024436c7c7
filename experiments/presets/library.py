"""The built-in presets: every agent's tuned settings on each of our games.

The one place these settings live: `train` and `compare` use a pair's
default preset, and `benchmarks.learning` measures each of them
against its target (docs/benchmarks/learning.md). Each says how it was found
and what it measured; a preset's numbers come from the command in its
`source`. `PRESETS` also holds the published sources' settings of
`experiments/presets/published.py`, which reproductions run.
"""

from experiments.presets import preset as preset_lib
from experiments.presets import published

Preset = preset_lib.Preset

_LEARNING_BENCHMARK = ('python -m benchmarks.learning --seeds=3 '
                       '(docs/benchmarks/learning.md, "Catch and CartPole")')

_TIME_TO_MODEL = ('python -m benchmarks.suites --suites=time_to_model '
                  '(docs/benchmarks/learning.md, "Plane Strike presets")')

_IMPALA = ('python -m benchmarks.learning --seeds=3 '
           '--only=catch/impala,plane_strike/impala '
           '(docs/benchmarks/learning.md, "IMPALA")')

_DQN_FAMILY = ('python -m benchmarks.learning --seeds=3 '
               '--only=catch/c51,catch/qr_dqn,plane_strike/c51,'
               'plane_strike/qr_dqn (docs/benchmarks/learning.md, '
               '"The DQN family")')

CATCH = (
    Preset('reinforce_catch', 'reinforce', 'catch',
           {'discount': 0.99, 'batch_size': 4}, num_steps=20_000,
           default=True, source=_LEARNING_BENCHMARK),
    Preset('dqn_catch', 'dqn', 'catch', {}, num_steps=20_000, default=True,
           source=_LEARNING_BENCHMARK),
    Preset('a2c_catch', 'a2c', 'catch', {}, num_steps=20_000, default=True,
           source=_LEARNING_BENCHMARK),
    # The return distributions: 4 steps of 1 environment and 2 SGD steps
    # per update; C51's atoms span Catch's returns, [-1, 1].
    Preset('c51_catch', 'c51', 'catch',
           {'v_min': -1.0, 'v_max': 1.0, 'update_period': 4,
            'sgd_steps_per_update': 2},
           num_steps=20_000, default=True, source=_DQN_FAMILY),
    Preset('qr_dqn_catch', 'qr_dqn', 'catch',
           {'num_quantiles': 32, 'update_period': 4,
            'sgd_steps_per_update': 2},
           num_steps=20_000, default=True, source=_DQN_FAMILY),
    Preset('pqn_catch', 'pqn', 'catch',
           {'unroll_length': 16, 'batch_size': 16, 'num_minibatches': 4,
            'num_epochs': 4, 'epsilon_decay_steps': 10_000,
            'learning_rate': 1e-3},
           num_steps=20_000, default=True, source=_LEARNING_BENCHMARK),
    Preset('impala_catch', 'impala', 'catch',
           {'batch_size': 2, 'learning_rate': 3e-3}, num_steps=20_000,
           default=True, source=_IMPALA),
    Preset('ppo_catch', 'ppo', 'catch',
           {'unroll_length': 32, 'learning_rate': 1e-3, 'num_epochs': 10},
           num_steps=20_000, default=True, source=_LEARNING_BENCHMARK),
)

CARTPOLE = (
    # CleanRL's CartPole DQN setting: L2 loss, SGD every 10 steps, target
    # copy every 500 steps, learning from 10k, ε decayed over 250k steps.
    Preset('dqn_cartpole', 'dqn', 'cartpole',
           {'learning_rate': 2.5e-4, 'batch_size': 128, 'update_period': 10,
            'target_update_period': 50, 'epsilon_decay_steps': 250_000,
            'min_replay_size': 10_000, 'loss': 'l2', 'max_grad_norm': None},
           num_steps=500_000, default=True,
           source='CleanRL dqn.py CartPole-v1 hyperparameters; measured by '
           + _LEARNING_BENCHMARK),
    Preset('a2c_cartpole', 'a2c', 'cartpole', {}, num_steps=500_000,
           default=True, source=_LEARNING_BENCHMARK),
    Preset('ppo_cartpole', 'ppo', 'cartpole', {'anneal_learning_rate': True},
           num_steps=500_000, default=True,
           source='the common CartPole PPO setting (PureJaxRL, CleanRL); '
           'measured by ' + _LEARNING_BENCHMARK),
)

PLANE_STRIKE = (
    Preset('reinforce_plane_strike', 'reinforce', 'plane_strike', {},
           num_episodes=100_000, default=True,
           source=('the default experiment of ./run.sh when it trained '
                   'REINFORCE; measured by ' + _TIME_TO_MODEL)),
    Preset('ppo_plane_strike', 'ppo', 'plane_strike',
           {'discount': 0.5, 'batch_size': 64, 'unroll_length': 16,
            'learning_rate': 1e-3},
           num_steps=1_000_000, default=True,
           source=('tuned on this 2-core CPU (γ = 0.5 rewards finding the '
                   'plane early); measured by ' + _TIME_TO_MODEL)),
)

_TUNED_HERE = ('tuned on this 2-core CPU: python -m experiments.train '
               '--preset=none --num_steps=2000000 --num_seeds=2 with the '
               'config below')

# DQN's Plane Strike setting: many environments per update (16 actors × 4
# steps), 4 SGD steps each; the return distributions share it.
_DQN_PLANE_STRIKE = {
    'discount': 0.5, 'num_actors': 16, 'update_period': 4, 'batch_size': 64,
    'sgd_steps_per_update': 4, 'replay_capacity': 100_000,
    'min_replay_size': 5_000, 'epsilon_decay_steps': 500_000,
    'target_update_period': 500, 'learning_rate': 3e-4}
# With γ = 0.5 and rewards of 0 or 1, every return lies in [0, 2].
_C51_PLANE_STRIKE = dict(_DQN_PLANE_STRIKE, v_min=0.0, v_max=2.0)

PLANE_STRIKE += (
    Preset('a2c_plane_strike', 'a2c', 'plane_strike',
           {'discount': 0.5, 'batch_size': 32, 'unroll_length': 16,
            'learning_rate': 1e-3},
           num_steps=2_000_000, default=True, source=_TUNED_HERE),
    # A2C's setting; the actors act with the learner's latest params.
    Preset('impala_plane_strike', 'impala', 'plane_strike',
           {'discount': 0.5, 'batch_size': 32, 'unroll_length': 16,
            'learning_rate': 1e-3},
           num_steps=2_000_000, default=True, source=_IMPALA),
    Preset('dqn_plane_strike', 'dqn', 'plane_strike', _DQN_PLANE_STRIKE,
           num_steps=2_000_000, default=True, source=_TUNED_HERE),
    Preset('c51_plane_strike', 'c51', 'plane_strike', _C51_PLANE_STRIKE,
           num_steps=2_000_000, default=True,
           source='DQN\'s Plane Strike setting; measured by ' + _DQN_FAMILY),
    Preset('qr_dqn_plane_strike', 'qr_dqn', 'plane_strike',
           dict(_DQN_PLANE_STRIKE, num_quantiles=32), num_steps=2_000_000,
           default=True,
           source='DQN\'s Plane Strike setting; measured by ' + _DQN_FAMILY),
    # Rainbow without noisy networks, as Dopamine's: C51 with 3-step
    # targets, prioritised replay, double Q and dueling heads.
    Preset('rainbow_plane_strike', 'c51', 'plane_strike',
           dict(_C51_PLANE_STRIKE, n_step=3, prioritized_replay=True),
           network='mlp_dueling_q_distribution', num_steps=2_000_000,
           source='C51\'s Plane Strike setting with Rainbow\'s parts; '
           'measured by python -m experiments.train --agent=c51 '
           '--env=plane_strike --preset=rainbow_plane_strike --num_seeds=3'),
)

PLANE_STRIKE += (
    # 64 environments × 16 steps per update, 4 epochs × 4 minibatches.
    Preset('pqn_plane_strike', 'pqn', 'plane_strike',
           {'discount': 0.5, 'batch_size': 64, 'unroll_length': 16,
            'num_minibatches': 4, 'num_epochs': 4, 'learning_rate': 1e-3,
            'epsilon_decay_steps': 500_000, 'td_lambda': 0.65},
           num_steps=2_000_000, default=True, source=_TUNED_HERE),
)

# gymnax suites (the `suites` extra), in PureJaxRL's reference settings.
_PUREJAXRL_MINATAR = {'learning_rate': 5e-3, 'anneal_learning_rate': True,
                      'batch_size': 64, 'unroll_length': 128,
                      'num_minibatches': 8}
_PUREJAXRL_MINATAR_SOURCE = (
    'PureJaxRL ppo.py MinAtar config (64 envs x 128 steps, lr 5e-3 '
    'annealed, 4 epochs x 8 minibatches, separate 64-64 ReLU actor and '
    'critic); measured by ')
GYMNAX = (
    Preset('ppo_gymnax_cartpole', 'ppo', 'gymnax:CartPole-v1',
           {'anneal_learning_rate': True},
           network='mlp_separate_actor_critic', num_steps=500_000,
           default=True,
           source='PureJaxRL ppo.py CartPole-v1 config, the same as CleanRL '
           'ppo.py\'s classic-control defaults (4 envs x 128 steps, '
           '4 epochs x 4 minibatches, lr 2.5e-4 annealed, separate 64-64 '
           'tanh actor and critic); measured by python -m '
           'benchmarks.suites --suites=gymnax_cartpole'),
    # CleanRL's ppo.py classic-control setting is PureJaxRL's CartPole one.
    Preset('ppo_gymnax_acrobot', 'ppo', 'gymnax:Acrobot-v1',
           {'anneal_learning_rate': True},
           network='mlp_separate_actor_critic', num_steps=500_000,
           default=True,
           source='CleanRL ppo.py classic-control defaults (as '
           'ppo_gymnax_cartpole); measured by python -m '
           'benchmarks.reproductions --seeds=5 --only='
           'ppo_gymnax_acrobot/gymnax:Acrobot-v1'),
    Preset('ppo_breakout_minatar', 'ppo', 'gymnax:Breakout-MinAtar',
           _PUREJAXRL_MINATAR, network='mlp_separate_actor_critic_relu',
           num_steps=10_000_000, default=True,
           source=_PUREJAXRL_MINATAR_SOURCE + 'python -m '
           'benchmarks.suites --suites=breakout_minatar'),
) + tuple(
    # The same setting on the other MinAtar games the gymnax README gives
    # PPO results for (docs/benchmarks/reproductions.md).
    Preset(f'ppo_{name}_minatar', 'ppo', f'gymnax:{game}-MinAtar',
           _PUREJAXRL_MINATAR, network='mlp_separate_actor_critic_relu',
           num_steps=10_000_000, default=True,
           source=_PUREJAXRL_MINATAR_SOURCE + 'python -m '
           f'benchmarks.reproductions --only=ppo_{name}_minatar/'
           f'gymnax:{game}-MinAtar')
    for name, game in (('asterix', 'Asterix'), ('freeway', 'Freeway'),
                       ('space_invaders', 'SpaceInvaders')))

# Continuous control: gymnax's Pendulum-v1, solved at a greedy
# return of about -200. Measured by the learning benchmark's command.
_PENDULUM_SOURCE = ('tuned on this 2-core CPU; measured by '
                    'python -m benchmarks.learning --seeds=3 '
                    '--only=gymnax:Pendulum-v1/ppo,gymnax:Pendulum-v1/sac')
CONTINUOUS = (
    # A plain Gaussian (clipped by the game), rewards scaled to ~1 a step,
    # γ = 0.95 (Pendulum's horizon is short; the SB3 zoo uses 0.9), no
    # value clipping (values of tens), 16 envs x 128 steps, 10 epochs of
    # 64-step minibatches.
    Preset('ppo_pendulum', 'ppo', 'gymnax:Pendulum-v1',
           {'learning_rate': 1e-3, 'anneal_learning_rate': True,
            'batch_size': 16, 'unroll_length': 128, 'num_epochs': 10,
            'num_minibatches': 32, 'discount': 0.95, 'entropy_cost': 0.0,
            'value_clip_epsilon': None, 'reward_scale': 0.1},
           num_steps=300_000, default=True, source=_PENDULUM_SOURCE),
    # The SAC defaults with every step size at 1e-3.
    Preset('sac_pendulum', 'sac', 'gymnax:Pendulum-v1',
           {'actor_learning_rate': 1e-3, 'critic_learning_rate': 1e-3,
            'temperature_learning_rate': 1e-3},
           num_steps=20_000, default=True, source=_PENDULUM_SOURCE),
    # The TD3 defaults with both step sizes at 1e-3, as SAC's.
    Preset('td3_pendulum', 'td3', 'gymnax:Pendulum-v1',
           {'actor_learning_rate': 1e-3, 'critic_learning_rate': 1e-3},
           num_steps=20_000, default=True,
           source=('the SAC preset\'s step sizes; measured by python -m '
                   'benchmarks.learning --seeds=3 '
                   '--only=gymnax:Pendulum-v1/td3')),
    # Brax (the `control` extra): 32 envs x 32 steps, 4 epochs x 8
    # minibatches, rewards (1 a step alive) scaled to 0.1.
    Preset('ppo_brax_inverted_pendulum', 'ppo', 'brax:inverted_pendulum',
           {'learning_rate': 3e-4, 'batch_size': 32, 'unroll_length': 32,
            'num_epochs': 4, 'num_minibatches': 8, 'entropy_cost': 0.0,
            'value_clip_epsilon': None, 'reward_scale': 0.1},
           num_steps=200_000, default=True,
           source=('tuned on this 2-core CPU; measured by python '
                   '-m benchmarks.learning --seeds=3 '
                   '--only=brax:inverted_pendulum/ppo')),
)

# DQN on gymnax's classic-control games with discrete actions. The
# published reference is CleanRL dqn.py's 3-seed means at 500k steps
# (CartPole-v1 488.69, Acrobot-v1 -91.54, MountainCar-v0 -194.95;
# docs.cleanrl.dev/rl-algorithms/dqn); each pair's learning-benchmark
# target is that figure (CartPole: the usual 475).
_CLEANRL_DQN = {
    'learning_rate': 2.5e-4, 'batch_size': 128, 'num_actors': 1,
    'update_period': 10, 'sgd_steps_per_update': 1, 'replay_capacity': 10_000,
    'min_replay_size': 10_000, 'target_update_period': 50,
    'epsilon_decay_steps': 250_000, 'double_q': False, 'loss': 'l2',
    'max_grad_norm': None}
_CLEANRL_DQN_SOURCE = ('CleanRL dqn.py (cleanrl/dqn.py Args defaults); '
                       'measured by python -m benchmarks.reproductions '
                       '--seeds=5')
_DQN_CLASSIC_CONTROL = ('python -m benchmarks.learning --seeds=3 '
                        '--only=gymnax:CartPole-v1/dqn,gymnax:Acrobot-v1/dqn,'
                        'gymnax:MountainCar-v0/dqn')
# Acrobot and MountainCar: one setting for both, tuned on this 2-core CPU
# from rejax's gymnax DQN configs (both: 5 SGD steps of 100 transitions per
# step of the envs, learning from 1k, target copy every 200, gradients
# clipped at 10, ε decayed over half the budget, a 10k replay, a dueling
# head; Acrobot: 10 envs, lr 1e-3; MountainCar: 5 envs, lr 5e-3, γ 1). Ours:
# 5 envs, lr 1e-3, γ 0.99 and a 100k replay (with γ 1, lr 5e-3 or a 10k
# replay, MountainCar seeds lost or never found the goal), and the plain
# 64-64 ReLU Q-network.
_REJAX_CLASSIC_CONTROL = {
    'learning_rate': 1e-3, 'batch_size': 100, 'num_actors': 5,
    'update_period': 1, 'sgd_steps_per_update': 5,
    'replay_capacity': 100_000, 'min_replay_size': 1_000,
    'target_update_period': 200, 'epsilon_decay_steps': 100_000}
_REJAX_SOURCE = ('rejax gymnax DQN configs (Acrobot-v1, MountainCar-v0), '
                 'tuned on this 2-core CPU with python -m experiments.train '
                 '--num_seeds=3 runs (what differs: '
                 'experiments/presets/library.py); measured by '
                 + _DQN_CLASSIC_CONTROL)
DQN_CLASSIC_CONTROL = (
    # PureJaxRL dqn.py's CartPole-v1 config: 10 envs, one SGD step of 128
    # per step of the 10 (every 10 transitions), target copy every 50 SGD
    # steps (500 transitions), a 10k replay learning from 10k, ε 1 → 0.05
    # over 250k steps, lr 2.5e-4, L2 loss, no clipping. Ours adds double Q
    # (the agent's default) and keeps the 64-64 ReLU net (theirs: 120-84).
    Preset('dqn_gymnax_cartpole', 'dqn', 'gymnax:CartPole-v1',
           {'learning_rate': 2.5e-4, 'batch_size': 128, 'num_actors': 10,
            'update_period': 1, 'target_update_period': 50,
            'epsilon_decay_steps': 250_000, 'min_replay_size': 10_000,
            'loss': 'l2', 'max_grad_norm': None},
           num_steps=500_000, default=True,
           source='PureJaxRL dqn.py CartPole-v1 config; measured by '
           + _DQN_CLASSIC_CONTROL),
    Preset('dqn_gymnax_acrobot', 'dqn', 'gymnax:Acrobot-v1',
           _REJAX_CLASSIC_CONTROL, num_steps=200_000, default=True,
           source=_REJAX_SOURCE),
    # CleanRL dqn.py's own setting (its Args defaults): one environment,
    # one SGD step of 128 every 10 steps from step 10k, a 10k replay, a
    # target copy every 500 steps (50 SGD steps), ε 1 → 0.05 over half of
    # 500k steps, lr 2.5e-4, squared TD error, max of the target net (no
    # double Q), no gradient clipping, 120-84 ReLU; time limits bootstrap
    # there as here. Its loss is the mean squared error, ours ½ of it: the
    # same Adam steps but for ε's scale.
    Preset('dqn_cleanrl_acrobot', 'dqn', 'gymnax:Acrobot-v1',
           _CLEANRL_DQN, hidden_sizes=(120, 84), num_steps=500_000,
           source=_CLEANRL_DQN_SOURCE),
    Preset('dqn_cleanrl_cartpole', 'dqn', 'gymnax:CartPole-v1',
           _CLEANRL_DQN, hidden_sizes=(120, 84), num_steps=500_000,
           source=_CLEANRL_DQN_SOURCE),
    Preset('dqn_gymnax_mountaincar', 'dqn', 'gymnax:MountainCar-v0',
           _REJAX_CLASSIC_CONTROL, num_steps=200_000, default=True,
           source=_REJAX_SOURCE),
)

# PQN: rejax's CartPole-v1 setting (its configs/gymnax/cartpole.yaml),
# which the agent's defaults are: 16 envs x 128 steps, 5 epochs x 16
# minibatches, lr 3e-4, λ 0.9, ε 1 → 0.05 over half the budget.
# purejaxql's MinAtar setting (config/alg/pqn_minatar.yaml): 128 envs x 32
# steps, 2 epochs x 32 minibatches, lr 5e-4 annealed, λ 0.65, ε 1 → 0.05
# over the first tenth of 10M steps, MinAtar's convolution with LayerNorm.
_PUREJAXQL_MINATAR = {'batch_size': 128, 'unroll_length': 32,
                      'num_epochs': 2, 'num_minibatches': 32,
                      'learning_rate': 5e-4, 'anneal_learning_rate': True,
                      'td_lambda': 0.65, 'epsilon_decay_steps': 1_000_000}
PQN = (
    Preset('pqn_gymnax_cartpole', 'pqn', 'gymnax:CartPole-v1', {},
           num_steps=524_288, default=True,
           source='rejax configs/gymnax/cartpole.yaml (pqn); measured by '
           'python -m benchmarks.suites --suites=peers_pqn_cartpole'),
) + tuple(
    Preset(f'pqn_{name}_minatar', 'pqn', f'gymnax:{game}-MinAtar',
           _PUREJAXQL_MINATAR, network='conv_layer_norm_q_values',
           num_steps=10_000_000, default=True,
           source='purejaxql config/alg/pqn_minatar.yaml; Breakout '
           'measured at 2M steps beside purejaxql by python -m '
           'benchmarks.suites --suites=peers_pqn_breakout_minatar, the '
           'other games not yet')
    for name, game in (('breakout', 'Breakout'), ('asterix', 'Asterix'),
                       ('freeway', 'Freeway'),
                       ('space_invaders', 'SpaceInvaders')))

# A policy with memory for gymnax's MemoryChain (remember the first
# observation's context until the query at the end).
MEMORY = (
    Preset('ppo_memory_chain', 'ppo', 'gymnax:MemoryChain-bsuite',
           {'learning_rate': 1e-3}, network='lstm_actor_critic',
           num_steps=200_000, default=True,
           source='tuned on this 2-core CPU (the PPO defaults with lr 1e-3 '
           'and a 64-64 LSTM actor-critic); measured by python -m '
           'benchmarks.memory --seeds=3'),
    Preset('ppo_rnn_gymnax_cartpole', 'ppo', 'gymnax:CartPole-v1',
           {'anneal_learning_rate': True},
           network='gru_actor_critic_relu_heads', num_steps=500_000,
           source='PureJaxRL ppo_rnn.py CartPole-v1 config (4 envs x 128 '
           'steps, 4 epochs x 4 minibatches of whole sequences, lr 2.5e-4 '
           'annealed, a 128 ReLU embedding, a 128 GRU, 128-ReLU actor and '
           'critic heads); measured by python -m benchmarks.suites '
           '--suites=peers_ppo_rnn'),
)

PRESETS = (CATCH + CARTPOLE + PLANE_STRIKE + GYMNAX + DQN_CLASSIC_CONTROL
           + PQN + CONTINUOUS + MEMORY + published.PRESETS)
