"""A convolutional torso for image observations `[N, H, W, C]`.

The default follows MinAtar's reference network (Young & Tian, 2019): one
3x3 convolution with 16 channels, stride 1 and no padding ('VALID', as the
reference's PyTorch `Conv2d` without padding: 10x10 -> 8x8), ReLU, then one
128-unit dense layer (`DEFAULT_HIDDEN_SIZES`). The heads (logits, values,
Q-values) go on top, as on `mlp.MLPTorso`.
"""

from typing import Callable, Optional, Sequence

import haiku as hk
import jax

from networks import mlp

IMAGE_RANK = 3  # One observation is [H, W, C].
DEFAULT_HIDDEN_SIZES = (128,)
DEFAULT_CHANNELS = (16,)
DEFAULT_KERNEL_SIZES = (3,)
DEFAULT_STRIDES = (1,)
DEFAULT_PADDING = 'VALID'


class ConvTorso(hk.Module):
  """Convolutions, flatten, then `hidden_sizes` dense layers.

  Inputs are `[batch, H, W, C]` (channels last, as gymnax's MinAtar); the
  output is `[batch, hidden_sizes[-1]]` (the flattened convolution output
  when `hidden_sizes` is empty). The activation follows every layer.
  """

  def __init__(self,
               hidden_sizes: Optional[Sequence[int]] = None,
               activation: Callable[[jax.Array], jax.Array] = jax.nn.relu,
               channels: Sequence[int] = DEFAULT_CHANNELS,
               kernel_sizes: Sequence[int] = DEFAULT_KERNEL_SIZES,
               strides: Sequence[int] = DEFAULT_STRIDES,
               padding: str = DEFAULT_PADDING,
               name: str = 'conv_torso'):
    """One convolution per entry of `channels`, with the kernel size and
    stride at the same index; `padding` is 'VALID' or 'SAME'."""
    super().__init__(name=name)
    if not len(channels) == len(kernel_sizes) == len(strides):
      raise ValueError(
          f'channels, kernel_sizes and strides need one entry per '
          f'convolution; got {tuple(channels)}, {tuple(kernel_sizes)}, '
          f'{tuple(strides)}.')
    if padding not in ('VALID', 'SAME'):
      raise ValueError(f"padding must be 'VALID' or 'SAME'; got {padding!r}.")
    self._hidden_sizes = tuple(DEFAULT_HIDDEN_SIZES if hidden_sizes is None
                               else hidden_sizes)
    self._activation = activation
    self._layers = tuple(zip(channels, kernel_sizes, strides))
    self._padding = padding

  def __call__(self, observations: jax.Array) -> jax.Array:
    if observations.ndim != 1 + IMAGE_RANK:
      raise ValueError(
          f'ConvTorso needs image observations [N, H, W, C]; got shape '
          f'{tuple(observations.shape)}.')
    x = observations.astype('float32')
    for i, (channels, kernel, stride) in enumerate(self._layers):
      x = self._activation(hk.Conv2D(channels, kernel, stride,
                                     padding=self._padding,
                                     name=f'conv_{i}')(x))
    x = hk.Flatten(preserve_dims=1)(x)
    if not self._hidden_sizes:
      return x
    return hk.nets.MLP(self._hidden_sizes, activation=self._activation,
                       activate_final=True)(x)


class LayerNormConvTorso(ConvTorso):
  """`ConvTorso` with a `mlp.LayerNorm` between each layer and its
  activation (over a convolution's channels at each pixel, as flax's
  `nn.LayerNorm` over the last axis): PQN's MinAtar network (purejaxql's
  `pqn_minatar.py` with layer norm)."""

  def __init__(self, hidden_sizes: Optional[Sequence[int]] = None,
               activation: Callable[[jax.Array], jax.Array] = jax.nn.relu,
               name: str = 'layer_norm_conv_torso', **kwargs):
    super().__init__(hidden_sizes, activation, name=name, **kwargs)

  def __call__(self, observations: jax.Array) -> jax.Array:
    if observations.ndim != 1 + IMAGE_RANK:
      raise ValueError(
          f'LayerNormConvTorso needs image observations [N, H, W, C]; got '
          f'shape {tuple(observations.shape)}.')
    x = observations.astype('float32')
    for i, (channels, kernel, stride) in enumerate(self._layers):
      x = hk.Conv2D(channels, kernel, stride, padding=self._padding,
                    name=f'conv_{i}')(x)
      x = self._activation(mlp.LayerNorm(name=f'conv_layer_norm_{i}')(x))
    x = hk.Flatten(preserve_dims=1)(x)
    for i, size in enumerate(self._hidden_sizes):
      x = hk.Linear(size, name=f'linear_{i}')(x)
      x = self._activation(mlp.LayerNorm(name=f'layer_norm_{i}')(x))
    return x
