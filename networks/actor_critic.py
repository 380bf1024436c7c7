"""Actor-critic networks: policy logits and values from one observation.

Two layouts: a torso shared by both heads (`make_actor_critic_network`),
and separate actor and critic MLPs as in CleanRL's and PureJaxRL's PPO
(`make_separate_actor_critic_network`).
"""

from typing import Callable, Optional, Sequence, Tuple

import haiku as hk
import jax
import numpy as np

from networks import mlp

# PureJaxRL / CleanRL PPO initialisation: orthogonal weights scaled by
# sqrt(2) on hidden layers, 0.01 on the policy head (near-uniform first
# policy), 1.0 on the value head; zero biases.
HIDDEN_INIT_SCALE = float(np.sqrt(2))
POLICY_INIT_SCALE = 0.01
VALUE_INIT_SCALE = 1.0


def make_actor_critic_network(
    num_actions: int,
    hidden_sizes: Optional[Sequence[int]] = None,
    activation: Callable[[jax.Array], jax.Array] = jax.nn.tanh,
    torso: mlp.TorsoFactory = mlp.MLPTorso,
) -> hk.Transformed:
  """One torso shared by a policy head and a value head.

  Args:
    num_actions: number of discrete actions.
    hidden_sizes: torso widths; None: the torso's default ((64, 64) for
      the MLP).
    activation: torso activation; tanh as in the common PPO setting.
    torso: builds the torso from `(hidden_sizes, activation=...)`
      (default: the MLP; e.g. `conv.ConvTorso` for images).

  Returns:
    `apply(params, observations [N, ...]) -> (logits [N, A], values [N])`.
  """

  def forward(observations: jax.Array) -> Tuple[jax.Array, jax.Array]:
    features = torso(hidden_sizes, activation=activation)(observations)
    logits = hk.Linear(num_actions, name='policy')(features)
    values = hk.Linear(1, name='value')(features)[..., 0]
    return logits, values

  return hk.without_apply_rng(hk.transform(forward))


def make_separate_actor_critic_network(
    num_actions: int,
    hidden_sizes: Optional[Sequence[int]] = None,
    activation: Callable[[jax.Array], jax.Array] = jax.nn.tanh,
) -> hk.Transformed:
  """An actor MLP and a critic MLP that share no parameters (PureJaxRL's
  PPO network): the value loss cannot pull on the policy's features.

  Both flatten the observation, then `hidden_sizes` layers with
  `activation`; weights are orthogonal (`HIDDEN_INIT_SCALE`, then
  `POLICY_INIT_SCALE` / `VALUE_INIT_SCALE` on the heads), biases zero.

  Args:
    num_actions: number of discrete actions.
    hidden_sizes: widths of each MLP; default (64, 64).
    activation: hidden activation; tanh as in PureJaxRL.

  Returns:
    `apply(params, observations [N, ...]) -> (logits [N, A], values [N])`.
  """
  hidden_sizes = tuple(mlp.DEFAULT_HIDDEN_SIZES if hidden_sizes is None
                       else hidden_sizes)

  def branch(x: jax.Array, head_size: int, head_scale: float,
             name: str) -> jax.Array:
    x = hk.nets.MLP(hidden_sizes, activation=activation, activate_final=True,
                    w_init=hk.initializers.Orthogonal(HIDDEN_INIT_SCALE),
                    b_init=hk.initializers.Constant(0.0),
                    name=f'{name}_torso')(x)
    return hk.Linear(head_size, name=name,
                     w_init=hk.initializers.Orthogonal(head_scale),
                     b_init=hk.initializers.Constant(0.0))(x)

  def forward(observations: jax.Array) -> Tuple[jax.Array, jax.Array]:
    x = hk.Flatten(preserve_dims=1)(observations.astype('float32'))
    logits = branch(x, num_actions, POLICY_INIT_SCALE, 'policy')
    values = branch(x, 1, VALUE_INIT_SCALE, 'value')[..., 0]
    return logits, values

  return hk.without_apply_rng(hk.transform(forward))
