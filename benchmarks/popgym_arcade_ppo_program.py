"""POPGym Arcade's own PPO, timed, then its policy played; run by
`benchmarks/peer_programs.py popgym_arcade_ppo` in the peers' own
environment (`.venv-peers`, with `popgym-arcade[baselines]==0.0.5`),
never the project's: it imports POPGym Arcade, never this project
(`peer_programs` loads it by its path, and passes the function that
averages the return of the last training episodes).
"""

import time
from typing import Any, Callable, Dict


def popgym_arcade_ppo(settings: Dict[str, Any], seed: int,
                      last_episodes_return: Callable[..., Any]
                     ) -> Dict[str, Any]:
  """POPGym Arcade's PPO (`popgym_arcade.baselines.ppo.make_train`, its
  equinox `ActorCritic`) with `settings` (its config keys: `ENV_NAME`,
  `PARTIAL`, `OBS_SIZE`, `NUM_ENVS`, ...), Weights & Biases logging off
  (`DEBUG` false). Compiled, then timed; then, untimed,
  `settings['EVAL_EPISODES']` greedy episodes of the trained network (the
  most probable action; our evaluation protocol), beside the mean return
  of its last training episodes (sampled actions)."""
  import equinox as eqx  # pylint: disable=g-import-not-at-top
  import jax  # pylint: disable=g-import-not-at-top
  import jax.numpy as jnp  # pylint: disable=g-import-not-at-top
  import numpy as np  # pylint: disable=g-import-not-at-top
  import popgym_arcade  # pylint: disable=g-import-not-at-top
  from popgym_arcade.baselines import ppo  # pylint: disable=g-import-not-at-top
  config = dict(settings, DEBUG=False)
  eval_episodes = config.pop('EVAL_EPISODES', 32)
  train = ppo.make_train(config)  # Sets NUM_UPDATES in `config`.
  # The network (an equinox module) and the metrics; the optimizer's
  # functions in the runner state are not arrays: filter_jit keeps them.
  program = eqx.filter_jit(
      lambda rng: (lambda out: (out['runner_state'][0], out['metric']))(
          train(rng)))
  rng = jax.random.PRNGKey(seed)
  start = time.perf_counter()
  compiled = program.lower(rng).compile()
  compile_seconds = time.perf_counter() - start
  start = time.perf_counter()
  network, metric = jax.block_until_ready(compiled(rng))
  seconds = time.perf_counter() - start

  env, env_params = popgym_arcade.make(
      config['ENV_NAME'], partial_obs=config['PARTIAL'],
      obs_size=config['OBS_SIZE'])

  def greedy_returns(key):
    """Each of `eval_episodes` episodes played to its end by the most
    probable action, at once (an ended one waits, its return kept)."""
    reset_keys = jax.random.split(key, eval_episodes)
    observations, states = jax.vmap(env.reset, (0, None))(reset_keys,
                                                          env_params)

    def play(carry):
      key, observations, states, totals, done = carry
      key, step_key = jax.random.split(key)
      pi, _ = network(observations)
      observations, states, rewards, ended, _ = jax.vmap(
          env.step, (0, 0, 0, None))(
              jax.random.split(step_key, eval_episodes), states,
              jnp.argmax(pi.logits, axis=-1), env_params)
      totals = totals + jnp.where(done, 0.0, rewards)
      return key, observations, states, totals, done | ended

    carry = (key, observations, states, jnp.zeros(eval_episodes),
             jnp.zeros(eval_episodes, bool))
    return jax.lax.while_loop(lambda c: ~jnp.all(c[-1]), play, carry)[3]

  greedy = jax.device_get(eqx.filter_jit(greedy_returns)(
      jax.random.PRNGKey(seed + 1)))
  steps = int(config['NUM_UPDATES'] * config['NUM_STEPS'] *
              config['NUM_ENVS'])
  return {'env_steps': steps, 'compile_seconds': compile_seconds,
          'train_seconds': seconds, 'steps_per_second': steps / seconds,
          'greedy_return': float(np.mean(greedy)),
          'training_return': last_episodes_return(
              jax.device_get(metric['returned_episode_returns']),
              jax.device_get(metric['returned_episode']))}
