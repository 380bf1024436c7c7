"""Navix's own PPO, timed, then its policy played; run by
`benchmarks/peer_programs.py navix_ppo` in the peers' own environment
(`.venv-peers`), never the project's: it imports Navix, never this
project (`peer_programs` loads it by its path, and passes its timer and
its count of the last training episodes' return).
"""

from typing import Any, Callable, Dict


def navix_ppo(settings: Dict[str, Any], seed: int, timed: Callable[..., Any],
              last_episodes_return: Callable[..., Any]) -> Dict[str, Any]:
  """Navix's own PPO (`navix.agents.PPO`, as its baselines/ppo.py runs
  it: symbolic observations flattened, its tanh 64-64 `ActorCritic`) on
  `settings['env_id']`, the other keys its `PPOHparams`. Then, untimed,
  `settings['eval_episodes']` greedy episodes of the trained network (the
  most probable action), our evaluation protocol, beside the mean return
  of its last training episodes (sampled actions)."""
  import jax  # pylint: disable=g-import-not-at-top
  import jax.numpy as jnp  # pylint: disable=g-import-not-at-top
  import numpy as np  # pylint: disable=g-import-not-at-top
  import navix as nx  # pylint: disable=g-import-not-at-top
  from navix import agents  # pylint: disable=g-import-not-at-top
  settings = dict(settings)
  env = nx.make(settings.pop('env_id'))
  eval_episodes = settings.pop('eval_episodes', 100)
  observation_fn = env.observation_fn
  env = env.replace(  # baselines/ppo.py's FlattenObsWrapper.
      observation_fn=lambda state: jnp.ravel(observation_fn(state)),
      observation_space=env.observation_space.replace(
          shape=(int(np.prod(env.observation_space.shape)),)))
  agent = agents.PPO(hparams=agents.PPOHparams(**settings),
                     network=agents.ActorCritic(action_dim=len(
                         env.action_set)), env=env)
  compile_seconds, seconds, (state, logs) = timed(
      agent.train, jax.random.PRNGKey(seed))

  def greedy_episode(key):
    def step(carry, _):
      timestep, total, done = carry
      policy = agent.network.apply(state.params, timestep.observation,
                                   method='policy')
      timestep = env.step(timestep, jnp.argmax(policy.logits))
      total = total + jnp.where(done, 0., timestep.reward)
      return (timestep, total, done | timestep.is_done()), None
    (_, total, _), _ = jax.lax.scan(
        step, (env.reset(key), jnp.float32(0.), jnp.bool_(False)), None,
        env.max_steps)
    return total

  greedy = jax.jit(jax.vmap(greedy_episode))(jax.random.split(
      jax.random.PRNGKey(seed + 1), eval_episodes))
  steps = int(np.asarray(state.frames))
  return {'env_steps': steps, 'compile_seconds': compile_seconds,
          'train_seconds': seconds, 'steps_per_second': steps / seconds,
          'greedy_return': float(np.mean(jax.device_get(greedy))),
          'training_return': last_episodes_return(
              jax.device_get(logs['returns']),
              jax.device_get(logs['done_mask']))}
