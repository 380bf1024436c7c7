r"""Where the compiled loop's collection time goes: µs per environment step.

PPO's collection in the compiled loop (`experiments.loops.env_slots.step`
under `lax.scan`: act, step, reset in place, episode bookkeeping) beside
a bare collection in PureJaxRL's style on the same game, network and
params (one key split per step for the batch, gymnax's auto-resetting
`step`, the same `act`), and beside ours with the game's state key split
every step even where its step never reads it (what every gymnax game
did before `GymnaxCore.step_draws`). Each arm is one jitted scan of
`--unroll` steps over the game's environments, called `--calls` times per
measurement; arms alternate, order flipped each round; medians over
`--rounds`.

  python -m benchmarks.collection_cost --rounds=7 \
      --output=benchmarks/collection_cost_speed.json
"""

from typing import Any, Callable, Dict

from absl import flags
import jax
import jax.numpy as jnp

from agents import agent as agent_lib
from benchmarks import fingerprints
from benchmarks import timed_arms
from experiments import api
from experiments.cli import help_text
from experiments.loops import env_slots
from experiments.setup import build as build_lib

# Game -> (environments, the agent settings of our run of it beside peers).
GAMES = {
    'CartPole-v1': (4, dict(preset='ppo_gymnax_cartpole')),
    'Acrobot-v1': (4, dict(preset='ppo_gymnax_acrobot')),
    'MountainCarContinuous-v0': (5, dict(config={'unroll_length': 100,
                                                 'batch_size': 5})),
}

# What --help shows (every flag in one group).
FLAG_GROUPS = {'Measurement': ('rounds', 'calls', 'unroll'),
               'Output': ('output',)}


def _define_flags() -> None:
  # Defined only when run as a program: tests import this module.
  flags.DEFINE_integer('rounds', 7, 'Rounds; arms alternate.', lower_bound=1)
  flags.DEFINE_integer('calls', 50, 'Scans per measurement.', lower_bound=1)
  flags.DEFINE_integer('unroll', 128, 'Steps per scan.', lower_bound=1)
  flags.DEFINE_string('output', None, 'Also write the JSON here.')


def _arms(game: str, num_envs: int, settings: Dict[str, Any], unroll: int
         ) -> Dict[str, Callable[[], Any]]:
  """`{arm: run once}` for `game`, each run `unroll` steps of every env."""
  overrides = dict(settings.get('config', {}), bootstrap_time_limits=False)
  config = api.experiment_config(
      agent='ppo', env=f'gymnax:{game}', num_steps=500_000,
      preset=settings.get('preset'), config=overrides, num_envs=num_envs,
      export_tflite=False)
  fingerprints.record(config)
  agent = build_lib.build(config).agent
  core = config.environment.core(**config.env_kwargs)
  key = jax.random.PRNGKey(0)
  params = agent.actor_params(agent.init(key))
  actor_key, env_key = jax.random.split(key)
  everyone = jnp.ones(num_envs, bool)

  def ours(core):
    def scan(envs):
      return jax.lax.scan(lambda envs, _: env_slots.step(
          core, agent, params, actor_key, env_key, envs, num_envs,
          everyone), envs, None, length=unroll)[0]
    return jax.jit(scan), env_slots.start(core, env_key, num_envs, agent)

  def bare():
    env, env_params = core.env, core.params

    def step(carry, _):
      env_state, observations, rng = carry
      rng, act_key, step_key = jax.random.split(rng, 3)
      actions, _, _ = agent_lib.act_with_state(
          agent, params, act_key, observations, jnp.zeros(num_envs, bool), ())
      observations, env_state, *_ = jax.vmap(
          env.step, (0, 0, 0, None))(
              jax.random.split(step_key, num_envs), env_state, actions,
              env_params)
      return (env_state, observations.reshape((num_envs, -1)), rng), None

    observations, env_state = jax.vmap(env.reset, (0, None))(
        jax.random.split(key, num_envs), env_params)
    scan = lambda carry: jax.lax.scan(step, carry, None, length=unroll)[0]
    return jax.jit(scan), (env_state, observations.reshape((num_envs, -1)),
                           key)

  split_always = config.environment.core(**config.env_kwargs)
  split_always.step_draws = True  # As before `step_draws`: split each step.
  built = {'ours': ours(core), 'ours_key_split_each_step': ours(split_always),
           'bare': bare()}

  def runner(function, start):
    # Compiled for the state it carries from call to call, then warm.
    state = [jax.block_until_ready(function(function(start)))]

    def run():
      for _ in range(flags.FLAGS.calls):
        state[0] = function(state[0])
      jax.block_until_ready(state[0])
    return run

  return {arm: runner(*built[arm]) for arm in built}


def measure(game: str) -> Dict[str, Any]:
  """`game`'s arms, µs per environment step, over the rounds."""
  num_envs, settings = GAMES[game]
  unroll = flags.FLAGS.unroll
  arms = _arms(game, num_envs, settings, unroll)
  medians, rounds = timed_arms.microseconds_per_unit(
      arms, flags.FLAGS.rounds, flags.FLAGS.calls * unroll * num_envs)
  return {'num_envs': num_envs, 'unroll': unroll,
          'us_per_env_step': medians, 'rounds_us_per_env_step': rounds,
          'ours_over_bare': medians['ours'] / medians['bare']}


def main(argv):
  del argv
  f = flags.FLAGS
  timed_arms.report({'collection_cost': {g: measure(g) for g in GAMES}},
                    f.rounds, f.calls, f.output)


if __name__ == '__main__':
  _define_flags()
  help_text.run(main, FLAG_GROUPS, __doc__)
