"""A recurrent PPO: acting with a state, replaying it, and its refusals."""

from unittest import mock

from absl.testing import absltest
import chex
import jax
import jax.numpy as jnp
import numpy as np

from agents import agent as agent_lib
from agents import ppo
from agents import recurrent_policy
from agents import registry as agent_registry
from environments import registry as env_registry
from environments import specs
from networks import recurrent

_N, _T = 3, 6


def _spec(env='catch'):
  return specs.make_environment_spec(env_registry.make_environment(env))


def _agent(**overrides):
  spec = _spec()
  network = recurrent.make_recurrent_actor_critic_network(
      spec.num_actions, (16, 8), recurrent.LSTM)
  config = ppo.PPOConfig(**{**dict(unroll_length=_T, batch_size=_N,
                                   num_minibatches=_N), **overrides})
  return ppo.make_agent(config, spec, network), spec


def _acted(agent, spec, params):
  """`_T` steps of `_N` environments from random observations, an episode
  beginning at steps 0 and 3 of environment 1: (observations, extras)."""
  observations = jax.random.uniform(jax.random.PRNGKey(1),
                                    (_T, _N) + spec.observations.shape)
  first = np.zeros((_T, _N), bool)
  first[0] = True
  first[3, 1] = True
  state, steps = agent_lib.initial_state(agent, _N), []
  for t in range(_T):
    _, extras, state = agent_lib.act_with_state(
        agent, params, jax.random.PRNGKey(t), observations[t],
        jnp.asarray(first[t]), state)
    steps.append(extras)
  return observations, jax.tree.map(lambda *x: jnp.stack(x), *steps), state


class RecurrentPPOTest(absltest.TestCase):

  def test_replay_gives_the_values_acting_gave(self):
    agent, spec = _agent()
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    observations, extras, final = _acted(agent, spec, params)
    network = recurrent.make_recurrent_actor_critic_network(
        spec.num_actions, (16, 8), recurrent.LSTM)
    _, values, replayed_final = recurrent_policy.replay(
        network, spec, params, observations, extras)
    chex.assert_trees_all_close(values, extras['value'], atol=1e-5)
    chex.assert_trees_all_close(replayed_final, final, atol=1e-5)
    # The state after the last step, from that step alone.
    chex.assert_trees_all_close(
        recurrent_policy.final_state(network, params, observations, extras),
        final, atol=1e-5)

  def test_update_learns_from_sequences(self):
    agent, spec = _agent()
    state = agent.init(jax.random.PRNGKey(0))
    observations, extras, _ = _acted(agent, spec, agent.actor_params(state))
    trajectory = agent_lib.Trajectory(
        observations=observations, actions=jnp.zeros((_T, _N), jnp.int32),
        rewards=jnp.ones((_T, _N)), discounts=jnp.ones((_T, _N)),
        last=jnp.zeros((_T, _N), bool), mask=jnp.ones((_T, _N)),
        final_observations=observations[-1], extras=extras,
        next_observations=observations)
    new_state, metrics = jax.jit(agent.update)(state, trajectory)
    self.assertTrue(all(np.isfinite(float(v)) for v in metrics.values()))
    self.assertFalse(np.allclose(
        jax.tree.leaves(new_state.params)[0],
        jax.tree.leaves(state.params)[0]))

  def test_stateless_calls_and_bad_settings_are_refused(self):
    agent, spec = _agent()
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    with self.assertRaisesRegex(TypeError, 'acts with a state'):
      agent.act(params, jax.random.PRNGKey(0), jnp.zeros((1, 10, 5)))
    with self.assertRaisesRegex(ValueError, r'num_minibatches \(2\) must '
                                r'divide batch_size \(3\)'):
      _agent(num_minibatches=2)
    del spec

  def test_agents_and_actions_without_recurrence_are_refused(self):
    with mock.patch.dict(agent_registry._ENTRIES.by_name):  # pylint: disable=protected-access
      agent_registry.register(agent_registry.AgentEntry(
          'stateless_ppo', ppo.PPOConfig, ppo.make_agent,
          {agent_registry.DISCRETE: ('actor_critic', 'mlp_actor_critic')}))
      with self.assertRaisesRegex(
          ValueError, "'stateless_ppo' cannot use the recurrent network "
          "'lstm_actor_critic'.*agents that can: a2c, ppo, pqn, reinforce.*"
          'mlp_actor_critic'):
        agent_registry.network_entry('stateless_ppo', 'lstm_actor_critic',
                                     _spec())
    # Continuous actions take a Gaussian network: the kind is refused.
    with self.assertRaisesRegex(ValueError, "'lstm_actor_critic' is of kind "
                                "'actor_critic'; kind 'gaussian_actor_critic'"
                                ' is needed'):
      agent_registry.make_agent(
          'ppo', agent_registry.make_config('ppo'),
          _spec('gymnax:Pendulum-v1'), network='lstm_actor_critic')


if __name__ == '__main__':
  absltest.main()
