"""The one registry of networks: named Haiku factories and what they output.

An agent states the kind of network it needs (`POLICY`: logits;
`ACTOR_CRITIC`: logits and values; `Q_VALUES`: one value per action; over
continuous actions `GAUSSIAN_ACTOR_CRITIC`: Gaussian means, log-stds and
values; `ACTOR_TWIN_Q`: SAC's actor and twin critics;
`DETERMINISTIC_ACTOR_TWIN_Q`: TD3's; `Q_DISTRIBUTION`: a return
distribution per action, for C51 and QR-DQN) and its default
network; `--network=<name>` swaps in any registered network of
that kind, e.g. one a user registers from their own module (see
`examples/custom_network.py`):

    from networks import registry
    registry.register(registry.NetworkEntry(
        'layer_norm_policy', registry.POLICY, make_layer_norm_policy))

Image observations (one observation of rank 3, `[H, W, C]`) get the conv
network of the agent's kind unless `--network` names another
(`networks.image_defaults`, the one place that rule lives); a network that
needs images (`NetworkEntry.observation_rank`) refuses any other
observation.
"""

import dataclasses
from typing import Any, Callable, Optional, Sequence, Tuple

import haiku as hk
import jax

from environments import name_hints
from environments import named_entries
from environments import specs
from networks import actor_critic
from networks import actor_twin_q
from networks import conv
from networks import gaussian_actor_critic
from networks import jumanji_maze
from networks import learned_model
from networks import mlp
from networks import nature_conv
from networks import policy
from networks import popgym_arcade_conv
from networks import popgym_arcade_recurrent
from networks import q_network
from networks import recurrent
from networks import xminigrid_recurrent

POLICY = 'policy'  # observations [N, ...] -> logits [N, A].
ACTOR_CRITIC = 'actor_critic'  # -> (logits [N, A], values [N]).
Q_VALUES = 'q_values'  # -> Q-values [N, A].
# -> [N, A, K]: K logits over fixed atoms or K quantiles per action; its
# factories take `num_atoms=K` (`agents.registry.network_options`).
Q_DISTRIBUTION = 'q_distribution'
# -> (means [N, D], log_stds [N, D], values [N]).
GAUSSIAN_ACTOR_CRITIC = 'gaussian_actor_critic'
# hk.MultiTransformed: apply = (actor -> (means, log_stds), critic(obs,
# actions) -> [N, 2]).
ACTOR_TWIN_Q = 'actor_twin_q'
# The same with a deterministic actor: actor -> pre-tanh actions [N, D].
DETERMINISTIC_ACTOR_TWIN_Q = 'deterministic_actor_twin_q'
# MuZero's representation, dynamics and prediction
# (`learned_model.LearnedModel`); as an actor-critic, `apply` ->
# (logits [N, A], values [N]).
LEARNED_MODEL = 'learned_model'
KINDS = (POLICY, ACTOR_CRITIC, Q_VALUES, Q_DISTRIBUTION, GAUSSIAN_ACTOR_CRITIC,
         ACTOR_TWIN_Q, DETERMINISTIC_ACTOR_TWIN_Q, LEARNED_MODEL)
# Kinds whose agents act by Q-values (greedily, ε-greedily), with no
# probabilities of their own to sample.
Q_KINDS = (Q_VALUES, Q_DISTRIBUTION)
# Kinds whose networks act over continuous actions (`[action_dim]`).
CONTINUOUS_KINDS = (GAUSSIAN_ACTOR_CRITIC, ACTOR_TWIN_Q,
                    DETERMINISTIC_ACTOR_TWIN_Q)

# (environment spec, hidden sizes or None, **the agent's options, e.g.
# num_atoms) -> transformed network.
NetworkFactory = Callable[..., hk.Transformed]


