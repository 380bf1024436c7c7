r"""Where PPO's update time goes: µs per environment step per epoch.

PPO's `update` (advantages, then epochs of minibatch SGD steps) on a
random batch of each setting of the peer tables, jitted, three ways: as
the agent is built (Adam after clipping the gradients' global norm, as
PureJaxRL and purejaxql do), with each gradient entry clipped instead
(`--config.gradient_clipping=each_entry`, as rejax does), and with no
clipping. Only the optimizer the agent is built with differs; arms
alternate, order flipped each
round; medians over `--rounds`. What it isolates: the cost of a global
norm (one reduction over every parameter, then a rescale) beside the
network's own SGD step, which grows as minibatches shrink.

  python -m benchmarks.update_cost --rounds=7 \
      --output=benchmarks/update_cost_speed.json
"""

import contextlib
import dataclasses
from typing import Any, Callable, Dict, Iterator, Optional
from unittest import mock

from absl import flags
import jax
import jax.numpy as jnp
import optax

from agents import agent as agent_lib
from agents import optimizers
from benchmarks import fingerprints
from benchmarks import timed_arms
from experiments import api
from experiments.cli import help_text
from experiments.setup import build as build_lib

# Setting -> the run's settings (as the peer tables' ours).
_REJAX_CONTINUOUS = dict(unroll_length=100, num_epochs=10, num_minibatches=10,
                         entropy_cost=0.0, max_grad_norm=10.0,
                         bootstrap_time_limits=False)
SETTINGS = {
    'ppo_cartpole_purejaxrl': dict(
        env='gymnax:CartPole-v1', preset='ppo_gymnax_cartpole',
        config={'bootstrap_time_limits': False}),
    'ppo_pendulum_rejax': dict(
        env='gymnax:Pendulum-v1', network='mlp_gaussian_actor_critic',
        config=dict(_REJAX_CONTINUOUS, batch_size=100, learning_rate=1e-3,
                    discount=0.995)),
    'ppo_mountaincar_continuous_rejax': dict(
        env='gymnax:MountainCarContinuous-v0',
        network='mlp_gaussian_actor_critic',
        config=dict(_REJAX_CONTINUOUS, batch_size=5, learning_rate=3e-4,
                    discount=0.9)),
}
# Arm -> its `gradient_clipping` setting (None: no clipping at all).
ARMS = {'ours_global_norm_clip': 'global_norm',
        'each_entry_clipped': 'each_entry',
        'no_clipping': None}

# What --help shows (every flag in one group).
FLAG_GROUPS = {'Measurement': ('rounds', 'calls'), 'Output': ('output',)}


def _define_flags() -> None:
  # Defined only when run as a program: tests import this module.
  flags.DEFINE_integer('rounds', 7, 'Rounds; arms alternate.', lower_bound=1)
  flags.DEFINE_integer('calls', 20, 'Updates per measurement.',
                       lower_bound=1)
  flags.DEFINE_string('output', None, 'Also write the JSON here.')


@contextlib.contextmanager
def _clipping(setting: Optional[str]) -> Iterator[None]:
  """Agents built inside clip as `setting` says; None: not at all (PPO
  has no setting for that: its `max_grad_norm` is always set)."""
  if setting is not None:
    yield
    return
  with mock.patch.dict(optimizers.GRADIENT_CLIPPINGS,
                       global_norm=lambda max_norm: optax.identity()):
    yield


def _batch(spec, t: int, b: int) -> agent_lib.Trajectory:
  """A random `[t, b]` batch of `spec`'s observations and actions."""
  keys = jax.random.split(jax.random.PRNGKey(1), 4)
  observations = jax.random.normal(
      keys[0], (t, b) + tuple(spec.observations.shape))
  if spec.is_continuous:
    actions = jax.random.normal(keys[1], (t, b) + tuple(spec.actions.shape))
  else:
    actions = jax.random.randint(keys[1], (t, b), 0,
                                 spec.actions.num_values)
  return agent_lib.Trajectory(
      observations=observations, actions=actions,
      rewards=jax.random.normal(keys[2], (t, b)),
      discounts=jnp.ones((t, b)), last=jnp.zeros((t, b), bool),
      mask=jnp.ones((t, b)), final_observations=observations[-1],
      extras={'log_prob': jnp.full((t, b), -0.7),
              'value': jax.random.normal(keys[3], (t, b))},
      next_observations=observations)


def _arms(config) -> Dict[str, Callable[[], None]]:
  """`{arm: run once}`: `--calls` updates of `config`'s agent."""
  runs = {}
  for arm, setting in ARMS.items():
    arm_config = dataclasses.replace(
        config, agent_config=dataclasses.replace(
            config.agent_config, gradient_clipping=setting or 'global_norm'))
    with _clipping(setting):
      built = build_lib.build(arm_config)
    agent = built.agent
    trajectory = _batch(built.environment_spec,
                        config.agent_config.unroll_length,
                        config.agent_config.batch_size)
    calls = flags.FLAGS.calls
    many = jax.jit(lambda state, agent=agent, trajectory=trajectory:
                   jax.lax.scan(lambda s, _: (agent.update(s, trajectory)[0],
                                              None),
                                state, None, length=calls)[0])
    state = [jax.block_until_ready(many(agent.init(jax.random.PRNGKey(0))))]

    def run(many=many, state=state):
      state[0] = jax.block_until_ready(many(state[0]))
    runs[arm] = run
  return runs


def measure(name: str) -> Dict[str, Any]:
  """Setting `name`'s arms, µs per environment step per epoch."""
  config = api.experiment_config(agent='ppo', num_steps=500_000,
                                 export_tflite=False, **SETTINGS[name])
  fingerprints.record(config)
  agent_config = config.agent_config
  steps = (agent_config.unroll_length * agent_config.batch_size *
           agent_config.num_epochs * flags.FLAGS.calls)
  arms = _arms(config)
  medians, rounds = timed_arms.microseconds_per_unit(
      arms, flags.FLAGS.rounds, steps)
  return {
      'batch': f'{agent_config.batch_size} x {agent_config.unroll_length}',
      'epochs': agent_config.num_epochs,
      'minibatch_steps': (agent_config.unroll_length *
                          agent_config.batch_size //
                          agent_config.num_minibatches),
      'us_per_env_step_per_epoch': medians,
      'rounds_us_per_env_step_per_epoch': rounds,
      'global_norm_share': 1 - medians['no_clipping'] /
                           medians['ours_global_norm_clip']}


def main(argv):
  del argv
  f = flags.FLAGS
  timed_arms.report({'update_cost': {n: measure(n) for n in SETTINGS}},
                    f.rounds, f.calls, f.output)


if __name__ == '__main__':
  _define_flags()
  help_text.run(main, FLAG_GROUPS, __doc__)
