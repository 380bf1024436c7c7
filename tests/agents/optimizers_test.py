"""Tests for agents/optimizers.py: the chain, its order and its settings."""

from unittest import mock

from absl.testing import absltest
from absl.testing import parameterized
import chex
import jax
import jax.numpy as jnp
import numpy as np
import optax

from agents import optimizers
from agents import ppo
from agents import pqn
from agents import registry as agent_registry
from agents import sac
from experiments import api
from experiments.setup import build as build_lib

# Every agent whose config has `gradient_clipping`, with a game it plays.
_CLIPPING_AGENTS = [
    (name, 'gymnax:Pendulum-v1' if name in ('sac', 'td3') else 'catch')
    for name in agent_registry.names()
    if hasattr(agent_registry.make_config(name), 'gradient_clipping')]


def _steps(optimizer, grads_sequence, params=None):
  """The updates `optimizer` gives for each of `grads_sequence`."""
  params = params if params is not None else jnp.zeros_like(
      grads_sequence[0])
  state = optimizer.init(params)
  updates = []
  for grads in grads_sequence:
    update, state = optimizer.update(grads, state, params)
    params = optax.apply_updates(params, update)
    updates.append(update)
  return updates, state


_GRADS = [jnp.array([3.0, -4.0]), jnp.array([0.1, 0.2]),
          jnp.array([-5.0, 12.0])]


class MakeOptimizerTest(parameterized.TestCase):

  def test_sgd_step_is_minus_learning_rate_times_gradient(self):
    (update,), _ = _steps(optimizers.make_optimizer(0.5, name='sgd'),
                          [jnp.array([3.0, -4.0])])
    np.testing.assert_allclose(update, [-1.5, 2.0])

  def test_clipping_comes_first(self):
    # ‖(3, -4)‖ = 5, clipped to norm 1 before the SGD step of size 2.
    optimizer = optimizers.make_optimizer(2.0, name='sgd', max_grad_norm=1.0)
    (update,), _ = _steps(optimizer, [jnp.array([3.0, -4.0])])
    np.testing.assert_allclose(update, [-1.2, 1.6], rtol=1e-6)

  def test_each_entry_clipping_clips_entries_not_the_norm(self):
    # rejax's way: (3, -4) clipped entrywise to [-1, 1] is (1, -1), where
    # the global norm would scale it to (0.6, -0.8).
    optimizer = optimizers.make_optimizer(
        2.0, name='sgd', max_grad_norm=1.0, gradient_clipping='each_entry')
    (update,), _ = _steps(optimizer, [jnp.array([3.0, -4.0])])
    np.testing.assert_allclose(update, [-2.0, 2.0])
    (update,), _ = _steps(optimizer, [jnp.array([0.5, -0.25])])
    np.testing.assert_allclose(update, [-1.0, 0.5])

  @parameterized.parameters(ppo.PPOConfig, pqn.PQNConfig)
  def test_gradient_clipping_is_a_checked_setting(self, config_class):
    self.assertEqual(config_class().gradient_clipping, 'global_norm')
    self.assertEqual(
        config_class(gradient_clipping='each_entry').gradient_clipping,
        'each_entry')
    for bad in ('norm', ['each_entry']):
      with self.assertRaisesRegex(
          ValueError, r"gradient_clipping must be one of \('global_norm'"):
        config_class(gradient_clipping=bad)

  def test_each_entry_needs_a_bound(self):
    with self.assertRaisesRegex(ValueError, 'max_grad_norm, which is None'):
      sac.SACConfig(gradient_clipping='each_entry')
    self.assertEqual(sac.SACConfig(gradient_clipping='each_entry',
                                   max_grad_norm=1.0).max_grad_norm, 1.0)

  def test_adam_eps_is_used(self):
    # Adam's first step is -lr·g/(|g| + ε): with ε = 1 and g = 1, -lr/2.
    (update,), _ = _steps(optimizers.make_optimizer(0.1, eps=1.0),
                          [jnp.array([1.0])])
    np.testing.assert_allclose(update, [-0.05], rtol=1e-4)
    (update,), _ = _steps(optimizers.make_optimizer(0.1), [jnp.array([1.0])])
    np.testing.assert_allclose(update, [-0.1], rtol=1e-4)

  def test_linear_decay_reaches_zero(self):
    optimizer = optimizers.make_optimizer(1.0, name='sgd', decay_steps=2)
    updates, _ = _steps(optimizer, [jnp.array([1.0])] * 4)
    np.testing.assert_allclose(np.concatenate(updates),
                               [-1.0, -0.5, 0.0, 0.0])

  @parameterized.named_parameters(
      # What REINFORCE, A2C, DQN and PPO each built by hand before.
      ('adam', dict(learning_rate=3e-3),
       lambda: optax.chain(optax.adam(3e-3))),
      ('sgd', dict(learning_rate=3e-3, name='sgd'),
       lambda: optax.chain(optax.sgd(3e-3))),
      ('sgd_clipped', dict(learning_rate=3e-3, name='sgd', max_grad_norm=2.0),
       lambda: optax.chain(optax.clip_by_global_norm(2.0), optax.sgd(3e-3))),
      ('a2c', dict(learning_rate=1e-3, max_grad_norm=0.5),
       lambda: optax.chain(optax.clip_by_global_norm(0.5),
                           optax.adam(1e-3))),
      ('dqn', dict(learning_rate=1e-3, max_grad_norm=10.0),
       lambda: optax.chain(optax.clip_by_global_norm(10.0),
                           optax.adam(1e-3))),
      ('ppo', dict(learning_rate=2.5e-4, max_grad_norm=0.5, eps=1e-5),
       lambda: optax.chain(optax.clip_by_global_norm(0.5),
                           optax.adam(2.5e-4, eps=1e-5))),
      ('ppo_decay', dict(learning_rate=2.5e-4, max_grad_norm=0.5, eps=1e-5,
                         decay_steps=3),
       lambda: optax.chain(optax.clip_by_global_norm(0.5),
                           optax.adam(optax.linear_schedule(2.5e-4, 0.0, 3),
                                      eps=1e-5))),
  )
  def test_bit_identical_to_the_hand_built_chain(self, kwargs, reference):
    updates, state = _steps(optimizers.make_optimizer(**kwargs), _GRADS)
    expected_updates, expected_state = _steps(reference(), _GRADS)
    # Same state structure (checkpoints stay loadable) and same bits.
    self.assertEqual(jax.tree.structure(state),
                     jax.tree.structure(expected_state))
    chex.assert_trees_all_equal(updates, expected_updates)
    chex.assert_trees_all_equal(state, expected_state)

  def test_schedule_learning_rate(self):
    schedule = optax.piecewise_constant_schedule(1.0, {1: 0.1})
    updates, _ = _steps(optimizers.make_optimizer(schedule, name='sgd'),
                        [jnp.array([1.0])] * 2)
    np.testing.assert_allclose(np.concatenate(updates), [-1.0, -0.1],
                               rtol=1e-6)

  @parameterized.named_parameters(
      ('unknown_name', dict(name='rmsprop'), r"one of \('adam', 'sgd'\)"),
      ('eps_with_sgd', dict(name='sgd', eps=1e-5), 'eps'),
      ('unknown_clipping', dict(max_grad_norm=1.0, gradient_clipping='x'),
       r"gradient_clipping must be one of \('global_norm', 'each_entry'\)"),
      ('decay_below_one', dict(decay_steps=0), 'decay_steps must be >= 1'),
      ('decay_of_schedule',
       dict(learning_rate=optax.constant_schedule(1.0), decay_steps=2),
       'schedule'),
  )
  def test_bad_settings_are_named(self, kwargs, message):
    with self.assertRaisesRegex(ValueError, message):
      optimizers.make_optimizer(**{'learning_rate': 0.1, **kwargs})