@dataclasses.dataclass(frozen=True)
class NetworkEntry:
  """A named network factory.

  Attributes:
    name: the name `--network` takes.
    kind: what the network outputs, one of `KINDS`.
    make: `(environment_spec, hidden_sizes, **options) -> hk.Transformed`,
      whose `apply(params, observations [N, *obs_shape])` returns the
      kind's outputs (`ACTOR_TWIN_Q`: an `hk.MultiTransformed`, see its
      kind); `hidden_sizes` None means the network's own default; options
      are the agent's (`agents.registry.network_options`: `num_atoms` for
      `Q_DISTRIBUTION`).
    observation_rank: the rank of one observation the network needs (3 for
      the conv networks: `[H, W, C]`); None: any (the MLPs flatten).
    default_hidden_sizes: the widths `hidden_sizes` None means, so that a
      run restating them (`--hidden_sizes=64,64`) is the same run.
    recurrent: `make` builds a `recurrent.RecurrentNetwork` (a policy with
      memory), which only agents that carry a state can use
      (`AgentEntry.recurrent`).
  """
  name: str
  kind: str
  make: NetworkFactory
  observation_rank: Optional[int] = None
  default_hidden_sizes: Tuple[int, ...] = mlp.DEFAULT_HIDDEN_SIZES
  recurrent: bool = False

  def __post_init__(self):
    if self.kind not in KINDS:
      raise ValueError(f'Network {self.name!r}: kind must be one of {KINDS}; '
                       f'got {self.kind!r}.')

  def check_observations(self, observation_spec: Any) -> None:
    """Raises ValueError, naming the networks that fit, if this network
    cannot take observations of `observation_spec`'s shape."""
    shape = tuple(observation_spec.shape)
    if self.observation_rank is None or len(shape) == self.observation_rank:
      return
    fits = [n for n in names(self.kind)
            if get(n).observation_rank in (None, len(shape))]
    images = (' ([H, W, C] images)'
              if self.observation_rank == conv.IMAGE_RANK else '')
    raise ValueError(
        f'Network {self.name!r} needs observations of rank '
        f'{self.observation_rank}{images}; these have shape {shape}. Valid '
        f'choices here: {", ".join(fits)} (or no --network, for the '
        f'default).')


# The conv recurrent networks' widths: one dense layer, then the core.
CONV_RECURRENT_SIZES = conv.DEFAULT_HIDDEN_SIZES + (128,)
# The Atari network's with memory: its 512 dense layer, then a 128 LSTM
# (CleanRL's ppo_atari_lstm.py).
NATURE_CONV_RECURRENT_SIZES = nature_conv.HIDDEN_SIZES + (128,)
# Craftax_Baselines' ppo_rnn.py: a 512 embedding, then a 512 GRU (its
# --layer_size, which its heads' layers share).
CRAFTAX_RECURRENT_SIZES = (512, 512)


def _needs_images(name: str, make: NetworkFactory) -> NetworkFactory:
  """`make`, refusing observations that are not `[H, W, C]` images."""

  def checked(spec: specs.EnvironmentSpec, sizes: Optional[Sequence[int]],
              **options: Any) -> hk.Transformed:
    get(name).check_observations(spec.observations)
    return make(spec, sizes, **options)

  return checked


def _conv_entry(name: str, kind: str, make: NetworkFactory,
                default_hidden_sizes: Tuple[int, ...] = (
                    conv.DEFAULT_HIDDEN_SIZES),
                recurrent: bool = False) -> NetworkEntry:
  return NetworkEntry(name, kind, _needs_images(name, make),
                      observation_rank=conv.IMAGE_RANK,
                      default_hidden_sizes=default_hidden_sizes,
                      recurrent=recurrent)


def _nature_conv_entry(name: str, kind: str, make: NetworkFactory,
                       default_hidden_sizes: Tuple[int, ...] = (
                           nature_conv.HIDDEN_SIZES),
                       recurrent: bool = False) -> NetworkEntry:
  """A network on `nature_conv.NatureConvTorso`, refusing images smaller
  than its convolutions fit."""

  def checked(spec: specs.EnvironmentSpec, sizes: Optional[Sequence[int]]
             ) -> Any:
    nature_conv.check_fits(name, spec.observations.shape)
    return make(spec, sizes)

  return _conv_entry(name, kind, checked, default_hidden_sizes, recurrent)


