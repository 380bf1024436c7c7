r"""A minimal new agent on the agent interface: REINFORCE with a learned
value baseline.

Each update learns from `batch_size` whole episodes: the critic regresses
v(o_t) on the discounted return G_t, and the actor follows the policy
gradient weighted by the advantage G_t − v(o_t). (The built-in REINFORCE
subtracts the batch's mean return instead.) It is built from the agents'
shared parts (optimizer chain, masked forward pass, discounted returns,
masked policy-gradient loss), so it masks illegal actions, runs in both
loops and exports like the built-in agents.

Registering it is one `AgentEntry`: its config dataclass, the kind of
network it needs (an actor-critic: logits and values), its default network
and its factory. Then:

  python -m experiments.train --imports=examples/custom_agent.py \
      --agent=reinforce_with_baseline --env=catch --num_steps=20000 \
      --workdir=/tmp/baseline
"""

import dataclasses
from typing import Tuple

import chex
import haiku as hk
import jax
import jax.numpy as jnp
import optax

from agents import agent as agent_lib
from agents import config_checks
from agents import masked_forward
from agents import optimizers
from agents import policy_gradient
from agents import registry
from agents import returns
from environments import specs
from networks import registry as network_registry


@dataclasses.dataclass(frozen=True)
class ReinforceWithBaselineConfig:
  """Hyperparameters.

  Attributes:
    learning_rate: Adam step size.
    discount: γ of the returns.
    batch_size: whole episodes per update.
    value_cost: weight of the critic's squared error.
    entropy_cost: weight of the entropy bonus (keeps exploring).
  """
  learning_rate: float = 3e-3
  discount: float = 0.99
  batch_size: int = 4
  value_cost: float = 0.5
  entropy_cost: float = 0.01

  def __post_init__(self):
    config_checks.check_positive(self, 'learning_rate', 'value_cost')
    if not self.entropy_cost >= 0:
      raise ValueError(f'ReinforceWithBaselineConfig.entropy_cost must be >= 0; got '
                       f'{self.entropy_cost}.')
    config_checks.check_unit_interval(self, 'discount')
    config_checks.check_positive_integer(self, 'batch_size')


def make_agent(config: ReinforceWithBaselineConfig,
               environment_spec: specs.EnvironmentSpec,
               network: hk.Transformed
               ) -> agent_lib.Agent[agent_lib.TrainingState]:
  """The agent around an actor-critic `network`."""
  optimizer = optimizers.make_optimizer(config.learning_rate)
  forward = masked_forward.masked_actor_critic(network, environment_spec)

  def act(params, key, observations):
    logits, _ = forward(params, observations)
    return jax.random.categorical(key, logits).astype(jnp.int32), {}

  def loss_fn(params, trajectory: agent_lib.Trajectory):
    logits, values = forward(params,
                             agent_lib.flatten_steps(trajectory.observations))
    targets = agent_lib.flatten_steps(
        returns.discounted_returns(trajectory, config.discount))
    mask = agent_lib.flatten_steps(trajectory.mask)
    advantages = targets - values
    pg_loss, entropy_loss = policy_gradient.masked_losses(
        logits, agent_lib.flatten_steps(trajectory.actions),
        jax.lax.stop_gradient(advantages), mask)
    value_loss = jnp.sum(mask * advantages**2) / jnp.maximum(mask.sum(), 1)
    loss = (pg_loss + config.value_cost * value_loss +
            config.entropy_cost * entropy_loss)
    return loss, {'loss': loss, 'policy_loss': pg_loss,
                  'value_loss': value_loss, 'entropy': -entropy_loss}

  def update(state: agent_lib.TrainingState,
             trajectory: agent_lib.Trajectory
            ) -> Tuple[agent_lib.TrainingState, agent_lib.Metrics]:
    chex.assert_rank(trajectory.rewards, 2)
    grads, metrics = jax.grad(loss_fn, has_aux=True)(state.params,
                                                     trajectory)
    metrics = dict(metrics, grad_norm=optax.global_norm(grads))
    return agent_lib.apply_gradients(optimizer, state, grads), metrics

  return agent_lib.Agent(
      init=lambda key: agent_lib.init_training_state(
          network, environment_spec.observations, optimizer, key),
      actor_params=lambda state: state.params,
      act=act,
      update=update,
      deployable_policy=masked_forward.policy_probabilities(
          network, environment_spec, has_values=True),
      data=agent_lib.DataRequirements(batch_size=config.batch_size))


registry.register(registry.AgentEntry(
    name='reinforce_with_baseline', config_class=ReinforceWithBaselineConfig,
    make_agent=make_agent,
    networks={registry.DISCRETE: (network_registry.ACTOR_CRITIC,
                                  'mlp_actor_critic')},
    trainable_on_device=True))
