"""Every agent bootstraps through time limits and stops at terminations.

On a hallway paying 1 a step whose episodes end after 5 steps, the values
are known in closed form with γ = 0.9. Cut by a time limit, the walk goes
on forever and looks the same at every step (one observation), so every
value is 1 / (1 - γ) = 10. Ended by the game, the observation says the
step (one-hot) and the value with k steps left is (1 - γ^k) / (1 - γ): 4.1
at the start, 2.6 on average over the steps. Treating the time limit as
an end would learn the second numbers on the first hallway. Each agent
trains in both loops on both hallways; the value at the start (A2C, PPO)
or the mean Q of its replay (DQN, SAC: steps sampled alike) must land near
its closed form.
"""

from unittest import mock

from absl.testing import absltest
from absl.testing import parameterized
from dm_env import specs
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from agents import registry as agent_registry
from environments import functional
from environments import registry as env_registry
from experiments.loops import interface
from experiments.setup import build as build_lib
from experiments.setup import config as config_lib
from networks import registry as network_registry

DISCOUNT = 0.9
LIMIT = 5
CUT_VALUE = 1 / (1 - DISCOUNT)  # 10.
ENDED_START_VALUE = (1 - DISCOUNT**LIMIT) / (1 - DISCOUNT)  # 4.1.
ENDED_MEAN_VALUE = np.mean([(1 - DISCOUNT**k) / (1 - DISCOUNT)
                            for k in range(1, LIMIT + 1)])  # 2.63.


class Hallway:
  """Reward 1 a step; `LIMIT` steps end each episode by a time limit
  (`ended=False`; one observation) or by the game (`ended=True`; the
  observation is the step, one-hot)."""

  max_episode_steps = LIMIT

  def __init__(self, ended: bool = False, continuous: bool = False):
    self._ended = ended
    self._continuous = continuous

  def _observation(self, steps):
    return jax.nn.one_hot(steps if self._ended else 0, LIMIT + 1)

  def reset(self, key):
    del key
    steps = jnp.zeros((), jnp.int32)
    return steps, functional.restart(self._observation(steps))

  def step(self, state, action):
    del action
    steps = state + 1
    over = steps >= LIMIT
    return steps, functional.transition(
        1.0, self._observation(steps), terminated=over & self._ended,
        truncated=over & ~self._ended)

  def observation_spec(self):
    return specs.Array((LIMIT + 1,), np.float32, 'observation')

  def action_spec(self):
    if self._continuous:
      return specs.BoundedArray((1,), np.float32, -1.0, 1.0, 'action')
    return specs.DiscreteArray(2, name='action')

  def reward_spec(self):
    return specs.Array((), np.float32, 'reward')

  def discount_spec(self):
    return specs.BoundedArray((), np.float32, 0.0, 1.0, 'discount')


_HALLWAYS = {f'hallway_{"ended" if ended else "cut"}'
             f'{"_continuous" if continuous else ""}': (ended, continuous)
             for ended in (False, True) for continuous in (False, True)}


def _register_hallways(test: absltest.TestCase) -> None:
  """The hallways, registered for `test` only."""
  patcher = mock.patch.dict(env_registry._ENTRIES.by_name)  # pylint: disable=protected-access
  patcher.start()
  test.addCleanup(patcher.stop)
  for name, (ended, continuous) in _HALLWAYS.items():
    env_registry.register(env_registry.EnvironmentEntry(
        name, make_core=lambda e=ended, c=continuous: Hallway(e, c)))

