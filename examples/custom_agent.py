r"""A minimal new agent on the agent interface: REINFORCE with a learned
value baseline, on the on-policy skeleton.

Each update learns from `batch_size` whole episodes: the critic regresses
v(o_t) on the discounted return G_t, and the actor follows the policy
gradient weighted by the advantage G_t − v(o_t). (The built-in REINFORCE
subtracts the batch's mean return instead.) It is built from the agents'
shared parts: the on-policy skeleton (`agents.on_policy`: acting with
illegal actions masked, the update's shell, the `Agent` itself), the
optimizer chain, discounted returns and the masked policy-gradient loss,
so it runs in both loops and exports like the built-in agents. What is
its own is its config and its loss.

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

from agents import agent as agent_lib
from agents import config_checks
from agents import on_policy
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


def loss(logits: jax.Array, values: jax.Array,
         trajectory: agent_lib.Trajectory, config: ReinforceWithBaselineConfig
        ) -> Tuple[jax.Array, agent_lib.Metrics]:
  """The agent's loss over `[T, B]` whole episodes: the policy gradient
  weighted by G_t − v(o_t), the critic's squared error and the entropy
  bonus, each a mean over the real steps (`trajectory.mask`). A pure
  function of arrays, like the built-in agents' losses; its means are of
  one device's batch, so the agent trains one device per seed (its
  config declares no `batch_splits`)."""
  flat = agent_lib.flatten_steps
  targets = flat(returns.discounted_returns(trajectory, config.discount))
  mask = flat(trajectory.mask)
  values = flat(values)
  advantages = targets - values
  pg_loss, entropy_loss = policy_gradient.masked_losses(
      logits, flat(trajectory.actions), jax.lax.stop_gradient(advantages),
      mask)
  value_loss = jnp.sum(mask * advantages**2) / jnp.maximum(mask.sum(), 1)
  loss_value = (pg_loss + config.value_cost * value_loss +
                config.entropy_cost * entropy_loss)
  return loss_value, {'loss': loss_value, 'policy_loss': pg_loss,
                      'value_loss': value_loss, 'entropy': -entropy_loss}


def make_agent(config: ReinforceWithBaselineConfig,
               environment_spec: specs.EnvironmentSpec,
               network: hk.Transformed
               ) -> agent_lib.Agent[agent_lib.TrainingState]:
  """The agent around an actor-critic `network`, on the on-policy
  skeleton (`agents.on_policy`): it acts, masks illegal actions, exports,
  and steps the optimizer once per batch; this file adds the loss."""
  optimizer = optimizers.make_optimizer(config.learning_rate)
  policy = on_policy.PolicyNetwork(network, environment_spec,
                                   'reinforce_with_baseline')

  def loss_fn(params, trajectory: agent_lib.Trajectory):
    logits, values, _ = policy.outputs(params, trajectory.observations,
                                       trajectory.extras)
    return loss(logits, values, trajectory, config)

  def update(state: agent_lib.TrainingState,
             trajectory: agent_lib.Trajectory
            ) -> Tuple[agent_lib.TrainingState, agent_lib.Metrics]:
    chex.assert_rank(trajectory.rewards, 2)
    return on_policy.gradient_step(loss_fn, optimizer, state, trajectory)

  return on_policy.agent(
      policy, on_policy.init_state(network, environment_spec, optimizer),
      update, agent_lib.DataRequirements(batch_size=config.batch_size))


registry.register(registry.AgentEntry(
    name='reinforce_with_baseline', config_class=ReinforceWithBaselineConfig,
    make_agent=make_agent,
    networks={registry.DISCRETE: (network_registry.ACTOR_CRITIC,
                                  'mlp_actor_critic')},
    trainable_on_device=True))
