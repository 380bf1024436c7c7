"""Recurrent networks: a torso, an LSTM or GRU core, and a kind's heads.

A recurrent network carries a state from step to step, so a policy can
remember what it saw (a partially observable game: gymnax's
`MemoryChain-bsuite`, bsuite's `memory_len`). Each episode starts from the
initial state: an observation flagged `first` resets the state before the
core reads it. The pure functions of one set of params:

    params = network.init(key, observations [N, ...])
    outputs, state = network.step(params, observations [N, ...], first [N],
                                  state)
    outputs, state = network.unroll(params, observations [T, N, ...],
                                    first [T, N], state)
    state = network.initial_state(n)

`outputs` are those of the feed-forward network of the same kind (an
actor-critic's `(logits, values)`, a policy's logits), with leading `[N]`
or `[T, N]`; `unroll` computes what `step` computes at each of T steps
(`networks.recurrent_cores`: the cores of `hk.LSTM` and `hk.GRU`, and
flax's GRU, which replay a sequence with its inputs projected once), so
the learner replays a sequence as the actor played it. `hidden_sizes` are the torso's
widths and then the core's size: (64, 64) is one 64-unit dense layer and a
64-unit core. The torso is an MLP over the flattened observation, or
`conv.ConvTorso` (or `nature_conv.NatureConvTorso`, the Atari network's)
over images (`[H, W, C]`: its convolutions, then the dense widths).
"""

from typing import Any, Callable, NamedTuple, Optional, Sequence, Tuple

import haiku as hk
import jax
import jax.numpy as jnp

from networks import actor_critic
from networks import conv
from networks import mlp
from networks import nature_conv
from networks import recurrent_cores

LSTM = 'lstm'
GRU = 'gru'
# flax's `GRUCell` (cuDNN's kind, drawn as flax draws it):
# `recurrent_cores.ResetAfterGRU(flax_init=True)`.
RESET_AFTER_GRU = 'reset_after_gru'
CORES = (LSTM, GRU, RESET_AFTER_GRU)

RecurrentState = Any  # `hk.LSTMState` or a GRU's `[N, size]` array.

MLP_TORSO = 'mlp'
CONV_TORSO = 'conv'
# Mnih et al.'s Atari torso (`nature_conv.NatureConvTorso`).
NATURE_CONV_TORSO = 'nature_conv'
# PQN's torso (`mlp.LayerNormMLPTorso`): LayerNorm before each activation.
LAYER_NORM_MLP_TORSO = 'layer_norm_mlp'
TORSOS = (MLP_TORSO, CONV_TORSO, NATURE_CONV_TORSO, LAYER_NORM_MLP_TORSO)


class RecurrentNetwork(NamedTuple):
  """The pure functions of a recurrent network (module docstring)."""
  init: Callable[[jax.Array, jax.Array], hk.Params]
  step: Callable[[hk.Params, jax.Array, jax.Array, RecurrentState],
                 Tuple[Any, RecurrentState]]
  unroll: Callable[[hk.Params, jax.Array, jax.Array, RecurrentState],
                   Tuple[Any, RecurrentState]]
  initial_state: Callable[[int], RecurrentState]


def is_recurrent(network: Any) -> bool:
  """Whether `network` (a built network) carries a recurrent state."""
  return isinstance(network, RecurrentNetwork)


def _initial_state(core: str, size: int) -> Callable[[int], RecurrentState]:

  def initial_state(n: int) -> RecurrentState:
    zeros = jnp.zeros((n, size), jnp.float32)
    return hk.LSTMState(hidden=zeros, cell=zeros) if core == LSTM else zeros

  return initial_state


def make_recurrent_actor_critic_network(
    num_actions: int,
    hidden_sizes: Optional[Sequence[int]] = None,
    core: str = LSTM,
    activation: Callable[[jax.Array], jax.Array] = jax.nn.tanh,
    torso: str = MLP_TORSO,
) -> RecurrentNetwork:
  """A torso, a `core` (LSTM or GRU) and policy and value heads.

  Args:
    num_actions: number of discrete actions.
    hidden_sizes: the torso's widths, then the core's size; default
      (64, 64). One size alone is the core's, on the flat observation (or
      the flattened convolutions).
    core: 'lstm' or 'gru'.
    activation: the torso's activation (tanh, as the feed-forward PPO's;
      the conv networks use ReLU, as MinAtar's reference network).
    torso: 'mlp', 'layer_norm_mlp' (`mlp.LayerNormMLPTorso`), or for
      image observations 'conv' (`conv.ConvTorso`) or 'nature_conv'
      (`nature_conv.NatureConvTorso`).

  Returns:
    A `RecurrentNetwork` whose outputs are `(logits, values)`.
  """
  return _make(num_actions, hidden_sizes, core=core, activation=activation,
               with_value=True, torso=torso)


def make_recurrent_policy_network(
    num_actions: int, hidden_sizes: Optional[Sequence[int]] = None,
    *options: Any, **keywords: Any) -> RecurrentNetwork:
  """`make_recurrent_actor_critic_network` (its other arguments: core,
  activation, torso) without the value head: its outputs are the
  logits."""
  return _make(num_actions, hidden_sizes, *options, with_value=False,
               **keywords)


