"""A convolutional torso for image observations `[N, H, W, C]`.

The default follows MinAtar's reference network (Young & Tian, 2019): one
3x3 convolution with 16 channels, stride 1 and no padding ('VALID', as the
reference's PyTorch `Conv2d` without padding: 10x10 -> 8x8), ReLU, then one
128-unit dense layer (`DEFAULT_HIDDEN_SIZES`). The heads (logits, values,
Q-values) go on top, as on `mlp.MLPTorso`.

Each convolution is computed as image patches times one matrix
(`PatchConv2D`): XLA on a CPU runs a convolution's gradient several times
slower inside a loop body (the scan over minibatches of every update)
than alone, where a matrix product's is not; same parameters and
arithmetic as `hk.Conv2D` up to float rounding.
"""

from typing import Callable, Optional, Sequence

import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np

from networks import mlp

IMAGE_RANK = 3  # One observation is [H, W, C].
DEFAULT_HIDDEN_SIZES = (128,)
DEFAULT_CHANNELS = (16,)
DEFAULT_KERNEL_SIZES = (3,)
DEFAULT_STRIDES = (1,)
DEFAULT_PADDING = 'VALID'


def image_patches(images: jax.Array, kernel: int, stride: int,
                  padding: str) -> jax.Array:
  """`[N, H', W', kernel·kernel·C]`: each output position's `kernel` x
  `kernel` window of `images` `[N, H, W, C]`, in (row, column, channel)
  order (that of an `[kh, kw, C, out]` kernel flattened), for a
  convolution with `stride` and `padding` ('VALID', or 'SAME' padded as
  XLA pads: the extra row or column after)."""
  _, height, width, _ = images.shape
  if padding == 'SAME':
    out_h, out_w = -(-height // stride), -(-width // stride)
    pad_h = max((out_h - 1) * stride + kernel - height, 0)
    pad_w = max((out_w - 1) * stride + kernel - width, 0)
    images = jnp.pad(images, ((0, 0), (pad_h // 2, pad_h - pad_h // 2),
                              (pad_w // 2, pad_w - pad_w // 2), (0, 0)))
  else:
    out_h = (height - kernel) // stride + 1
    out_w = (width - kernel) // stride + 1
  return jnp.concatenate(
      [images[:, i:i + (out_h - 1) * stride + 1:stride,
              j:j + (out_w - 1) * stride + 1:stride, :]
       for i in range(kernel) for j in range(kernel)], axis=-1)


class PatchConv2D(hk.Module):
  """A 2-D convolution as `image_patches` times the kernel: `hk.Conv2D`'s
  parameters (`w` `[k, k, C, channels]` with its initialiser, `b`) and
  outputs, computed by one matrix product (see the module docstring)."""

  def __init__(self, channels: int, kernel: int, stride: int, padding: str,
               w_init: Optional[hk.initializers.Initializer] = None,
               name: Optional[str] = None,
               b_init: Optional[hk.initializers.Initializer] = None):
    """`w_init` initialises the kernel; None: `hk.Conv2D`'s (a truncated
    normal of standard deviation 1/sqrt(fan-in)). `b_init` the bias;
    None: zeros."""
    super().__init__(name=name)
    self._w_init = w_init
    self._b_init = b_init
    self._channels = channels
    self._kernel = kernel
    self._stride = stride
    self._padding = padding

  def __call__(self, images: jax.Array) -> jax.Array:
    shape = (self._kernel, self._kernel, images.shape[-1], self._channels)
    fan_in = int(np.prod(shape[:-1]))
    w = hk.get_parameter('w', shape, images.dtype,
                         init=self._w_init or hk.initializers.TruncatedNormal(
                             stddev=1.0 / np.sqrt(fan_in)))
    b = hk.get_parameter('b', (self._channels,), images.dtype,
                         init=self._b_init or jnp.zeros)
    patches = image_patches(images, self._kernel, self._stride,
                            self._padding)
    kernel = w.reshape(fan_in, self._channels)
    if patches.shape[1:3] == (1, 1):
      # One position (POPGym Arcade's last layer): a dense layer, which
      # TFLite converts; it refuses a rank-4 batch_matmul.
      return (patches[:, 0, 0] @ kernel + b)[:, None, None]
    return patches @ kernel + b


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

  def _images(self, observations: jax.Array) -> jax.Array:
    """`observations` as float32, refused unless `[N, H, W, C]`."""
    if observations.ndim != 1 + IMAGE_RANK:
      raise ValueError(
          f'{type(self).__name__} needs image observations [N, H, W, C]; '
          f'got shape {tuple(observations.shape)}.')
    return observations.astype('float32')

  def __call__(self, observations: jax.Array) -> jax.Array:
    x = self._images(observations)
    for i, (channels, kernel, stride) in enumerate(self._layers):
      x = self._activation(PatchConv2D(channels, kernel, stride,
                                       self._padding, name=f'conv_{i}')(x))
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
    x = self._images(observations)
    for i, (channels, kernel, stride) in enumerate(self._layers):
      x = PatchConv2D(channels, kernel, stride, self._padding,
                      name=f'conv_{i}')(x)
      x = self._activation(mlp.LayerNorm(name=f'conv_layer_norm_{i}')(x))
    x = hk.Flatten(preserve_dims=1)(x)
    for i, size in enumerate(self._hidden_sizes):
      x = hk.Linear(size, name=f'linear_{i}')(x)
      x = self._activation(mlp.LayerNorm(name=f'layer_norm_{i}')(x))
    return x
