"""MuZero's learned model (Schrittwieser et al., 2020) as pure functions.

Three networks in one `hk.multi_transform`, so one `init` creates every
parameter:

* representation h: observation -> embedding (the torso, then a linear
  layer, min-max scaled to [0, 1] per embedding as in MuZero);
* dynamics g: (embedding, action) -> (next embedding, reward), an MLP on
  the embedding and the action's one-hot;
* prediction f: embedding -> (policy logits, value).

The search (`agents.muzero`) unrolls g and f from h's embedding of the
board it acts on; `policy` (f after h) is what acting without search, the
TFLite export and greedy evaluation use, an actor-critic's face
(`obs -> (logits, values)`).
"""

from typing import Callable, NamedTuple, Optional, Sequence, Tuple

import haiku as hk
import jax
import jax.numpy as jnp

from networks import mlp


class LearnedModel(NamedTuple):
  """MuZero's networks as pure functions of one parameter set.

  Attributes:
    init: `(key, observations [N, ...]) -> params` of all three networks.
    policy: `(params, observations) -> (logits [N, A], values [N])`: f
      after h, the network's policy without search.
    represent: `(params, observations) -> embeddings [N, E]`.
    predict: `(params, embeddings) -> (logits [N, A], values [N])`.
    dynamics: `(params, embeddings, actions [N] int) -> (embeddings
      [N, E], rewards [N])`.
  """
  init: Callable[..., hk.Params]
  policy: Callable[..., Tuple[jax.Array, jax.Array]]
  represent: Callable[..., jax.Array]
  predict: Callable[..., Tuple[jax.Array, jax.Array]]
  dynamics: Callable[..., Tuple[jax.Array, jax.Array]]

  @property
  def apply(self) -> Callable[..., Tuple[jax.Array, jax.Array]]:
    """`policy`: the model seen as an actor-critic network."""
    return self.policy


def scale_to_unit_interval(embeddings: jax.Array) -> jax.Array:
  """Each embedding `[..., E]` min-max scaled to [0, 1] (MuZero's
  normalisation of hidden states, which keeps the dynamics' inputs in the
  range of the representation's)."""
  low = jnp.min(embeddings, axis=-1, keepdims=True)
  high = jnp.max(embeddings, axis=-1, keepdims=True)
  return (embeddings - low) / jnp.maximum(high - low, 1e-3)


def make_learned_model_network(
    num_actions: int,
    hidden_sizes: Optional[Sequence[int]] = None,
    torso: mlp.TorsoFactory = mlp.MLPTorso,
    activation: Callable[[jax.Array], jax.Array] = jax.nn.relu,
) -> LearnedModel:
  """MuZero's representation, dynamics and prediction networks.

  Args:
    num_actions: number of discrete actions.
    hidden_sizes: the representation torso's widths (its default if None);
      the embedding's size and the dynamics' and prediction's hidden
      widths are its last width.
    torso: builds the representation's torso (the MLP, or
      `conv.ConvTorso` for images).
    activation: hidden activation.

  Returns:
    The `LearnedModel`.
  """

  # Heads start at zero: a uniform prior, values and rewards 0, so the
  # first searches see no differences between moves that the model has
  # not learned (a search sharpens any; its targets would then fix
  # the policy on noise before the model knows anything).
  zeros = hk.initializers.Constant(0.0)

  def build():
    representation = torso(hidden_sizes, activation=activation)

    def represent(observations: jax.Array) -> jax.Array:
      features = representation(observations)
      return scale_to_unit_interval(
          hk.Linear(features.shape[-1], name='embedding')(features))

    def predict(embeddings: jax.Array) -> Tuple[jax.Array, jax.Array]:
      width = embeddings.shape[-1]
      x = activation(hk.Linear(width, name='prediction_hidden')(embeddings))
      logits = hk.Linear(num_actions, name='policy', w_init=zeros)(x)
      values = hk.Linear(1, name='value', w_init=zeros)(x)[..., 0]
      return logits, values

    def dynamics(embeddings: jax.Array, actions: jax.Array
                ) -> Tuple[jax.Array, jax.Array]:
      width = embeddings.shape[-1]
      inputs = jnp.concatenate(
          [embeddings, jax.nn.one_hot(actions, num_actions)], axis=-1)
      x = hk.nets.MLP((width, width), activation=activation,
                      activate_final=True, name='dynamics')(inputs)
      next_embeddings = scale_to_unit_interval(
          hk.Linear(width, name='next_embedding')(x))
      rewards = hk.Linear(1, name='reward', w_init=zeros)(x)[..., 0]
      return next_embeddings, rewards

    def policy(observations: jax.Array) -> Tuple[jax.Array, jax.Array]:
      return predict(represent(observations))

    def init(observations: jax.Array):
      embeddings = represent(observations)
      actions = jnp.zeros(observations.shape[:1], jnp.int32)
      return predict(embeddings), dynamics(embeddings, actions)

    return init, (policy, represent, predict, dynamics)

  transformed = hk.without_apply_rng(hk.multi_transform(build))
  return LearnedModel(transformed.init, *transformed.apply)