def make_recurrent_q_network(
    num_actions: int, hidden_sizes: Optional[Sequence[int]] = None,
    core: str = GRU) -> RecurrentNetwork:
  """A recurrent Q-network for PQN (purejaxql's `pqn_rnn`): a ReLU torso
  with LayerNorm before each activation, a `core` (GRU by default, as
  purejaxql's), and a linear head; its outputs are the Q-values `[..., A]`.
  Default (64, 64): one 64 layer and a 64 core."""
  return _make(num_actions, hidden_sizes, core=core, activation=jax.nn.relu,
               with_value=False, torso=LAYER_NORM_MLP_TORSO)


def make_recurrent_actor_critic_relu_heads_network(
    num_actions: int, hidden_sizes: Optional[Sequence[int]] = None,
    head_layers: int = 1, core: str = GRU) -> RecurrentNetwork:
  """PureJaxRL `ppo_rnn.py`'s network: a ReLU embedding, a `core`, and an
  actor and a critic of `head_layers` ReLU layers each as wide as the
  core (Craftax_Baselines' `ppo_rnn.py`: two, and flax's GRU,
  `RESET_AFTER_GRU`); default (128, 128): a 128 embedding and a 128
  core."""
  sizes = tuple(hidden_sizes or (128, 128))
  return _make(num_actions, sizes, core=core, activation=jax.nn.relu,
               with_value=True, head_sizes=sizes[-1:] * head_layers)


def _make(num_actions: int, hidden_sizes: Optional[Sequence[int]],
          core: str = LSTM,
          activation: Callable[[jax.Array], jax.Array] = jax.nn.tanh,
          torso: str = MLP_TORSO, *, with_value: bool,
          head_sizes: Sequence[int] = ()) -> RecurrentNetwork:
  """The torso, the core, and the heads, each head behind `head_sizes`
  layers of its own (none: straight off the core)."""
  if core not in CORES:
    raise ValueError(f'core must be one of {CORES}; got {core!r}.')
  if torso not in TORSOS:
    raise ValueError(f'torso must be one of {TORSOS}; got {torso!r}.')
  sizes = tuple(mlp.DEFAULT_HIDDEN_SIZES if hidden_sizes is None
                else hidden_sizes)
  torso_sizes, core_size = sizes[:-1], sizes[-1]
  orthogonal = hk.initializers.Orthogonal
  zero = hk.initializers.Constant(0.0)

  def modules():
    if torso == CONV_TORSO:
      features = conv.ConvTorso(torso_sizes, activation)
    elif torso == NATURE_CONV_TORSO:
      features = nature_conv.NatureConvTorso(torso_sizes, activation)
    elif torso == LAYER_NORM_MLP_TORSO:
      features = mlp.LayerNormMLPTorso(torso_sizes, activation)
    elif torso_sizes:
      features = hk.Sequential([
          hk.Flatten(preserve_dims=1),
          hk.nets.MLP(torso_sizes, activation=activation,
                      activate_final=True,
                      w_init=orthogonal(actor_critic.HIDDEN_INIT_SCALE),
                      b_init=zero, name='torso')])
    else:
      features = hk.Flatten(preserve_dims=1)
    cell = (recurrent_cores.ResetAfterGRU(core_size, flax_init=True)
            if core == RESET_AFTER_GRU else
            {LSTM: recurrent_cores.LSTM, GRU: recurrent_cores.GRU}[core](
                core_size))
    def head(size, scale, name):
      layers = [hk.nets.MLP(head_sizes, activation=activation,
                            activate_final=True, w_init=orthogonal(2.0),
                            b_init=zero, name=f'{name}_torso')
                ] if head_sizes else []
      return hk.Sequential(layers + [hk.Linear(
          size, name=name, w_init=orthogonal(scale), b_init=zero)])

    policy = head(num_actions, actor_critic.POLICY_INIT_SCALE, 'policy')
    value = with_value and head(1, actor_critic.VALUE_INIT_SCALE, 'value')
    heads = ((lambda h: (policy(h), value(h)[..., 0])) if with_value
             else policy)
    return features, cell, heads

  def transformed():
    torso, core_module, heads = modules()

    def step(observations, first, state):
      features = torso(observations.astype(jnp.float32))
      hidden, state = core_module(features, first, state)
      return heads(hidden), state

    def unroll(observations, first, state):
      features = hk.BatchApply(torso)(observations.astype(jnp.float32))
      hidden, state = core_module.unroll(features, first, state)
      return hk.BatchApply(heads)(hidden), state

    def init(observations):
      n = observations.shape[0]
      return step(observations, jnp.ones(n, bool),
                  _initial_state(core, core_size)(n))

    return init, (step, unroll)

  network = hk.without_apply_rng(hk.multi_transform(transformed))
  step, unroll = network.apply
  return RecurrentNetwork(init=network.init, step=step, unroll=unroll,
                          initial_state=_initial_state(core, core_size))
