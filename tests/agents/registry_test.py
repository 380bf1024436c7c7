"""Tests for agents/registry.py."""

import dataclasses
from unittest import mock

from absl.testing import absltest
from dm_env import specs as dm_specs
import jax
import numpy as np

from agents import registry
from agents import reinforce
from environments import plane_strike
from environments import specs
from experiments.loops import device_mesh
from networks import registry as network_registry


def _image_spec():
  """A MinAtar-like spec: float32 [10, 10, 4] images, 3 actions."""
  return specs.make_spec(
      dm_specs.Array((10, 10, 4), np.float32),
      dm_specs.DiscreteArray(3))


class RegistryTest(absltest.TestCase):

  def test_titles_for_people(self):
    self.assertEqual([registry.title(n) for n in registry.names()],
                     ['A2C', 'AlphaZero', 'C51', 'DQN', 'IMPALA', 'MuZero',
                      'PPO', 'PQN', 'QR-DQN', 'REINFORCE', 'SAC', 'TD3'])

  def test_names(self):
    self.assertIn('reinforce', registry.names())

  def test_unknown_agent_lists_valid_names(self):
    with self.assertRaisesRegex(ValueError, r"Unknown agent 'sarsa'.*reinforce"):
      registry.get('sarsa')

  def test_unknown_config_key_lists_valid_keys(self):
    with self.assertRaisesRegex(ValueError, r"\['lr'\].*learning_rate"):
      registry.make_config('reinforce', lr=0.1)

  def test_make_config_overrides(self):
    config = registry.make_config('reinforce', batch_size=3)
    self.assertIsInstance(config, reinforce.ReinforceConfig)
    self.assertEqual(config.batch_size, 3)

  def test_make_agent_builds_a_working_agent(self):
    spec = specs.make_environment_spec(plane_strike.make_environment())
    agent = registry.make_agent('reinforce', registry.make_config('reinforce'),
                                spec, hidden_sizes=(8,))
    state = agent.init(jax.random.PRNGKey(0))
    params = agent.actor_params(state)
    self.assertEqual(params['logits']['w'].shape, (8, 64))

  def test_each_agent_names_a_default_network_of_its_kind(self):
    for name in ('a2c', 'dqn', 'ppo', 'pqn', 'reinforce'):
      entry = registry.get(name)
      self.assertEqual(registry.network_entry(name).kind, entry.network_kind)

  def test_network_of_another_kind_is_refused(self):
    with self.assertRaisesRegex(ValueError,
                                r"Agent 'dqn'.*kind 'q_values'.*mlp_q_values"):
      registry.network_entry('dqn', 'mlp_policy')

  def test_image_observations_get_the_conv_twin_of_the_agents_network(self):
    spec = _image_spec()
    for name, expected in (('a2c', 'conv_actor_critic'),
                           ('dqn', 'conv_q_values'),
                           ('ppo', 'conv_actor_critic'),
                           ('pqn', 'conv_layer_norm_q_values'),
                           ('reinforce', 'conv_policy')):
      self.assertEqual(registry.network_entry(name, None, spec).name,
                       expected)
      self.assertEqual(registry.network_entry(name, None, spec).kind,
                       registry.get(name).network_kind)

  def test_vector_observations_get_the_agents_default(self):
    spec = specs.make_environment_spec(plane_strike.make_environment())
    for name in ('a2c', 'dqn', 'ppo', 'pqn', 'reinforce'):
      self.assertEqual(registry.network_entry(name, None, spec).name,
                       registry.get(name).default_network)
      # No spec (e.g. validating a config): the agent's default too.
      self.assertEqual(registry.network_entry(name).name,
                       registry.get(name).default_network)

  def test_make_agent_builds_the_conv_network_on_images(self):
    spec = _image_spec()
    agent = registry.make_agent('reinforce', registry.make_config('reinforce'),
                                spec)
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    self.assertEqual(params['conv_torso/conv_0']['w'].shape, (3, 3, 4, 16))

  def test_named_network_wins_on_images(self):
    spec = _image_spec()
    self.assertEqual(
        registry.network_entry('ppo', 'mlp_actor_critic', spec).name,
        'mlp_actor_critic')
    agent = registry.make_agent('ppo', registry.make_config('ppo'), spec,
                                hidden_sizes=(8,),
                                network='mlp_separate_actor_critic')
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    # The MLP flattens the 10x10x4 image.
    self.assertEqual(params['policy_torso/~/linear_0']['w'].shape, (400, 8))
    self.assertNotIn('conv_torso/conv_0', params)

  def test_conv_network_on_vector_observations_is_refused(self):
    spec = specs.make_environment_spec(plane_strike.make_environment())
    pattern = (r"Agent 'reinforce': Network 'conv_policy' needs "
               r'observations of rank 3.*shape \(8, 8\).*Valid choices '
               r'here: gru_policy, lstm_policy, mlp_policy')
    with self.assertRaisesRegex(ValueError, pattern):
      registry.network_entry('reinforce', 'conv_policy', spec)
    with self.assertRaisesRegex(ValueError, pattern):
      registry.make_agent('reinforce', registry.make_config('reinforce'),
                          spec, network='conv_policy')

  def test_only_policy_gradient_agents_train_on_the_device(self):
    self.assertEqual(
        [n for n in registry.names() if registry.get(n).trainable_on_device],
        ['a2c', 'ppo', 'reinforce'])

  def test_registered_agent_and_network_are_built_by_name(self):
    spec = specs.make_environment_spec(plane_strike.make_environment())
    network = network_registry.NetworkEntry(
        'wide_policy', network_registry.POLICY,
        lambda spec, sizes: registry.network_entry('reinforce').make(
            spec, (24,)))
    entry = registry.AgentEntry(
        'my_reinforce', reinforce.ReinforceConfig, reinforce.make_agent,
        {registry.DISCRETE: (network_registry.POLICY, 'mlp_policy')})
    with mock.patch.dict(registry._ENTRIES.by_name), mock.patch.dict(  # pylint: disable=protected-access
        network_registry._ENTRIES.by_name):  # pylint: disable=protected-access
      network_registry.register(network)
      registry.register(entry)
      self.assertIn('my_reinforce', registry.names())
      agent = registry.make_agent(
          'my_reinforce', registry.make_config('my_reinforce'), spec,
          network='wide_policy')
      params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
      self.assertEqual(params['logits']['w'].shape, (24, 64))
      with self.assertRaisesRegex(ValueError, 'already registered'):
        registry.register(registry.AgentEntry(
            'my_reinforce', reinforce.ReinforceConfig, lambda *a: None,
            {registry.DISCRETE: (network_registry.POLICY, 'mlp_policy')}))
    self.assertNotIn('my_reinforce', registry.names())

  def test_entry_checks_its_network_and_config(self):
    with self.assertRaisesRegex(ValueError, 'Unknown network'):
      registry.AgentEntry(
          'x', reinforce.ReinforceConfig, reinforce.make_agent,
          {registry.DISCRETE: (network_registry.POLICY, 'no_such_net')})
    with self.assertRaisesRegex(ValueError, 'config_class must be a '
                                'dataclass'):
      registry.AgentEntry(
          'x', dict, reinforce.make_agent,
          {registry.DISCRETE: (network_registry.POLICY, 'mlp_policy')})


