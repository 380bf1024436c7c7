"""The one registry of networks: named Haiku factories and what they output.

An agent states the kind of network it needs (`POLICY`: logits;
`ACTOR_CRITIC`: logits and values; `Q_VALUES`: one value per action) and
its default network; `--network=<name>` swaps in any registered network of
that kind, e.g. one a user registers from their own module (see
`examples/custom_network.py`):

    from networks import registry
    registry.register(registry.NetworkEntry(
        'layer_norm_policy', registry.POLICY, make_layer_norm_policy))
"""

import dataclasses
from typing import Callable, Optional, Sequence, Tuple

import haiku as hk

from environments import named_entries
from environments import specs
from networks import actor_critic
from networks import policy
from networks import q_network

POLICY = 'policy'  # observations [N, ...] -> logits [N, A].
ACTOR_CRITIC = 'actor_critic'  # -> (logits [N, A], values [N]).
Q_VALUES = 'q_values'  # -> Q-values [N, A].
KINDS = (POLICY, ACTOR_CRITIC, Q_VALUES)

# (environment spec, hidden sizes or None) -> transformed network.
NetworkFactory = Callable[[specs.EnvironmentSpec, Optional[Sequence[int]]],
                          hk.Transformed]


@dataclasses.dataclass(frozen=True)
class NetworkEntry:
  """A named network factory.

  Attributes:
    name: the name `--network` takes.
    kind: what the network outputs, one of `KINDS`.
    make: `(environment_spec, hidden_sizes) -> hk.Transformed`, whose
      `apply(params, observations [N, *obs_shape])` returns the kind's
      outputs; `hidden_sizes` None means the network's own default.
  """
  name: str
  kind: str
  make: NetworkFactory

  def __post_init__(self):
    if self.kind not in KINDS:
      raise ValueError(f'Network {self.name!r}: kind must be one of {KINDS}; '
                       f'got {self.kind!r}.')


_BUILT_IN = (
    NetworkEntry('mlp_policy', POLICY, lambda spec, sizes: (
        policy.make_policy_network(spec.num_actions, sizes))),
    NetworkEntry('mlp_actor_critic', ACTOR_CRITIC, lambda spec, sizes: (
        actor_critic.make_actor_critic_network(spec.num_actions, sizes))),
    NetworkEntry('mlp_q_values', Q_VALUES, lambda spec, sizes: (
        q_network.make_q_network(spec.num_actions, sizes))),
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
    raise ValueError(f'Unknown network {name!r}. Valid names: '
                     f'{", ".join(names(kind))}.')
  if kind is not None and entry.kind != kind:
    raise ValueError(f'Network {name!r} is of kind {entry.kind!r}; kind '
                     f'{kind!r} is needed here. Valid names: '
                     f'{", ".join(names(kind))}.')
  return entry
