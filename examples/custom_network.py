r"""A custom Haiku network for an existing agent.

A policy network whose hidden layers are normalised (LayerNorm) and use
tanh, registered under the name `layer_norm_policy` as a `POLICY` network
(observations -> logits), the kind REINFORCE needs. Any agent that needs a
policy network can take it with `--network`:

  python -m experiments.train --imports=examples/custom_network.py \
      --agent=reinforce --network=layer_norm_policy --env=catch \
      --num_episodes=2000 --workdir=/tmp/layer_norm

The exported TFLite model is this network's policy, verified against JAX as
for the built-in networks.
"""

from typing import Optional, Sequence

import haiku as hk
import jax
import jax.numpy as jnp

from environments import specs
from networks import registry


def make_layer_norm_policy(environment_spec: specs.EnvironmentSpec,
                           hidden_sizes: Optional[Sequence[int]] = None
                          ) -> hk.Transformed:
  """Flatten -> [Linear -> LayerNorm -> tanh] x len(hidden_sizes) -> logits.
  """
  hidden_sizes = tuple(hidden_sizes or (64, 64))
  num_actions = environment_spec.num_actions

  def forward(observations: jax.Array) -> jax.Array:
    x = hk.Flatten()(observations.astype(jnp.float32))
    for width in hidden_sizes:
      x = hk.Linear(width)(x)
      x = hk.LayerNorm(axis=-1, create_scale=True, create_offset=True)(x)
      x = jnp.tanh(x)
    return hk.Linear(num_actions, name='logits')(x)

  return hk.without_apply_rng(hk.transform(forward))


registry.register(registry.NetworkEntry('layer_norm_policy', registry.POLICY,
                                        make_layer_norm_policy))
