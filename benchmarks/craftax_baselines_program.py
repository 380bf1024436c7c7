"""Craftax_Baselines' PPO (`ppo.py`, or with `script` "ppo_rnn" its
recurrent PPO, `ppo_rnn.py`), timed, then its policy played; run by
`benchmarks/peer_programs.py craftax_baselines_ppo` in the peers' own
environment (`.venv-peers`), never the project's: it imports a checkout of
github.com/MichaelTMatthews/Craftax_Baselines and Craftax, never this
project (`peer_programs` loads it by its path).
"""

import importlib
import os
import sys
from typing import Any, Callable, Dict, Tuple

# `ppo.py`'s command-line defaults (Craftax_Baselines at 7ce36fa), under
# the upper-case names its `make_train` reads; `ppo_rnn.py`'s are the same
# (it reads no ACTIVATION: its network is ReLU). Weights & Biases and the
# exploration bonuses (ICM, E3B) stay off, as they are by default.
DEFAULTS = dict(
    ENV_NAME='Craftax-Symbolic-v1', NUM_ENVS=1024, TOTAL_TIMESTEPS=10**9,
    LR=2e-4, NUM_STEPS=64, UPDATE_EPOCHS=4, NUM_MINIBATCHES=8, GAMMA=0.99,
    GAE_LAMBDA=0.8, CLIP_EPS=0.2, ENT_COEF=0.01, VF_COEF=0.5,
    MAX_GRAD_NORM=1.0, ACTIVATION='tanh', ANNEAL_LR=True, DEBUG=False,
    JIT=True, USE_WANDB=False, SAVE_POLICY=False, NUM_REPEATS=1,
    LAYER_SIZE=512, USE_OPTIMISTIC_RESETS=True, OPTIMISTIC_RESET_RATIO=16,
    EXPLORATION_UPDATE_EPOCHS=4, TRAIN_ICM=False, ICM_REWARD_COEFF=1.0,
    ICM_LR=3e-4, ICM_FORWARD_LOSS_COEF=1.0, ICM_INVERSE_LOSS_COEF=1.0,
    ICM_LAYER_SIZE=256, ICM_LATENT_SIZE=32, USE_E3B=False,
    E3B_REWARD_COEFF=1.0, E3B_LAMBDA=0.1)
SCRIPTS = ('ppo', 'ppo_rnn')
# Settings of ours, not the script's: kept for `results`.
OURS = ('eval_episodes', 'eval_policy', 'script')


def _play(network, params, env_name: str, policy: str, episodes: int,
          seed: int, layer_size: int = 0):
  """Mean return and length of `episodes` whole episodes of the trained
  network (`policy`: 'sampled' draws each action, 'greedy' takes the most
  probable), each from its own key, on Craftax without auto-reset;
  `layer_size` > 0: `ppo_rnn.py`'s network, its GRU state of that size
  carried from step to step from zeros."""
  import jax  # pylint: disable=g-import-not-at-top
  import jax.numpy as jnp  # pylint: disable=g-import-not-at-top
  from craftax.craftax_env import make_craftax_env_from_name  # pylint: disable=g-import-not-at-top
  env = make_craftax_env_from_name(env_name, False)
  env_params = env.default_params

  def episode(key):
    key, reset_key = jax.random.split(key)
    observation, state = env.reset(reset_key, env_params)

    def unfinished(carry):
      return ~carry[3]

    def step(carry):
      observation, state, key, done, total, length, hidden = carry
      key, act_key, step_key = jax.random.split(key, 3)
      if layer_size:
        hidden, pi, _ = network.apply(
            params, hidden, (observation[None, None], done[None, None]))
        pi = type(pi)(logits=pi.logits[0])
      else:
        pi, _ = network.apply(params, observation[None])
      action = (pi.sample(seed=act_key) if policy == 'sampled'
                else jnp.argmax(pi.logits, axis=-1))[0]
      observation, state, reward, done, _ = env.step(
          step_key, state, action, env_params)
      return (observation, state, key, done, total + reward, length + 1,
              hidden)

    carry = (observation, state, key, jnp.bool_(False), jnp.float32(0.),
             jnp.int32(0), jnp.zeros((1, max(layer_size, 1))))
    _, _, _, _, total, length, _ = jax.lax.while_loop(unfinished, step,
                                                      carry)
    return total, length

  totals, lengths = jax.jit(jax.vmap(episode))(
      jax.random.split(jax.random.PRNGKey(seed + 1), episodes))
  return float(jnp.mean(totals)), float(jnp.mean(lengths))


