"""agents/on_policy.py: the skeleton the on-policy agents share."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
import optax

from agents import agent as agent_lib
from agents import on_policy
from environments import registry as env_registry
from environments import specs
from networks import recurrent
from tests.agents import a2c_test

_T, _N = 4, 2


def _networks():
  """A feed-forward actor-critic on a2c_test's spec and an LSTM one on
  Catch's, each with its spec."""
  catch = specs.make_environment_spec(env_registry.make_environment('catch'))
  return {
      'feed_forward': (a2c_test.bias_actor_critic(), a2c_test._spec()),
      'recurrent': (recurrent.make_recurrent_actor_critic_network(
          catch.num_actions, (8,), recurrent.LSTM), catch),
  }


def _acted(policy, params, spec, with_next: bool):
  """A `[_T, _N]` trajectory the policy acted, no episode ending."""
  agent = on_policy.agent(policy, lambda key: None, None,
                          agent_lib.DataRequirements(batch_size=_N))
  observations = jax.random.uniform(jax.random.PRNGKey(1),
                                    (_T + 1, _N) + spec.observations.shape)
  state, steps, actions = agent_lib.initial_state(agent, _N), [], []
  for t in range(_T):
    action, extras, state = agent_lib.act_with_state(
        agent, params, jax.random.PRNGKey(t), observations[t],
        jnp.full(_N, t == 0), state)
    steps.append(extras)
    actions.append(action)
  return agent_lib.Trajectory(
      observations=observations[:_T], actions=jnp.stack(actions),
      rewards=jnp.zeros((_T, _N)), discounts=jnp.ones((_T, _N)),
      last=jnp.zeros((_T, _N), bool), mask=jnp.ones((_T, _N)),
      final_observations=observations[_T],
      extras=jax.tree.map(lambda *x: jnp.stack(x), *steps),
      next_observations=observations[1:] if with_next else None)


class PolicyNetworkTest(parameterized.TestCase):

  @parameterized.parameters('feed_forward', 'recurrent')
  def test_next_values_without_next_observations_are_the_last_row(
      self, kind):
    network, spec = _networks()[kind]
    policy = on_policy.PolicyNetwork(network, spec, 'test')
    params = agent_lib.init_params(network, spec.observations,
                                   jax.random.PRNGKey(0))
    full = policy.next_values(params, _acted(policy, params, spec, True))
    last_only = policy.next_values(params,
                                   _acted(policy, params, spec, False))
    self.assertEqual(full.shape, (_T, _N))
    np.testing.assert_array_equal(last_only[:-1], 0.0)
    # The unroll's bootstrap is the same value either way.
    np.testing.assert_allclose(last_only[-1], full[-1], rtol=1e-6)

  def test_recurrent_next_values_step_on_from_the_replayed_state(self):
    network, spec = _networks()['recurrent']
    policy = on_policy.PolicyNetwork(network, spec, 'test')
    params = agent_lib.init_params(network, spec.observations,
                                   jax.random.PRNGKey(0))
    trajectory = _acted(policy, params, spec, True)
    _, values, final_state = policy.outputs(
        params, trajectory.observations, trajectory.extras)
    next_values = policy.next_values(params, trajectory, final_state)
    # v(o_{t+1}) from the state after step t is the value acting gave at
    # step t + 1 (no episode began in between).
    np.testing.assert_allclose(next_values[:-1], values[1:], rtol=1e-5)
    np.testing.assert_allclose(
        next_values, policy.next_values(params, trajectory), rtol=1e-6)

  def test_a_recurrent_network_acts_with_its_state(self):
    network, spec = _networks()['recurrent']
    agent = on_policy.agent(on_policy.PolicyNetwork(network, spec, 'test'),
                            lambda key: None, None,
                            agent_lib.DataRequirements(batch_size=_N))
    self.assertIsNotNone(agent.recurrence)
    with self.assertRaisesRegex(TypeError, 'acts with a state'):
      agent.act(None, None, None)


class UpdateShellTest(absltest.TestCase):

  def _state(self):
    params = {'w': jnp.ones(3)}
    optimizer = optax.sgd(0.5)
    return optimizer, agent_lib.TrainingState(
        params, optimizer.init(params), jax.random.PRNGKey(0),
        jnp.zeros((), jnp.int32))

  def test_gradient_step_takes_one_step_and_reports_the_norm(self):
    optimizer, state = self._state()
    loss = lambda params, x: (jnp.sum(params['w'] * x), {'seen': x.sum()})
    new_state, metrics = on_policy.gradient_step(loss, optimizer, state,
                                                 jnp.array([1.0, 2.0, 2.0]))
    np.testing.assert_allclose(new_state.params['w'], [0.5, 0.0, 0.0])
    np.testing.assert_allclose(metrics['grad_norm'], 3.0)
    self.assertEqual(int(new_state.updates), 1)
    np.testing.assert_array_equal(new_state.key, state.key)

  def test_minibatch_epochs_step_once_per_minibatch_and_average(self):
    optimizer, state = self._state()
    steps = []

    def loss(params, batch):
      steps.append(batch['x'].shape)
      return jnp.sum(params['w']) * jnp.sum(batch['x']), {
          'x': jnp.mean(batch['x'])}

    data = {'x': jnp.arange(12.0).reshape(3, 4)}  # [T, B]
    new_state, metrics = on_policy.minibatch_epochs(
        loss, optimizer, state, data, num_epochs=2, num_minibatches=3)
    self.assertEqual(steps, [(4,)])  # Traced once, minibatches of 4 steps.
    # Each epoch's minibatches cover the 12 steps once: Σx = 66 per epoch.
    np.testing.assert_allclose(new_state.params['w'], 1 - 0.5 * 66 * 2)
    np.testing.assert_allclose(metrics['x'], 5.5)
    self.assertEqual(int(new_state.updates), 1)
    self.assertFalse(np.array_equal(new_state.key, state.key))


if __name__ == '__main__':
  absltest.main()
