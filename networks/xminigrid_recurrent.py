"""XLand-MiniGrid's recurrent actor-critic: embeddings, a GRU, two heads.

The network of XLand-MiniGrid's recurrent PPO baseline (its
`training/nn.py`, `ActorCriticRNN` with symbolic observations), rebuilt
in Haiku on the vector `xminigrid:<id>` observes with
`--env_config.direction=true --env_config.previous_action_reward=true`:
the agent's V x V view (tile and colour of each cell), its direction
one-hot (4), the previous action one-hot (A) and the previous reward (1).

  * each cell's tile and colour embedded (16 each), then three 2 x 2
    'VALID' convolutions (16, 32, 64 channels, ReLU), flattened;
  * the direction through a 16-unit linear layer, the previous action
    embedded (16), the previous reward as it is, all concatenated;
  * a GRU (1,024 units; `recurrent_cores.ResetAfterGRU`, the baseline's
    cell), reset at each episode's first step;
  * an actor and a critic of one 256-unit tanh layer each.

`hidden_sizes` are the GRU's size and the heads' width, default (1024,
256). The convolutions are `conv.PatchConv2D` (`hk.Conv2D`'s arithmetic as
one matrix product: XLA on a CPU differentiates a convolution inside a
loop tens of times slower). The baseline also differs in one way this
network does not copy: it never resets its memory, nor its previous action
and reward, between episodes; this network's memory starts afresh at each
episode, as every recurrent network here does.
"""

import math
from typing import Optional, Sequence

import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np

from networks import conv
from networks import recurrent
from networks import recurrent_cores

# xminigrid's `core.constants.NUM_TILES` and `NUM_COLORS` (a test checks).
NUM_TILES = 13
NUM_COLORS = 12
DIRECTIONS = 4
EMBEDDING = 16
CHANNELS = (16, 32, 64)
DEFAULT_HIDDEN_SIZES = (1024, 256)


def view_size(observation_shape: Sequence[int], num_actions: int) -> int:
  """V of an observation of `observation_shape` (`[2V² + 4 + A + 1]`),
  or ValueError saying which settings give it."""
  size = observation_shape[0] if len(observation_shape) == 1 else -1
  cells = (size - DIRECTIONS - num_actions - 1) / 2
  side = math.isqrt(max(int(cells), 0))
  if size < 0 or side < 4 or side * side != cells:
    raise ValueError(
        'The XLand-MiniGrid recurrent network reads an xminigrid view (V >= '
        '4) with the direction, previous action and previous reward: a '
        f'vector of 2V² + 4 + {num_actions} + 1 floats, from --env_config.'
        'direction=true --env_config.previous_action_reward=true (and the '
        f'symbols observation); got shape {tuple(observation_shape)}. Pick '
        'another --network for this environment.')
  return side


def make_xminigrid_actor_critic_network(
    num_actions: int, side: int,
    hidden_sizes: Optional[Sequence[int]] = None
) -> recurrent.RecurrentNetwork:
  """The baseline's network (the module docstring) for a `side` x `side`
  view; `hidden_sizes` (GRU size, heads' width), default (1024, 256).

  Returns:
    A `recurrent.RecurrentNetwork` whose outputs are `(logits, values)`.
  """
  sizes = tuple(DEFAULT_HIDDEN_SIZES if hidden_sizes is None
                else hidden_sizes)
  if len(sizes) != 2:
    raise ValueError('hidden_sizes of xminigrid_gru_actor_critic are the '
                     "GRU's size and the heads' width (two numbers, e.g. "
                     f'1024,256); got {sizes}.')
  core_size, head_size = sizes
  grid = side * side * 2
  orthogonal = hk.initializers.Orthogonal
  embedding_init = hk.initializers.VarianceScaling(1.0, 'fan_out',
                                                   'truncated_normal')

  def modules():

    def encode(observations: jax.Array) -> jax.Array:
      observations = observations.astype(jnp.float32)
      cells = jnp.round(observations[:, :grid]).astype(jnp.int32).reshape(
          -1, side, side, 2)
      x = jnp.concatenate([
          hk.Embed(NUM_TILES, EMBEDDING, w_init=embedding_init,
                   name='tile_embedding')(cells[..., 0]),
          hk.Embed(NUM_COLORS, EMBEDDING, w_init=embedding_init,
                   name='colour_embedding')(cells[..., 1])], axis=-1)
      for i, channels in enumerate(CHANNELS):
        x = jax.nn.relu(conv.PatchConv2D(
            channels, 2, 1, 'VALID', w_init=orthogonal(np.sqrt(2)),
            name=f'conv_{i}')(x))
      direction = observations[:, grid:grid + DIRECTIONS]
      action = observations[:, grid + DIRECTIONS:-1]
      # One-hot times a [A, 16] matrix: the embedding of the previous
      # action (zeros before the first).
      return jnp.concatenate([
          hk.Flatten()(x),
          hk.Linear(EMBEDDING, name='direction')(direction),
          hk.Linear(EMBEDDING, with_bias=False, w_init=embedding_init,
                    name='action_embedding')(action),
          observations[:, -1:]], axis=-1)

    def head(outputs: int, scale: float, name: str) -> hk.Sequential:
      return hk.Sequential([
          hk.Linear(head_size, w_init=orthogonal(2.0), name=f'{name}_torso'),
          jnp.tanh,
          hk.Linear(outputs, w_init=orthogonal(scale), name=name)])

    policy = head(num_actions, 0.01, 'policy')
    value = head(1, 1.0, 'value')
    core = recurrent_cores.ResetAfterGRU(core_size, name='gru')
    return encode, core, lambda h: (policy(h), value(h)[..., 0])

  def transformed():
    encode, core, heads = modules()

    def step(observations, first, state):
      hidden, state = core(encode(observations), first, state)
      return heads(hidden), state

    def unroll(observations, first, state):
      hidden, state = core.unroll(hk.BatchApply(encode)(observations),
                                  first, state)
      return hk.BatchApply(heads)(hidden), state

    def init(observations):
      n = observations.shape[0]
      return step(observations, jnp.ones(n, bool), initial_state(n))

    return init, (step, unroll)

  def initial_state(n: int) -> jax.Array:
    return jnp.zeros((n, core_size), jnp.float32)

  network = hk.without_apply_rng(hk.multi_transform(transformed))
  step, unroll = network.apply
  return recurrent.RecurrentNetwork(init=network.init, step=step,
                                    unroll=unroll,
                                    initial_state=initial_state)