# Settings that learn the value quickly, per agent.
_AGENTS = {
    'a2c': dict(discount=DISCOUNT, learning_rate=0.03, td_lambda=0.5,
                unroll_length=8, batch_size=4, max_grad_norm=None),
    'ppo': dict(discount=DISCOUNT, learning_rate=0.03, unroll_length=8,
                batch_size=4, num_minibatches=1, gae_lambda=0.5,
                max_grad_norm=100.0),
    'impala': dict(discount=DISCOUNT, learning_rate=0.03, unroll_length=8,
                   batch_size=4, max_grad_norm=None),
    'alphazero': dict(discount=DISCOUNT, learning_rate=0.03,
                      unroll_length=8, batch_size=4, num_minibatches=1,
                      num_simulations=2, max_grad_norm=100.0),
    'muzero': dict(discount=DISCOUNT, learning_rate=0.03, unroll_length=8,
                   batch_size=4, num_minibatches=1, num_epochs=1,
                   num_simulations=2, n_step=None, max_grad_norm=100.0),
    'dqn': dict(discount=DISCOUNT, learning_rate=0.01, min_replay_size=32,
                target_update_period=20, epsilon_decay_steps=1),
    'sac': dict(discount=DISCOUNT, critic_learning_rate=0.01,
                learn_temperature=False, initial_temperature=1e-6,
                min_replay_size=32, tau=0.1, batch_size=32),
    'td3': dict(discount=DISCOUNT, critic_learning_rate=0.01,
                min_replay_size=32, tau=0.1, batch_size=32),
}


def _learned_value(agent: str, env: str, loop: str, steps: int,
                   **settings) -> float:
  config = config_lib.ExperimentConfig(
      agent=agent, env=env, loop=loop, hidden_sizes=(8,), seed=0,
      agent_config=agent_registry.make_config(
          agent, **_AGENTS[agent], **settings),
      num_steps=steps, export_tflite=False, eval_every_steps=0,
      log_every_steps=steps)
  built = build_lib.build(config)
  training = build_lib.make_loop(built)
  training.compile()
  rows = training.advance(interface.Targets(env_steps=steps))
  if agent in ('dqn', 'sac', 'td3'):
    return float(rows[-1]['mean_q'])
  network = network_registry.get(build_lib.network_name(config)).make(
      built.environment_spec, config.hidden_sizes)
  start = jax.nn.one_hot(jnp.zeros(1, jnp.int32), LIMIT + 1)
  _, values = network.apply(training.actor_params(0), start)
  return float(values[0])


@pytest.mark.slow
class TimeLimitsTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    _register_hallways(self)

  # Every agent in the compiled loop; in the Python loop one agent per
  # batcher (A2C's unrolls, DQN's replay): it hands every agent of a kind
  # the same transitions, so PPO, IMPALA, SAC and TD3 get what those get;
  # and MuZero, the one planning agent that acts there.
  @parameterized.named_parameters(
      (f'{agent}_{loop}', agent, loop) for agent in _AGENTS
      for loop in ('compiled', 'python')
      if loop == 'compiled' or agent in ('a2c', 'dqn', 'muzero'))
  def test_values_match_the_closed_form(self, agent, loop):
    suffix = '_continuous' if agent in ('sac', 'td3') else ''
    steps = 3000
    cut = _learned_value(agent, f'hallway_cut{suffix}', loop, steps)
    ended = _learned_value(agent, f'hallway_ended{suffix}', loop, steps)
    self.assertAlmostEqual(cut, CUT_VALUE, delta=1.0)
    self.assertAlmostEqual(
        ended, ENDED_MEAN_VALUE if agent in ('dqn', 'sac', 'td3') else
        ENDED_START_VALUE, delta=0.5)

  @parameterized.parameters('a2c', 'dqn')
  def test_set_not_to_bootstrap_time_limits_are_ends(self, agent):
    # Every fifth step then ends the walk: one-step TD's fixed point is
    # 1 / (1 - γ·4/5) = 3.6, Monte Carlo's the mean 2.6; well below 10.
    cut = _learned_value(agent, 'hallway_cut', 'compiled', 3000,
                         bootstrap_time_limits=False)
    self.assertLess(cut, 7.5)


if __name__ == '__main__':
  absltest.main()
