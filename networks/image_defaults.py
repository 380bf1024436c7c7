"""Which network an agent gets on images when `--network` names none.

The one place that rule lives: on images of Atari's scale
(`nature_conv.suits`) the Atari network of the agent's kind, on other
images the conv network, on anything else the agent's own default; each
time the twin of the agent's default (`mlp_<x>` -> `conv_<x>`) where one
of its kind is registered, so that PQN's LayerNorm network keeps its
LayerNorm on pixels.
"""

from typing import Any, Optional

from networks import conv
from networks import nature_conv
from networks import registry

# The network of each kind that image observations get by default.
IMAGE_DEFAULTS = {registry.POLICY: 'conv_policy',
                  registry.ACTOR_CRITIC: 'conv_actor_critic',
                  registry.Q_VALUES: 'conv_q_values',
                  registry.Q_DISTRIBUTION: 'conv_q_distribution',
                  registry.LEARNED_MODEL: 'conv_learned_model'}
# Of the kinds that have one, the network images of Atari's scale
# (`nature_conv.suits`) get by default.
LARGE_IMAGE_DEFAULTS = {registry.ACTOR_CRITIC: 'nature_conv_actor_critic',
                        registry.Q_VALUES: 'nature_conv_q_values'}


def is_image(observation_spec: Any) -> bool:
  """One observation is an `[H, W, C]` image (rank 3) that the default
  convolution leaves more than one position of: a board no wider than its
  kernel (tic-tac-toe's 3x3) is read better by an MLP: a convolution
  that leaves one position is a dense layer with extra steps."""
  shape = tuple(observation_spec.shape)
  return (len(shape) == conv.IMAGE_RANK and
          min(shape[:2]) > max(conv.DEFAULT_KERNEL_SIZES))


def default_network(kind: str, observation_spec: Optional[Any],
                    fallback: str) -> str:
  """The network an agent of `kind` gets when none is named. On images of
  Atari's scale (`nature_conv.suits`): the Atari-network twin of
  `fallback` (the agent's own default, `mlp_<x>` -> `nature_conv_<x>`,
  e.g. PQN's LayerNorm one) where one of `kind` is registered, else the
  Atari network of its kind where there is one. On other images (and
  other kinds): the conv twin (`conv_<x>`), else the conv network of its
  kind. On other observations `fallback`; `observation_spec` None (not
  known yet): `fallback`."""
  if observation_spec is None or not is_image(observation_spec):
    return fallback
  choices = ((('nature_conv_', LARGE_IMAGE_DEFAULTS),)
             if nature_conv.suits(observation_spec.shape) else ())
  for prefix, defaults in choices + (('conv_', IMAGE_DEFAULTS),):
    if fallback.startswith('mlp_'):
      twin = prefix + fallback[len('mlp_'):]
      if twin in registry.names() and registry.get(twin).kind == kind:
        return twin
    if kind in defaults:
      return defaults[kind]
  return fallback