_BUILT_IN = (
    NetworkEntry('mlp_policy', POLICY, lambda spec, sizes: (
        policy.make_policy_network(spec.num_actions, sizes))),
    NetworkEntry('mlp_actor_critic', ACTOR_CRITIC, lambda spec, sizes: (
        actor_critic.make_actor_critic_network(spec.num_actions, sizes))),
    NetworkEntry('mlp_q_values', Q_VALUES, lambda spec, sizes: (
        q_network.make_q_network(spec.num_actions, sizes))),
    # Wang et al. (2016): value and advantage streams.
    NetworkEntry('mlp_dueling_q_values', Q_VALUES, lambda spec, sizes: (
        q_network.make_dueling_q_network(spec.num_actions, sizes))),
    _conv_entry('conv_dueling_q_values', Q_VALUES, lambda spec, sizes: (
        q_network.make_dueling_q_network(spec.num_actions, sizes,
                                         conv.ConvTorso))),
    # PQN's (Gallici et al., 2024): LayerNorm before each activation.
    NetworkEntry('mlp_layer_norm_q_values', Q_VALUES, lambda spec, sizes: (
        q_network.make_q_network(spec.num_actions, sizes,
                                 mlp.LayerNormMLPTorso))),
    NetworkEntry('mlp_separate_actor_critic', ACTOR_CRITIC,
                 lambda spec, sizes: (
                     actor_critic.make_separate_actor_critic_network(
                         spec.num_actions, sizes))),
    # PureJaxRL's MinAtar setting: the same network with ReLU.
    NetworkEntry('mlp_separate_actor_critic_relu', ACTOR_CRITIC,
                 lambda spec, sizes: (
                     actor_critic.make_separate_actor_critic_network(
                         spec.num_actions, sizes, activation=jax.nn.relu))),
    _conv_entry('conv_policy', POLICY, lambda spec, sizes: (
        policy.make_policy_network(spec.num_actions, sizes, conv.ConvTorso))),
    # ReLU, as MinAtar's reference network (the MLP one keeps tanh).
    _conv_entry('conv_actor_critic', ACTOR_CRITIC, lambda spec, sizes: (
        actor_critic.make_actor_critic_network(
            spec.num_actions, sizes, jax.nn.relu, conv.ConvTorso))),
    _conv_entry('conv_q_values', Q_VALUES, lambda spec, sizes: (
        q_network.make_q_network(spec.num_actions, sizes, conv.ConvTorso))),
    # Mnih et al.'s Atari network (DQN's) for pixel games of Atari's scale.
    _nature_conv_entry('nature_conv_actor_critic', ACTOR_CRITIC,
                       lambda spec, sizes: (
                           actor_critic.make_actor_critic_network(
                               spec.num_actions, sizes, jax.nn.relu,
                               nature_conv.NatureConvTorso))),
    _nature_conv_entry('nature_conv_q_values', Q_VALUES, lambda spec, sizes: (
        q_network.make_q_network(spec.num_actions, sizes,
                                 nature_conv.NatureConvTorso))),
    # PQN's on pixel games: a LayerNorm before each activation.
    _nature_conv_entry('nature_conv_layer_norm_q_values', Q_VALUES,
                       lambda spec, sizes: q_network.make_q_network(
                           spec.num_actions, sizes,
                           nature_conv.LayerNormNatureConvTorso)),
    # POPGym Arcade's baselines': a conv tower and trunk each side.
    _conv_entry(popgym_arcade_conv.NAME, ACTOR_CRITIC, lambda spec, sizes: (
        popgym_arcade_conv.make_popgym_arcade_actor_critic_network(
            spec.num_actions, spec.observations.shape, sizes)),
                default_hidden_sizes=popgym_arcade_conv.TRUNK_SIZES),
    # PQN's MinAtar network: MinAtar's convolution with LayerNorm.
    _conv_entry('conv_layer_norm_q_values', Q_VALUES, lambda spec, sizes: (
        q_network.make_q_network(spec.num_actions, sizes,
                                 conv.LayerNormConvTorso))),
    # Return distributions (C51, QR-DQN), plain or dueling (Rainbow's).
    NetworkEntry('mlp_q_distribution', Q_DISTRIBUTION,
                 lambda spec, sizes, num_atoms: q_network.make_q_network(
                     spec.num_actions, sizes, num_atoms=num_atoms)),
    NetworkEntry('mlp_dueling_q_distribution', Q_DISTRIBUTION,
                 lambda spec, sizes, num_atoms: (
                     q_network.make_dueling_q_network(
                         spec.num_actions, sizes, num_atoms=num_atoms))),
    _conv_entry('conv_q_distribution', Q_DISTRIBUTION,
                lambda spec, sizes, num_atoms: q_network.make_q_network(
                    spec.num_actions, sizes, conv.ConvTorso, num_atoms)),
    _conv_entry('conv_dueling_q_distribution', Q_DISTRIBUTION,
                lambda spec, sizes, num_atoms: (
                    q_network.make_dueling_q_network(
                        spec.num_actions, sizes, conv.ConvTorso, num_atoms))),
    # PureJaxRL's / CleanRL's continuous PPO: one learned log-std vector.
    NetworkEntry('mlp_gaussian_actor_critic', GAUSSIAN_ACTOR_CRITIC,
                 lambda spec, sizes: (
                     gaussian_actor_critic.make_gaussian_actor_critic_network(
                         spec.action_dim, sizes))),
    NetworkEntry('mlp_gaussian_actor_critic_state_std', GAUSSIAN_ACTOR_CRITIC,
                 lambda spec, sizes: (
                     gaussian_actor_critic.make_gaussian_actor_critic_network(
                         spec.action_dim, sizes, state_dependent_std=True))),
    NetworkEntry('mlp_actor_twin_q', ACTOR_TWIN_Q, lambda spec, sizes: (
        actor_twin_q.make_actor_twin_q_network(spec.action_dim, sizes)),
                 default_hidden_sizes=actor_twin_q.DEFAULT_HIDDEN_SIZES),
    NetworkEntry('mlp_deterministic_actor_twin_q', DETERMINISTIC_ACTOR_TWIN_Q,
                 lambda spec, sizes: actor_twin_q.make_actor_twin_q_network(
                     spec.action_dim, sizes, deterministic=True),
                 default_hidden_sizes=actor_twin_q.DEFAULT_HIDDEN_SIZES),
    # Jumanji's A2C network for jumanji:Maze-v0: convolutions over the
    # maze drawn from its observation vector, separate actor and critic.
    NetworkEntry('jumanji_maze_actor_critic', ACTOR_CRITIC,
                 lambda spec, sizes: (
                     jumanji_maze.make_maze_actor_critic_network(
                         spec.num_actions,
                         jumanji_maze.grid_size(spec.observations.shape),
                         sizes)),
                 observation_rank=1,
                 default_hidden_sizes=jumanji_maze.POLICY_LAYERS),
    # MuZero's learned model: an MLP or MinAtar's conv representation.
    NetworkEntry('mlp_learned_model', LEARNED_MODEL, lambda spec, sizes: (
        learned_model.make_learned_model_network(spec.num_actions, sizes))),
    _conv_entry('conv_learned_model', LEARNED_MODEL, lambda spec, sizes: (
        learned_model.make_learned_model_network(spec.num_actions, sizes,
                                                 conv.ConvTorso))),
    # XLand-MiniGrid's recurrent PPO network: embedded view, direction,
    # previous action and reward, a GRU, tanh actor and critic heads.
    NetworkEntry('xminigrid_gru_actor_critic', ACTOR_CRITIC,
                 lambda spec, sizes: (
                     xminigrid_recurrent.make_xminigrid_actor_critic_network(
                         spec.num_actions,
                         xminigrid_recurrent.view_size(
                             spec.observations.shape, spec.num_actions),
                         sizes)),
                 observation_rank=1, recurrent=True,
                 default_hidden_sizes=xminigrid_recurrent.DEFAULT_HIDDEN_SIZES),
    # Policies with memory: an MLP torso, an LSTM or GRU core, two heads.
    NetworkEntry('lstm_actor_critic', ACTOR_CRITIC, lambda spec, sizes: (
        recurrent.make_recurrent_actor_critic_network(
            spec.num_actions, sizes, recurrent.LSTM)), recurrent=True),
    NetworkEntry('gru_actor_critic', ACTOR_CRITIC, lambda spec, sizes: (
        recurrent.make_recurrent_actor_critic_network(
            spec.num_actions, sizes, recurrent.GRU)), recurrent=True),
    # PureJaxRL ppo_rnn.py's: a 128 ReLU embedding, a 128 GRU, and a
    # 128-ReLU layer before each head.
    NetworkEntry('gru_actor_critic_relu_heads', ACTOR_CRITIC,
                 lambda spec, sizes: (
                     recurrent.make_recurrent_actor_critic_relu_heads_network(
                         spec.num_actions, sizes)),
                 default_hidden_sizes=(128, 128), recurrent=True),
    # Craftax_Baselines' ppo_rnn.py: PureJaxRL's, with two-layer heads
    # and flax's GRU.
    NetworkEntry('craftax_gru_actor_critic', ACTOR_CRITIC,
                 lambda spec, sizes: (
                     recurrent.make_recurrent_actor_critic_relu_heads_network(
                         spec.num_actions, sizes or CRAFTAX_RECURRENT_SIZES,
                         head_layers=2, core=recurrent.RESET_AFTER_GRU)),
                 default_hidden_sizes=CRAFTAX_RECURRENT_SIZES,
                 recurrent=True),
    # purejaxql's recurrent PQN: LayerNorm ReLU layers, a GRU, Q-values.
    NetworkEntry('gru_layer_norm_q_values', Q_VALUES, lambda spec, sizes: (
        recurrent.make_recurrent_q_network(spec.num_actions, sizes)),
                 recurrent=True),
    NetworkEntry('lstm_policy', POLICY, lambda spec, sizes: (
        recurrent.make_recurrent_policy_network(
            spec.num_actions, sizes, recurrent.LSTM)), recurrent=True),
    NetworkEntry('gru_policy', POLICY, lambda spec, sizes: (
        recurrent.make_recurrent_policy_network(
            spec.num_actions, sizes, recurrent.GRU)), recurrent=True),
    # Images: the conv torso (ReLU, a 128 dense layer), then a 128 LSTM.
    _conv_entry('conv_lstm_actor_critic', ACTOR_CRITIC, lambda spec, sizes: (
        recurrent.make_recurrent_actor_critic_network(
            spec.num_actions, sizes or CONV_RECURRENT_SIZES, recurrent.LSTM,
            jax.nn.relu, recurrent.CONV_TORSO)),
                default_hidden_sizes=CONV_RECURRENT_SIZES, recurrent=True),
    # Images of Atari's scale: the Atari network, then a 128 LSTM
    # (POPGym Arcade's partially observable games).
    _nature_conv_entry(
        'nature_conv_lstm_actor_critic', ACTOR_CRITIC, lambda spec, sizes: (
            recurrent.make_recurrent_actor_critic_network(
                spec.num_actions, sizes or NATURE_CONV_RECURRENT_SIZES,
                recurrent.LSTM, jax.nn.relu, recurrent.NATURE_CONV_TORSO)),
        default_hidden_sizes=NATURE_CONV_RECURRENT_SIZES, recurrent=True),
    # POPGym Arcade's memory baselines': towers, LRU memories, trunks.
    _conv_entry(popgym_arcade_recurrent.NAME, ACTOR_CRITIC,
                lambda spec, sizes: (
                    popgym_arcade_recurrent
                    .make_popgym_arcade_lru_actor_critic_network(
                        spec.num_actions, spec.observations.shape, sizes)),
                default_hidden_sizes=(
                    popgym_arcade_recurrent.DEFAULT_HIDDEN_SIZES),
                recurrent=True),
    _conv_entry('conv_lstm_policy', POLICY, lambda spec, sizes: (
        recurrent.make_recurrent_policy_network(
            spec.num_actions, sizes or CONV_RECURRENT_SIZES, recurrent.LSTM,
            jax.nn.relu, recurrent.CONV_TORSO)),
                default_hidden_sizes=CONV_RECURRENT_SIZES, recurrent=True),
)

# Built-in entries, then whatever users `register` (never replaced).
_ENTRIES = named_entries.NamedEntries('Network', _BUILT_IN)


def register(entry: NetworkEntry, replace: bool = False) -> NetworkEntry:
  """Adds `entry` (see `NamedEntries.register`)."""
  return _ENTRIES.register(entry, replace)


def names(kind: Optional[str] = None) -> Tuple[str, ...]:
  """Registered network names (of `kind`, if given)."""
  return _ENTRIES.names(lambda e: kind is None or e.kind == kind)


def get(name: str, kind: Optional[str] = None) -> NetworkEntry:
  """The entry `name`; unknown names (or the wrong kind) list the valid ones.
  """
  entry = _ENTRIES.get(name)
  if entry is None:
    raise ValueError(f'Unknown network {name!r}.'
                     f'{name_hints.did_you_mean(name, names(kind))} Valid '
                     f'names: {", ".join(names(kind))}.')
  if kind is not None and entry.kind != kind:
    raise ValueError(f'Network {name!r} is of kind {entry.kind!r}; kind '
                     f'{kind!r} is needed here. Valid names: '
                     f'{", ".join(names(kind))}.')
  return entry
