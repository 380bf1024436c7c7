"""POPGym Arcade's recurrent baseline network, rebuilt in Haiku.

POPGym Arcade's memory baselines (`ActorCriticRNN` in its
`baselines/model/builder.py`, trained by its `ppo_rnn.py`) read each image
through `popgym_arcade_conv`'s towers, one for the actor and one for the
critic, then a residual memory model of its memorax library each, then a
trunk:

  * memory (memorax's `ResidualModel`): a dense map into `memory` units,
    then per layer an `lru.LRU` of `memory` units followed by a dense
    layer, a LayerNorm without scale or offset and a leaky ReLU, then a
    dense map out to `trunk` units; the actor's memory has two layers, the
    critic's one;
  * trunk: one `trunk`-unit dense layer, a LayerNorm and a leaky ReLU,
    then the logits or the value.

`hidden_sizes` are `(memory, trunk)`, default (512, 256), the package's.
Dense layers start as equinox's (uniform in ±1/sqrt(fan-in)), the LRUs as
memax's. The memory starts afresh at each episode's first step, as the
package's resettable scan does. Images come in [0, 1], as for
`popgym_arcade_conv`.
"""

from typing import Optional, Sequence

import haiku as hk
import jax
import jax.numpy as jnp

from networks import lru
from networks import popgym_arcade_conv
from networks import recurrent

NAME = 'popgym_arcade_lru_actor_critic'  # Its name in `networks.registry`.
DEFAULT_HIDDEN_SIZES = (512, 256)
ACTOR_MEMORY_LAYERS = 2
CRITIC_MEMORY_LAYERS = 1


def _normalise(x: jax.Array, eps: float = 1e-5) -> jax.Array:
  """LayerNorm over the last axis without scale or offset."""
  mean = jnp.mean(x, axis=-1, keepdims=True)
  variance = jnp.var(x, axis=-1, keepdims=True)
  return (x - mean) * jax.lax.rsqrt(variance + eps)


class ResidualMemory(hk.Module):
  """memorax's `ResidualModel` of `num_layers` LRUs (module docstring):
  `[T, N, in]` features -> `[T, N, output_size]`, with its state."""

  def __init__(self, memory_size: int, output_size: int, num_layers: int,
               name: Optional[str] = None):
    super().__init__(name=name)
    self._memory_size, self._output_size = memory_size, output_size
    self._num_layers = num_layers

  def __call__(self, features: jax.Array, first: jax.Array, state):
    linear = popgym_arcade_conv.linear
    x = linear(features, self._memory_size, 'map_in')
    states = []
    for i, layer_state in enumerate(state[:self._num_layers]):
      x, layer_state = lru.LRU(self._memory_size, name=f'lru_{i}').unroll(
          x, first, layer_state)
      states.append(layer_state)
      x = jax.nn.leaky_relu(_normalise(
          linear(x, self._memory_size, f'feed_forward_{i}')))
    return linear(x, self._output_size, 'map_out'), tuple(states)


def make_popgym_arcade_lru_actor_critic_network(
    num_actions: int, image_shape: Sequence[int],
    hidden_sizes: Optional[Sequence[int]] = None
) -> recurrent.RecurrentNetwork:
  """The package's recurrent actor-critic (module docstring) for `[H, W,
  C]` images of `image_shape` (refused if the towers do not fit them).

  Returns:
    A `recurrent.RecurrentNetwork` whose outputs are `(logits, values)`;
    its state is the actor's memory's and the critic's.
  """
  popgym_arcade_conv.check_fits(image_shape, NAME)
  layers = popgym_arcade_conv.tower(min(image_shape[0], image_shape[1]))
  sizes = (DEFAULT_HIDDEN_SIZES if hidden_sizes is None
           else tuple(hidden_sizes))
  if len(sizes) != 2:
    raise ValueError(f'--hidden_sizes of {NAME} are the memory\'s size '
                     f'and the trunk\'s width, two numbers (its default '
                     f'--hidden_sizes=512,256); got {sizes}.')
  memory_size, trunk_size = sizes

  def modules():
    towers = [popgym_arcade_conv.ConvTower(layers, name=f'{side}_tower')
              for side in ('actor', 'critic')]
    memories = [
        ResidualMemory(memory_size, trunk_size, ACTOR_MEMORY_LAYERS,
                       name='actor_memory'),
        ResidualMemory(memory_size, trunk_size, CRITIC_MEMORY_LAYERS,
                       name='critic_memory')]
    trunks = [popgym_arcade_conv.Trunk((trunk_size,), outputs,
                                       name=f'{side}_trunk')
              for side, outputs in (('actor', num_actions), ('critic', 1))]
    return towers, memories, trunks

  def initial_state(n: int):
    return tuple(tuple(lru.initial_state(n, memory_size)
                       for _ in range(layers))
                 for layers in (ACTOR_MEMORY_LAYERS, CRITIC_MEMORY_LAYERS))

  def transformed():
    towers, memories, trunks = modules()

    def unroll(observations, first, state):
      images = observations.astype(jnp.float32)
      outputs, states = [], []
      for tower, memory, trunk, memory_state in zip(
          towers, memories, trunks, state):
        features = hk.BatchApply(tower)(images)
        hidden, memory_state = memory(features, first, memory_state)
        outputs.append(hk.BatchApply(trunk)(hidden))
        states.append(memory_state)
      logits, values = outputs
      return (logits, values[..., 0]), tuple(states)

    def step(observations, first, state):
      (logits, values), state = unroll(observations[None], first[None],
                                       state)
      return (logits[0], values[0]), state

    def init(observations):
      n = observations.shape[0]
      return step(observations, jnp.ones(n, bool), initial_state(n))

    return init, (step, unroll)

  network = hk.without_apply_rng(hk.multi_transform(transformed))
  step, unroll = network.apply
  return recurrent.RecurrentNetwork(init=network.init, step=step,
                                    unroll=unroll,
                                    initial_state=initial_state)