def craftax_baselines_ppo(source: str, settings: dict, seed: int,
                          timed: Callable[..., Tuple[float, float, Any]]
                          ) -> Dict[str, Any]:
  """Craftax_Baselines' training program with `settings` (`make_train`),
  compiled and run for one seed by `timed(train, key) -> (compile
  seconds, training seconds, output)`, then its policy played
  (`results`)."""
  import jax  # pylint: disable=g-import-not-at-top
  train, config = make_train(source, settings)
  compile_seconds, seconds, out = timed(train, jax.random.PRNGKey(seed))
  figures = results(out, config, seed)
  figures.update(compile_seconds=compile_seconds, train_seconds=seconds,
                 steps_per_second=figures['env_steps'] / seconds)
  return figures


def make_train(source: str, settings: dict
               ) -> Tuple[Callable[[Any], Any], Dict[str, Any]]:
  """`make_train` of the checkout `source`'s `script` (a setting: "ppo",
  the default, or "ppo_rnn") with `DEFAULTS` updated by `settings` (its
  flag names, any case; `OURS` are ours, kept for `results`): the train
  function of one seed, and the config it was made with (`NUM_UPDATES`
  set)."""
  config = dict(DEFAULTS, **{k.upper(): v for k, v in settings.items()
                             if k not in OURS})
  if 'Symbolic' not in config['ENV_NAME']:
    raise ValueError(f'Only the symbolic games are played here; got '
                     f'{config["ENV_NAME"]}.')
  script = settings.get('script', 'ppo')
  if script not in SCRIPTS:
    raise ValueError(f'script must be one of {SCRIPTS}; got {script!r}.')
  sys.path.insert(0, os.path.abspath(source))
  config['SCRIPT'] = script
  config['EVAL_EPISODES'] = int(settings.get('eval_episodes', 100))
  config['EVAL_POLICY'] = settings.get('eval_policy', 'sampled')
  return importlib.import_module(script).make_train(config), config


def results(out: Any, config: Dict[str, Any], seed: int) -> Dict[str, Any]:
  """Steps trained and, untimed, `EVAL_EPISODES` whole episodes of the
  trained network played by `EVAL_POLICY` (the protocol our side is
  evaluated by): their mean return and length."""
  import numpy as np  # pylint: disable=g-import-not-at-top
  module = importlib.import_module(config['SCRIPT'])
  params = out['runner_state'][0].params
  # The actor's output layer: Dense_3 in both scripts' networks.
  num_actions = int(np.asarray(
      params['params']['Dense_3']['kernel']).shape[-1])
  recurrent = config['SCRIPT'] == 'ppo_rnn'
  network = (module.ActorCriticRNN(num_actions, config) if recurrent else
             module.ActorCritic(num_actions, config['LAYER_SIZE']))
  policy = config['EVAL_POLICY']
  mean_return, mean_length = _play(
      network, params, config['ENV_NAME'], policy, config['EVAL_EPISODES'],
      seed, config['LAYER_SIZE'] if recurrent else 0)
  return {'env_steps': int(config['NUM_UPDATES'] * config['NUM_STEPS'] *
                           config['NUM_ENVS']),
          f'{policy}_return': mean_return, 'episode_length': mean_length}