def _continuous_spec():
  """A Pendulum-like spec: 3 floats, one action in [-2, 2]."""
  return specs.make_spec(
      dm_specs.Array((3,), np.float32),
      dm_specs.BoundedArray((1,), np.float32, -2.0, 2.0))


def _discrete_spec():
  return specs.make_environment_spec(plane_strike.make_environment())


class ActionSpaceTest(absltest.TestCase):

  def test_action_space_of_a_spec(self):
    self.assertEqual(_continuous_spec().action_space,
                     registry.CONTINUOUS)
    self.assertEqual(_discrete_spec().action_space,
                     registry.DISCRETE)

  def test_networks_per_action_space(self):
    self.assertEqual(registry.get('ppo').networks, {
        'discrete': ('actor_critic', 'mlp_actor_critic'),
        'continuous': ('gaussian_actor_critic', 'mlp_gaussian_actor_critic')})
    self.assertEqual(registry.get('sac').networks,
                     {'continuous': ('actor_twin_q', 'mlp_actor_twin_q')})
    self.assertEqual(registry.get('td3').networks, {'continuous': (
        'deterministic_actor_twin_q', 'mlp_deterministic_actor_twin_q')})
    self.assertEqual(registry.get('dqn').networks,
                     {'discrete': ('q_values', 'mlp_q_values')})

  def test_discrete_agents_refuse_continuous_actions(self):
    for name in ('dqn', 'reinforce', 'a2c'):
      pattern = (rf"^Agent '{name}' acts in discrete action spaces; this "
                 r"environment's actions are continuous \(shape \(1,\), "
                 r'bounds \[-2, 2\]\)\. Agents for continuous actions: '
                 r'ppo, sac, td3\.$')
      with self.assertRaisesRegex(ValueError, pattern):
        registry.get(name).check_action_space(_continuous_spec())
      with self.assertRaisesRegex(ValueError, pattern):  # Before any network.
        registry.make_agent(name, registry.make_config(name),
                            _continuous_spec())

  def test_sac_refuses_discrete_actions(self):
    pattern = (r"^Agent 'sac' acts in continuous action spaces; this "
               r"environment's actions are discrete \(64 actions\)\. "
               r'Agents for discrete actions: a2c, alphazero, c51, dqn, '
               r'impala, muzero, ppo, pqn, qr_dqn, reinforce\.$')
    with self.assertRaisesRegex(ValueError, pattern):
      registry.get('sac').check_action_space(_discrete_spec())
    with self.assertRaisesRegex(ValueError, pattern):
      registry.network_entry('sac', None, _discrete_spec())

  def test_ppo_acts_in_both(self):
    registry.get('ppo').check_action_space(_continuous_spec())
    registry.get('ppo').check_action_space(_discrete_spec())
    registry.get('sac').check_action_space(_continuous_spec())

  def test_default_networks_per_action_space(self):
    self.assertEqual(
        registry.network_entry('ppo', None, _continuous_spec()).name,
        'mlp_gaussian_actor_critic')
    self.assertEqual(registry.network_entry('ppo', None, _discrete_spec()).name,
                     'mlp_actor_critic')
    self.assertEqual(
        registry.network_entry('sac', None, _continuous_spec()).name,
        'mlp_actor_twin_q')
    # No spec: the default of the agent's own action space.
    self.assertEqual(registry.network_entry('ppo').name, 'mlp_actor_critic')
    self.assertEqual(registry.network_entry('sac').name, 'mlp_actor_twin_q')

  def test_named_networks_of_any_kind_the_agent_uses(self):
    # No spec (validating a config): a network of either of PPO's kinds.
    self.assertEqual(
        registry.network_entry(
            'ppo', 'mlp_gaussian_actor_critic_state_std').kind,
        network_registry.GAUSSIAN_ACTOR_CRITIC)
    self.assertEqual(
        registry.network_entry('ppo', 'mlp_separate_actor_critic').kind,
        network_registry.ACTOR_CRITIC)
    self.assertEqual(
        registry.network_entry('ppo', 'mlp_gaussian_actor_critic_state_std',
                               _continuous_spec()).name,
        'mlp_gaussian_actor_critic_state_std')
    with self.assertRaisesRegex(ValueError, r"Agent 'ppo': Network "
                                r"'mlp_actor_twin_q' is of kind"):
      registry.network_entry('ppo', 'mlp_actor_twin_q')

  def test_network_of_the_other_action_space_is_refused(self):
    with self.assertRaisesRegex(
        ValueError, r"^Agent 'ppo': Network 'mlp_gaussian_actor_critic' is "
        r"of kind 'gaussian_actor_critic'; kind 'actor_critic' is needed"):
      registry.network_entry('ppo', 'mlp_gaussian_actor_critic',
                             _discrete_spec())
    with self.assertRaisesRegex(
        ValueError, r"^Agent 'ppo': Network 'mlp_actor_critic' is of kind "
        r"'actor_critic'; kind 'gaussian_actor_critic' is needed.*"
        r'mlp_gaussian_actor_critic, mlp_gaussian_actor_critic_state_std'):
      registry.network_entry('ppo', 'mlp_actor_critic', _continuous_spec())

  def test_environments_per_update_is_the_built_agents_batch(self):
    for name in registry.names():
      config = registry.make_config(name)
      spec = (_continuous_spec() if registry.get(name).action_space ==
              'continuous' else _discrete_spec())
      agent = registry.make_agent(name, config, spec, hidden_sizes=(8,))
      with self.subTest(name):
        self.assertEqual(registry.environments_per_update(config),
                         agent.data.batch_size)
    dqn = registry.make_config('dqn', num_actors=3, batch_size=32)
    self.assertEqual(registry.environments_per_update(dqn), 3)

    @dataclasses.dataclass(frozen=True)
    class Unsized:
      learning_rate: float = 0.1

    with self.assertRaisesRegex(ValueError, '^Unsized needs a batch_size'):
      registry.environments_per_update(Unsized())

  def test_make_agent_builds_continuous_agents(self):
    spec = _continuous_spec()
    ppo_agent = registry.make_agent('ppo', registry.make_config('ppo'), spec,
                                    hidden_sizes=(8,))
    params = ppo_agent.actor_params(ppo_agent.init(jax.random.PRNGKey(0)))
    self.assertEqual(params['policy_mean']['w'].shape, (8, 1))
    sac_agent = registry.make_agent('sac', registry.make_config('sac'), spec,
                                    hidden_sizes=(8,))
    params = sac_agent.actor_params(sac_agent.init(jax.random.PRNGKey(0)))
    self.assertEqual(params['actor']['actor/~/linear_1']['w'].shape, (8, 2))

  def test_entry_checks_its_action_spaces(self):
    # The old positional form (kind, default network) lands here too.
    for networks in ({'box': (network_registry.POLICY, 'mlp_policy')}, {},
                     'mlp_policy'):
      with self.assertRaisesRegex(ValueError,
                                  r"Agent 'x': networks must map action "
                                  r"spaces of \('discrete', 'continuous'\)"):
        registry.AgentEntry('x', reinforce.ReinforceConfig,
                            reinforce.make_agent, networks)

  def test_entry_checks_its_continuous_network(self):
    with self.assertRaisesRegex(ValueError, "Unknown network 'no_such_net'"):
      registry.AgentEntry(
          'x', reinforce.ReinforceConfig, reinforce.make_agent,
          {registry.DISCRETE: (network_registry.POLICY, 'mlp_policy'),
           registry.CONTINUOUS: (network_registry.GAUSSIAN_ACTOR_CRITIC,
                                 'no_such_net')})
    with self.assertRaisesRegex(ValueError, "Network 'mlp_actor_twin_q' is "
                                "of kind 'actor_twin_q'"):
      registry.AgentEntry(
          'x', reinforce.ReinforceConfig, reinforce.make_agent,
          {registry.DISCRETE: (network_registry.POLICY, 'mlp_policy'),
           registry.CONTINUOUS: (network_registry.GAUSSIAN_ACTOR_CRITIC,
                                 'mlp_actor_twin_q')})

  def test_entry_network_kinds_must_fit_their_action_space(self):
    with self.assertRaisesRegex(ValueError, r"Agent 'x'.*policy"):
      registry.AgentEntry(
          'x', reinforce.ReinforceConfig, reinforce.make_agent,
          {registry.CONTINUOUS: (network_registry.POLICY, 'mlp_policy')})
    with self.assertRaisesRegex(ValueError, r"Agent 'x'.*actor_critic"):
      registry.AgentEntry(
          'x', reinforce.ReinforceConfig, reinforce.make_agent,
          {registry.DISCRETE: (network_registry.POLICY, 'mlp_policy'),
           registry.CONTINUOUS: (network_registry.ACTOR_CRITIC,
                                 'mlp_actor_critic')})
    with self.assertRaisesRegex(ValueError, r"Agent 'x'.*actor_twin_q"):
      registry.AgentEntry(
          'x', reinforce.ReinforceConfig, reinforce.make_agent,
          {registry.DISCRETE: (network_registry.ACTOR_TWIN_Q,
                               'mlp_actor_twin_q')})