class AgentsPassTheSettingTest(parameterized.TestCase):

  def test_every_agent_with_max_grad_norm_has_the_setting(self):
    with_norm = [n for n in agent_registry.names() if hasattr(
        agent_registry.make_config(n), 'max_grad_norm')]
    self.assertCountEqual([n for n, _ in _CLIPPING_AGENTS], with_norm)

  @parameterized.parameters(*_CLIPPING_AGENTS)
  def test_make_agent_builds_its_optimizers_with_it(self, name, env):
    config = api.experiment_config(
        agent=name, env=env, num_steps=1000, export_tflite=False,
        preset='none', config={'gradient_clipping': 'each_entry',
                               'max_grad_norm': 1.0})
    seen = []
    real = optimizers.make_optimizer

    def recording(*args, **kwargs):
      seen.append((kwargs.get('max_grad_norm'),
                   kwargs.get('gradient_clipping')))
      return real(*args, **kwargs)

    with mock.patch.object(optimizers, 'make_optimizer', recording):
      build_lib.build(config)
    # Every optimizer that clips clips as the setting says (SAC's
    # temperature is stepped unclipped).
    clipping = [c for norm, c in seen if norm is not None]
    self.assertNotEmpty(clipping)
    self.assertEqual(set(clipping), {'each_entry'}, seen)


class FitDecayToBudgetTest(parameterized.TestCase):

  @parameterized.named_parameters(
      # ⌈500k / (128·4)⌉ and ⌈500k / (128·16)⌉ updates.
      ('ppo', ppo.PPOConfig, 977),
      ('pqn', pqn.PQNConfig, 245))
  def test_annealing_over_the_budget(self, config_class, updates):
    fitted = optimizers.fit_decay_to_budget(
        config_class(anneal_learning_rate=True), 500_000)
    self.assertEqual(fitted.learning_rate_decay_updates, updates)
    self.assertEqual(optimizers.fit_decay_to_budget(fitted, 500_000), fitted)
    self.assertEqual(optimizers.decay_optimizer_steps(fitted),
                     updates * fitted.num_epochs * fitted.num_minibatches)
    self.assertEqual(optimizers.decay_schedule(fitted), {})
    plain = config_class()
    self.assertIs(optimizers.fit_decay_to_budget(plain, 500_000), plain)
    self.assertIsNone(optimizers.decay_optimizer_steps(plain))

  def test_a_decay_by_hand_is_a_schedule_in_environment_steps(self):
    config = pqn.PQNConfig(learning_rate_decay_updates=10)
    self.assertEqual(
        optimizers.decay_schedule(config),
        {'learning-rate decay (learning_rate_decay_updates)': 10 * 128 * 16})

  @parameterized.named_parameters(('ppo', ppo.PPOConfig),
                                  ('pqn', pqn.PQNConfig))
  def test_annealing_needs_a_step_budget_and_no_other_decay(
      self, config_class):
    name = config_class.__name__
    with self.assertRaisesRegex(ValueError, f'{name}.*needs a budget'):
      optimizers.fit_decay_to_budget(
          config_class(anneal_learning_rate=True), None)
    with self.assertRaisesRegex(ValueError, 'Give one of the two'):
      optimizers.fit_decay_to_budget(
          config_class(anneal_learning_rate=True,
                       learning_rate_decay_updates=3), 100_000)


if __name__ == '__main__':
  absltest.main()
