"""The one registry of agents: config dataclass, network and agent factories."""

import dataclasses
import types
from typing import Any, Callable, Mapping, Optional, Sequence

import haiku as hk

from agents import a2c
from agents import agent as agent_lib
from agents import dqn
from agents import ppo
from agents import reinforce
from environments import specs
from networks import actor_critic
from networks import policy
from networks import q_network


@dataclasses.dataclass(frozen=True)
class AgentEntry:
  """How to build one agent.

  Attributes:
    config_class: the agent's config dataclass (documented defaults).
    make_network: `(environment_spec, hidden_sizes) -> hk.Transformed`.
    make_agent: `(config, environment_spec, network) -> Agent`.
  """
  config_class: type
  make_network: Callable[[specs.EnvironmentSpec, Optional[Sequence[int]]],
                         hk.Transformed]
  make_agent: Callable[[Any, specs.EnvironmentSpec, hk.Transformed],
                       agent_lib.Agent]


def _policy_network(environment_spec: specs.EnvironmentSpec,
                    hidden_sizes: Optional[Sequence[int]]) -> hk.Transformed:
  return policy.make_policy_network(environment_spec.num_actions, hidden_sizes)


def _q_network(environment_spec: specs.EnvironmentSpec,
               hidden_sizes: Optional[Sequence[int]]) -> hk.Transformed:
  return q_network.make_q_network(environment_spec.num_actions, hidden_sizes)


def _actor_critic_network(
    environment_spec: specs.EnvironmentSpec,
    hidden_sizes: Optional[Sequence[int]]) -> hk.Transformed:
  return actor_critic.make_actor_critic_network(environment_spec.num_actions,
                                                hidden_sizes)


_AGENTS: Mapping[str, AgentEntry] = types.MappingProxyType({
    'a2c': AgentEntry(a2c.A2CConfig, _actor_critic_network, a2c.make_agent),
    'dqn': AgentEntry(dqn.DQNConfig, _q_network, dqn.make_agent),
    'ppo': AgentEntry(ppo.PPOConfig, _actor_critic_network, ppo.make_agent),
    'reinforce': AgentEntry(reinforce.ReinforceConfig, _policy_network,
                            reinforce.make_agent),
})


def names() -> tuple[str, ...]:
  """Registered agent names."""
  return tuple(sorted(_AGENTS))


def get(name: str) -> AgentEntry:
  """The entry of agent `name`; unknown names list the valid ones."""
  if name not in _AGENTS:
    raise ValueError(f'Unknown agent {name!r}. Valid names: '
                     f'{", ".join(names())}.')
  return _AGENTS[name]


def check_config_keys(name: str, keys: Sequence[str]) -> None:
  """Raises ValueError naming `keys` that agent `name`'s config lacks."""
  fields = {f.name for f in dataclasses.fields(get(name).config_class)}
  unknown = sorted(set(keys) - fields)
  if unknown:
    raise ValueError(f'Unknown config key(s) {unknown} for agent {name!r}. '
                     f'Valid keys: {", ".join(sorted(fields))}.')


def make_config(name: str, **overrides: Any) -> Any:
  """Agent `name`'s default config with `overrides`; bad keys are named."""
  check_config_keys(name, list(overrides))
  return get(name).config_class(**overrides)


def make_agent(name: str, config: Any,
               environment_spec: specs.EnvironmentSpec,
               hidden_sizes: Optional[Sequence[int]] = None
              ) -> agent_lib.Agent:
  """Builds agent `name` with its network for `environment_spec`."""
  entry = get(name)
  network = entry.make_network(environment_spec, hidden_sizes)
  return entry.make_agent(config, environment_spec, network)