class ScheduleTest(absltest.TestCase):

  def test_schedules_end_at_their_environment_step(self):
    dqn = registry.make_config('dqn', epsilon_decay_steps=1234)
    self.assertEqual(registry.schedule_ends(dqn),
                     {'ε decay (epsilon_decay_steps)': 1234})
    by_hand = registry.make_config('ppo', anneal_learning_rate=False,
                                   learning_rate_decay_updates=10,
                                   unroll_length=16, batch_size=4)
    self.assertEqual(registry.schedule_ends(by_hand), {
        'learning-rate decay (learning_rate_decay_updates)': 640})
    fitted = registry.fit_to_budget(
        registry.make_config('ppo', anneal_learning_rate=True), 5000)
    self.assertEqual(registry.schedule_ends(fitted), {})
    self.assertEqual(registry.schedule_ends(
        registry.make_config('reinforce')), {})

  def test_a_recurrent_network_s_minibatch_sequences_must_split_too(self):
    # The preset's 32 sequences in 16 minibatches: 2 sequences each, so 4
    # devices divide its 256 steps per minibatch but not its sequences.
    config = registry.make_config('pqn', batch_size=32, unroll_length=128,
                                  num_minibatches=16)
    self.assertEqual(list(registry.batch_splits(config).values()), [256])
    splits = registry.batch_splits(config, recurrent=True)
    self.assertEqual(sorted(splits.values()), [2, 256])
    with self.assertRaisesRegex(ValueError, 'sequences.* = 2'):
      device_mesh.check_devices_per_seed(4, 32, splits, 4)
    device_mesh.check_devices_per_seed(2, 32, splits, 4)
    # Agents without minibatches of sequences add nothing.
    self.assertEqual(registry.batch_splits(registry.make_config('a2c'),
                                           recurrent=True), {})

  def test_configs_without_the_methods_have_none_of_it(self):

    @dataclasses.dataclass(frozen=True)
    class PlainConfig:
      learning_rate: float = 0.1

    config = PlainConfig()
    self.assertIs(registry.fit_to_budget(config, 5000), config)
    self.assertEqual(registry.schedule_ends(config), {})
    self.assertIsNone(registry.batch_splits(config))
    self.assertEqual(registry.network_options(config), {})
    self.assertEqual(registry.batch_splits(registry.make_config('a2c')), {})
    self.assertEqual(
        registry.network_options(registry.make_config('c51', num_atoms=11)),
        {'num_atoms': 11})


if __name__ == '__main__':
  absltest.main()
