"""POPGym Arcade's baseline network, rebuilt in Haiku.

POPGym Arcade (Wang et al., 2025) trains its pixel games with PPO and PQN
on one network (its `baselines/model/builder.py`, equinox): the actor and
the critic each read the image through a convolution tower of their own
(64, 128, 256, 512 channels, leaky ReLU, max pools between, no padding),
then a trunk of two 256-unit dense layers, each followed by a LayerNorm
and leaky ReLU, then the logits or the value. The towers bring the image
to one 512-channel pixel; their kernels depend on its size, as the
package's `obs_size`:

  * 128x128: 5x5/2, pool 2/2, 3x3/2, pool 2/2, 3x3/2, pool 3/1, 1x1/1;
  * 256x256: 7x7/2, pool 2/2, 3x3/2, pool 2/2, 3x3/2, pool 2/2, 3x3/2.

Images of at least `LARGE_SIDE` a side take the second tower, others the
first; images its layers do not fit are refused. Parameters are drawn
as equinox draws them (weights and biases uniform in ±1/sqrt(fan-in);
LayerNorm's scale 1, offset 0), each tower from its own keys: at 128x128
the package draws its critic's tower from its actor's keys, so that the
two start equal, a quirk not copied. Images come in [0, 1]
(`environments.popgym_arcade_adapter` scales them; the package's network
divides its [0, 255] by 255). `--hidden_sizes` sets the trunks' widths.
"""

from typing import NamedTuple, Optional, Sequence, Tuple

import haiku as hk
import jax
import numpy as np

from networks import conv
from networks import mlp


class Layer(NamedTuple):
  """One convolution of a tower (leaky ReLU after it), and the max pool
  after that (`pool` None: none)."""
  channels: int
  kernel: int
  stride: int
  pool: Optional[Tuple[int, int]]  # (window, stride).


SMALL_TOWER = (Layer(64, 5, 2, (2, 2)), Layer(128, 3, 2, (2, 2)),
               Layer(256, 3, 2, (3, 1)), Layer(512, 1, 1, None))
LARGE_TOWER = (Layer(64, 7, 2, (2, 2)), Layer(128, 3, 2, (2, 2)),
               Layer(256, 3, 2, (2, 2)), Layer(512, 3, 2, None))
LARGE_SIDE = 256  # POPGym Arcade's `obs_size=256`.
TRUNK_SIZES = (256, 256)
NAME = 'popgym_arcade_actor_critic'  # Its name in `networks.registry`.


def tower(side: int) -> Tuple[Layer, ...]:
  """The layers images of `side` pixels (the smaller side) go through."""
  return LARGE_TOWER if side >= LARGE_SIDE else SMALL_TOWER


def output_side(side: int, layers: Sequence[Layer]) -> int:
  """The side of `layers`' output on `side`-pixel images (< 1: they do
  not fit)."""
  for layer in layers:
    side = (side - layer.kernel) // layer.stride + 1
    if layer.pool is not None and side >= 1:
      window, stride = layer.pool
      side = (side - window) // stride + 1
    if side < 1:
      return 0
  return side


# The smallest side the 128x128 tower fits.
SMALLEST_SIDE = next(s for s in range(1, LARGE_SIDE)
                     if output_side(s, SMALL_TOWER) >= 1)


def check_fits(shape: Sequence[int], name: str = NAME) -> None:
  """Raises ValueError, suggesting `nature_conv_actor_critic`, unless
  `[H, W, C]` images of `shape` fit the tower their size picks (`name`:
  the network asking)."""
  side = min(shape[0], shape[1])
  if output_side(side, tower(side)) < 1:
    raise ValueError(
        f'{name} needs images of at least {SMALLEST_SIDE}x{SMALLEST_SIDE} '
        f'(POPGym '
        f"Arcade's 128x128 or 256x256); these are {shape[0]}x{shape[1]}. "
        'For smaller images use nature_conv_actor_critic or a conv_ '
        'network.')


def _uniform(fan_in: int) -> hk.initializers.Initializer:
  """Equinox's default: uniform in ±1/sqrt(fan-in)."""
  limit = 1.0 / np.sqrt(fan_in)
  return hk.initializers.RandomUniform(-limit, limit)


class ConvTower(hk.Module):
  """`[N, H, W, C]` images -> `[N, features]`: `layers`' convolutions
  (`conv.PatchConv2D`, 'VALID'), each with a leaky ReLU and its pool."""

  def __init__(self, layers: Sequence[Layer], name: Optional[str] = None):
    super().__init__(name=name)
    self._layers = tuple(layers)

  def __call__(self, images: jax.Array) -> jax.Array:
    x = images
    for i, layer in enumerate(self._layers):
      init = _uniform(layer.kernel * layer.kernel * x.shape[-1])
      x = conv.PatchConv2D(layer.channels, layer.kernel, layer.stride,
                           'VALID', w_init=init, b_init=init,
                           name=f'conv_{i}')(x)
      x = jax.nn.leaky_relu(x)
      if layer.pool is not None:
        window, stride = layer.pool
        x = hk.max_pool(x, (1, window, window, 1), (1, stride, stride, 1),
                        'VALID')
    return hk.Flatten(preserve_dims=1)(x)


class Trunk(hk.Module):
  """`hidden_sizes` dense layers, each with a LayerNorm and leaky ReLU,
  then `output_size` outputs."""

  def __init__(self, hidden_sizes: Sequence[int], output_size: int,
               name: Optional[str] = None):
    super().__init__(name=name)
    self._hidden_sizes = tuple(hidden_sizes)
    self._output_size = output_size

  def __call__(self, x: jax.Array) -> jax.Array:
    for i, size in enumerate(self._hidden_sizes):
      x = linear(x, size, f'linear_{i}')
      x = jax.nn.leaky_relu(mlp.LayerNorm(name=f'layer_norm_{i}')(x))
    return linear(x, self._output_size, 'output')


def linear(x: jax.Array, size: int, name: str) -> jax.Array:
  """A dense layer started as equinox's, over the last axis."""
  init = _uniform(x.shape[-1])
  return hk.Linear(size, w_init=init, b_init=init, name=name)(x)


def make_popgym_arcade_actor_critic_network(
    num_actions: int, image_shape: Sequence[int],
    hidden_sizes: Optional[Sequence[int]] = None) -> hk.Transformed:
  """POPGym Arcade's actor-critic for `[H, W, C]` images of `image_shape`
  (refused if its layers do not fit them): `apply(params, images
  [N, H, W, C]) -> (logits [N, A], values [N])`; `hidden_sizes` default
  `TRUNK_SIZES`."""
  check_fits(image_shape)
  layers = tower(min(image_shape[0], image_shape[1]))
  sizes = TRUNK_SIZES if hidden_sizes is None else tuple(hidden_sizes)

  def forward(images: jax.Array) -> Tuple[jax.Array, jax.Array]:
    images = images.astype('float32')
    logits = Trunk(sizes, num_actions, name='actor_trunk')(
        ConvTower(layers, name='actor_tower')(images))
    values = Trunk(sizes, 1, name='critic_trunk')(
        ConvTower(layers, name='critic_tower')(images))
    return logits, values[..., 0]

  return hk.without_apply_rng(hk.transform(forward))
