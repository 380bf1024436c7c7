"""Mnih et al. (2015)'s Atari network as a torso, for pixel games.

Three convolutions without padding (32 channels 8x8 stride 4, 64 4x4
stride 2, 64 3x3 stride 1), each with ReLU, then one 512-unit dense
layer: DQN's network, the "Nature CNN" of CleanRL's and
Stable-Baselines3's Atari agents. It suits images of Atari's scale
(EnvPool's 84x84x4, POPGym Arcade's 128x128x3, Craftax's 63x63x3), where
MinAtar's one 3x3 convolution (`conv.ConvTorso`'s default) keeps every
pixel and its dense layer grows with the image (a 128x128 image gives it
254,016 inputs, 32.5M weights at 128 units); these strides bring 128x128
to 12x12x64 first (9,216 inputs), 84x84 to 7x7x64.
"""

from typing import Callable, Optional, Sequence

import jax

from networks import conv

CHANNELS = (32, 64, 64)
KERNEL_SIZES = (8, 4, 3)
STRIDES = (4, 2, 1)
HIDDEN_SIZES = (512,)
# The smallest side the three convolutions fit: 36 -> 8 -> 3 -> 1.
SMALLEST_SIDE = 36
# The smallest side that gets these networks by default
# (`image_defaults.default_network`): 44 -> 10 -> 4 -> 2 leaves the third
# convolution more than one position, as `image_defaults.is_image` asks of
# MinAtar's.
DEFAULT_SIDE = 44


class NatureConvTorso(conv.ConvTorso):
  """`conv.ConvTorso` with the Atari network's convolutions;
  `hidden_sizes` (default 512) are its dense layers."""

  def __init__(self, hidden_sizes: Optional[Sequence[int]] = None,
               activation: Callable[[jax.Array], jax.Array] = jax.nn.relu,
               name: str = 'nature_conv_torso'):
    super().__init__(HIDDEN_SIZES if hidden_sizes is None else hidden_sizes,
                     activation, CHANNELS, KERNEL_SIZES, STRIDES, name=name)


class LayerNormNatureConvTorso(conv.LayerNormConvTorso):
  """The same layers with a LayerNorm before each activation (as
  `conv.LayerNormConvTorso`): PQN's network for pixel games."""

  def __init__(self, hidden_sizes: Optional[Sequence[int]] = None,
               activation: Callable[[jax.Array], jax.Array] = jax.nn.relu,
               name: str = 'layer_norm_nature_conv_torso'):
    super().__init__(HIDDEN_SIZES if hidden_sizes is None else hidden_sizes,
                     activation, name=name, channels=CHANNELS,
                     kernel_sizes=KERNEL_SIZES, strides=STRIDES)


def suits(shape: Sequence[int]) -> bool:
  """Whether `[H, W, C]` images of `shape` get these networks by default:
  both sides at least `DEFAULT_SIDE`."""
  return len(shape) == 3 and min(shape[:2]) >= DEFAULT_SIDE


def check_fits(network: str, shape: Sequence[int]) -> None:
  """Raises ValueError, naming `network` and the small-image network,
  unless `[H, W, C]` images of `shape` are at least `SMALLEST_SIDE` a
  side."""
  height, width = shape[0], shape[1]
  if min(height, width) < SMALLEST_SIDE:
    raise ValueError(
        f'{network} needs images of at least {SMALLEST_SIDE}x{SMALLEST_SIDE} '
        f'(its strided convolutions); these are {height}x{width}. For small '
        f"images (MinAtar's 10x10) use the conv_ networks "
        f'(e.g. --network=conv_actor_critic).')
