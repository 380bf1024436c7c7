"""The one registry of agents: config dataclass, network and agent factory.

Everything the framework needs to know about an agent lives in its
`AgentEntry` (which networks it needs, whether its policy can be trained on
the device) or follows from its config (`batch_splits`, `schedule_ends`,
`fit_to_budget`, `network_options`), so no code elsewhere tests an agent's
name. A user's own agent, from their own module (see
`examples/custom_agent.py`):

    from agents import registry
    registry.register(registry.AgentEntry(
        'my_agent', MyConfig, make_agent,
        {registry.DISCRETE: (network_registry.POLICY, 'mlp_policy')}))

then `python -m experiments.train --imports=my_module --agent=my_agent`.
"""

import dataclasses
import typing
from typing import Any, Callable, Dict, Mapping, Optional, Sequence, Tuple

from agents import a2c
from agents import agent as agent_lib
from agents import alphazero
from agents import c51
from agents import config_checks
from agents import dqn
from agents import impala
from agents import muzero
from agents import ppo
from agents import pqn
from agents import qr_dqn
from agents import reinforce
from agents import sac
from agents import td3
from environments import continuous_actions
from environments import name_hints
from environments import named_entries
from environments import specs
from networks import image_defaults
from networks import registry as network_registry


# The action spaces agents act in (`specs.EnvironmentSpec.action_space`).
DISCRETE, CONTINUOUS = specs.DISCRETE, specs.CONTINUOUS
ACTION_SPACES = (DISCRETE, CONTINUOUS)


@dataclasses.dataclass(frozen=True)
class AgentEntry:
  """How to build one agent, and what it can do.

  What follows from an agent's config is asked of the config itself, by
  optional methods of its dataclass (`batch_splits`, `schedules`,
  `fit_to_budget`, `network_options`, `static_keys`: see the functions
  of the same names below); the entry keeps the rest.

  Attributes:
    name: the name `--agent` takes.
    config_class: the agent's config dataclass (documented defaults).
    make_agent: `(config, environment_spec, network) -> Agent` (a planning
      agent's also takes `model=`, the environment's core).
    networks: `{action space: (network kind, default network)}` for each
      space of `ACTION_SPACES` it acts in, its main one first (PPO:
      discrete, categorical policy; continuous, Gaussian). The default is
      the registered network it uses there unless `--network` names
      another of that kind (on image observations the conv network of the
      kind instead: `networks.image_defaults.default_network`).
    title: the agent's name for people (figure legends, reports); None:
      `name`.
    trainable_on_device: its exported policy has a policy gradient, so an
      `--export=trainable` model can keep learning on the device.
    recurrent: it can use a recurrent network (`NetworkEntry.recurrent`),
      carrying a state through `Agent.recurrence`; others refuse one.
    learns_from_stale_actors: it corrects for actors acting with params
      some updates old (IMPALA's V-trace), so the Python loop may run its
      actors ahead of the learner (`--actor_thread`).
    plans: it searches with the environment's JAX core (`Agent.planning`;
      its `make_agent` takes it as `model`): compiled loop only.
    self_play: it learns two-player games by playing both sides
      (`environments.two_player`); the others play alone.
  """
  name: str
  config_class: type
  make_agent: Callable[..., agent_lib.Agent]
  networks: Mapping[str, Tuple[str, str]]
  title: Optional[str] = None
  trainable_on_device: bool = False
  recurrent: bool = False
  learns_from_stale_actors: bool = False
  plans: bool = False
  self_play: bool = False

  def __post_init__(self):
    if not dataclasses.is_dataclass(self.config_class):
      raise ValueError(f'Agent {self.name!r}: config_class must be a '
                       f'dataclass; got {self.config_class!r}.')
    if (not isinstance(self.networks, Mapping) or not self.networks or
        set(self.networks) - set(ACTION_SPACES)):
      raise ValueError(f'Agent {self.name!r}: networks must map action '
                       f'spaces of {ACTION_SPACES} to (kind, default '
                       f'network); got {self.networks!r}.')
    for space, (kind, default) in self.networks.items():
      if (kind in network_registry.CONTINUOUS_KINDS) != (space == CONTINUOUS):
        raise ValueError(
            f'Agent {self.name!r}: network kind {kind!r} does not act in '
            f'{space} action spaces (continuous kinds: '
            f'{", ".join(network_registry.CONTINUOUS_KINDS)}).')
      network_registry.get(default, kind)
    if not self.title:
      object.__setattr__(self, 'title', self.name)

  @property
  def action_space(self) -> str:
    """Its main action space (the first of `networks`)."""
    return next(iter(self.networks))

  @property
  def network_kind(self) -> str:
    """The network kind of its main action space."""
    return self.networks[self.action_space][0]

  @property
  def default_network(self) -> str:
    """The default network of its main action space."""
    return self.networks[self.action_space][1]

  def check_config_keys(self, keys: Sequence[str]) -> None:
    """Raises ValueError naming `keys` that its config lacks."""
    fields = {f.name for f in dataclasses.fields(self.config_class)}
    unknown = sorted(set(keys) - fields)
    if unknown:
      raise ValueError(f'Unknown config key(s) {unknown} for agent '
                       f'{self.name!r}. Valid keys: '
                       f'{", ".join(sorted(fields))}.')

  def make_config(self, **overrides: Any) -> Any:
    """Its default config with `overrides`; bad keys are named."""
    self.check_config_keys(list(overrides))
    config = self.config_class(**overrides)
    config_checks.check_finite_floats(config)  # Of every agent, users' too.
    return config

  def sweepable_keys(self) -> Tuple[str, ...]:
    """Config keys a sweep can vary inside one compiled program (float
    fields, less those its config class names in a `static_keys` class
    attribute, which it reads in Python); the others (integers, strings,
    flags) change shapes or code and form separate programs."""
    hints = typing.get_type_hints(self.config_class)
    return tuple(sorted(
        f.name for f in dataclasses.fields(self.config_class)
        if hints[f.name] in (float, Optional[float]) and
        f.name not in getattr(self.config_class, 'static_keys', ())))

  def check_stale_actors(self, setting: str) -> None:
    """Refuses `setting` (which runs actors ahead of the learner) unless
    the agent `learns_from_stale_actors`, naming the agents that do."""
    if not self.learns_from_stale_actors:
      able = [n for n in names() if get(n).learns_from_stale_actors]
      raise ValueError(
          f'{setting}: agent {self.name!r} does not correct for actors '
          f'whose params are updates old; agents that do: '
          f'{", ".join(able)}. Use one of them, or leave {setting} unset.')

  def check_action_space(self,
                         environment_spec: specs.EnvironmentSpec) -> None:
    """Raises ValueError, naming the agent, the environment's action spec
    and the agents that fit, unless it acts in that action space."""
    space = environment_spec.action_space
    if space in self.networks:
      return
    described = continuous_actions.describe(environment_spec.actions)
    acts_in = ' and '.join(self.networks)
    if space is None:
      raise ValueError(
          f'Agent {self.name!r} acts in {acts_in} action spaces; this '
          f'environment\'s actions are {described}, which no agent here '
          f'takes (discrete: a dm_env DiscreteArray; continuous: a float '
          f'[action_dim] array).')
    fits = [n for n in names() if space in get(n).networks]
    raise ValueError(
        f'Agent {self.name!r} acts in {acts_in} action spaces; this '
        f'environment\'s actions are {described}. Agents for {space} '
        f'actions: {", ".join(fits) or "none"}.')

  def network_entry(self, network: Optional[str] = None,
                    environment_spec: Optional[specs.EnvironmentSpec] = None
                   ) -> network_registry.NetworkEntry:
    """The network it uses: `network`, else its default for the action
    space and observations of `environment_spec`
    (`networks.image_defaults.default_network`: on images the conv twin
    of its default, else the conv network of its kind; at Atari's scale
    the Atari network's). A network of the wrong kind, or one that cannot
    take those observations, is refused, listing the ones that fit. Without a spec, a `network` of any kind the agent
    uses is accepted, and the default is that of its `action_space`."""
    observations = (None if environment_spec is None else
                    environment_spec.observations)
    if environment_spec is not None:
      self.check_action_space(environment_spec)
    try:
      if environment_spec is not None:
        kind, default = self.networks[environment_spec.action_space]
      elif network is not None:  # Any kind the agent uses.
        defaults = dict(self.networks.values())
        kind = network_registry.get(network).kind
        kind = kind if kind in defaults else self.network_kind
        default = defaults[kind]
      else:
        kind, default = self.network_kind, self.default_network
      chosen = network_registry.get(
          network or image_defaults.default_network(
              kind, observations, default), kind)
      if observations is not None:
        chosen.check_observations(observations)
    except ValueError as e:
      raise ValueError(f'Agent {self.name!r}: {e}') from e
    if chosen.recurrent and not self.recurrent:
      able = [n for n in names() if get(n).recurrent]
      plain = [n for n in network_registry.names(chosen.kind)
               if not network_registry.get(n).recurrent]
      raise ValueError(
          f'Agent {self.name!r} cannot use the recurrent network '
          f'{chosen.name!r} (it keeps no state between steps); agents that '
          f'can: {", ".join(able)}. Feed-forward networks for {self.name}: '
          f'{", ".join(plain)}.')
    return chosen

  def build(self, config: Any, environment_spec: specs.EnvironmentSpec,
            hidden_sizes: Optional[Sequence[int]] = None,
            network: Optional[str] = None, model: Any = None
           ) -> agent_lib.Agent:
    """The agent of `config` with its network (`network_entry`) for
    `environment_spec`; a planning agent (`plans`) searches with `model`,
    the environment's JAX core (None: it can learn and be exported, not
    act)."""
    transformed = self.network_entry(network, environment_spec).make(
        environment_spec, hidden_sizes, **network_options(config))
    planning = {'model': model} if self.plans else {}
    return self.make_agent(config, environment_spec, transformed, **planning)


def _discrete(kind: str, default: str) -> Dict[str, Tuple[str, str]]:
  return {DISCRETE: (kind, default)}


_BUILT_IN = (
    AgentEntry('a2c', a2c.A2CConfig, a2c.make_agent,
               _discrete(network_registry.ACTOR_CRITIC, 'mlp_actor_critic'),
               title='A2C', trainable_on_device=True, recurrent=True),
    AgentEntry('alphazero', alphazero.AlphaZeroConfig, alphazero.make_agent,
               _discrete(network_registry.ACTOR_CRITIC, 'mlp_actor_critic'),
               title='AlphaZero', plans=True, self_play=True),
    AgentEntry('c51', c51.C51Config, c51.make_agent,
               _discrete(network_registry.Q_DISTRIBUTION,
                         'mlp_q_distribution'), title='C51'),
    AgentEntry('dqn', dqn.DQNConfig, dqn.make_agent,
               _discrete(network_registry.Q_VALUES, 'mlp_q_values'),
               title='DQN'),
    AgentEntry('impala', impala.IMPALAConfig, impala.make_agent,
               _discrete(network_registry.ACTOR_CRITIC, 'mlp_actor_critic'),
               title='IMPALA', learns_from_stale_actors=True),
    AgentEntry('muzero', muzero.MuZeroConfig, muzero.make_agent,
               _discrete(network_registry.LEARNED_MODEL, 'mlp_learned_model'),
               title='MuZero'),
    AgentEntry('ppo', ppo.PPOConfig, ppo.make_agent,
               {DISCRETE: (network_registry.ACTOR_CRITIC, 'mlp_actor_critic'),
                CONTINUOUS: (network_registry.GAUSSIAN_ACTOR_CRITIC,
                             'mlp_gaussian_actor_critic')},
               title='PPO', trainable_on_device=True, recurrent=True),
    AgentEntry('pqn', pqn.PQNConfig, pqn.make_agent,
               _discrete(network_registry.Q_VALUES,
                         'mlp_layer_norm_q_values'), title='PQN',
               recurrent=True),
    AgentEntry('qr_dqn', qr_dqn.QRDQNConfig, qr_dqn.make_agent,
               _discrete(network_registry.Q_DISTRIBUTION,
                         'mlp_q_distribution'), title='QR-DQN'),
    AgentEntry('reinforce', reinforce.ReinforceConfig, reinforce.make_agent,
               _discrete(network_registry.POLICY, 'mlp_policy'),
               title='REINFORCE', trainable_on_device=True, recurrent=True),
    AgentEntry('sac', sac.SACConfig, sac.make_agent,
               {CONTINUOUS: (network_registry.ACTOR_TWIN_Q,
                             'mlp_actor_twin_q')}, title='SAC'),
    AgentEntry('td3', td3.TD3Config, td3.make_agent,
               {CONTINUOUS: (network_registry.DETERMINISTIC_ACTOR_TWIN_Q,
                             'mlp_deterministic_actor_twin_q')},
               title='TD3'),
)

# Built-in entries, then whatever users `register` (never replaced).
_ENTRIES = named_entries.NamedEntries('Agent', _BUILT_IN)


def register(entry: AgentEntry, replace: bool = False) -> AgentEntry:
  """Adds `entry` (see `NamedEntries.register`)."""
  return _ENTRIES.register(entry, replace)


def names() -> Tuple[str, ...]:
  """Registered agent names."""
  return _ENTRIES.names()


def get(name: str) -> AgentEntry:
  """The entry of agent `name`; unknown names list the valid ones."""
  entry = _ENTRIES.get(name)
  if entry is None:
    raise ValueError(f'Unknown agent {name!r}.'
                     f'{name_hints.did_you_mean(name, names())} Valid names: '
                     f'{", ".join(names())}. Your own agent: register it in '
                     f'a module named by --imports.')
  return entry


def title(name: str) -> str:
  """Agent `name` for people, e.g. 'PPO' (its entry's title, else name)."""
  return get(name).title


def make_config(name: str, **overrides: Any) -> Any:
  """Agent `name`'s default config with `overrides`; bad keys are named."""
  return get(name).make_config(**overrides)


def traced_config(config: Any, values: Mapping[str, Any]) -> Any:
  """A copy of a validated `config` with `values` (traced scalars of
  `sweepable_keys`) in place of its floats, for building one sweep
  trial's agent inside a compiled program. The config's own checks are
  skipped (they compare values in Python): each trial's concrete config is
  validated before compiling (`experiments.setup.config`)."""
  copy = dataclasses.replace(config)
  for key, value in values.items():
    object.__setattr__(copy, key, value)
  return copy


def fit_to_budget(config: Any, num_steps: Optional[int]) -> Any:
  """`config` with the settings a run of `num_steps` environment steps
  derives (PPO's annealing): `config.fit_to_budget(num_steps)`, else
  `config`. Raises ValueError for settings the budget cannot serve."""
  fit = getattr(config, 'fit_to_budget', None)
  return config if fit is None else fit(num_steps)


def environments_per_update(config: Any) -> int:
  """Environments per `update` of an agent with `config` (its data's
  batch_size), before it is built: `num_actors`, else `batch_size`."""
  size = getattr(config, 'num_actors', getattr(config, 'batch_size', None))
  if size is None:
    raise ValueError(f'{type(config).__name__} needs a batch_size field: '
                     f'the environments one update takes.')
  return size


def schedule_ends(config: Any) -> Dict[str, int]:
  """`{schedule: environment step it ends at}` of the schedules a budget
  may cut short (DQN's ε decay): `config.schedules()`, else empty."""
  schedules = getattr(config, 'schedules', None)
  return {} if schedules is None else dict(schedules())


def batch_splits(config: Any, recurrent: bool = False
                ) -> Optional[Dict[str, int]]:
  """`{what: size}` a device count splitting one seed's batch
  (`--devices_per_seed`) must divide beyond the environments (PPO's
  minibatch): `config.batch_splits()`, and with a `recurrent` network,
  whose minibatches are whole sequences, each minibatch's sequences too.
  None if it has none: the agent does not reduce over its batch through
  `agents.data_parallel`, so each seed runs on one device."""
  splits = getattr(config, 'batch_splits', None)
  if splits is None:
    return None
  splits = dict(splits())
  if recurrent and hasattr(config, 'num_minibatches'):
    splits['the minibatch\'s sequences (batch_size / num_minibatches)'] = (
        config.batch_size // config.num_minibatches)
  return splits


def network_options(config: Any) -> Dict[str, Any]:
  """`{option: value}` the agent's network is built with beyond the
  environment and widths (C51's `num_atoms`): `config.network_options()`."""
  options = getattr(config, 'network_options', None)
  return {} if options is None else dict(options())


def network_entry(name: str, network: Optional[str] = None,
                  environment_spec: Optional[specs.EnvironmentSpec] = None
                 ) -> network_registry.NetworkEntry:
  """`AgentEntry.network_entry` of agent `name`."""
  return get(name).network_entry(network, environment_spec)


def make_agent(name: str, config: Any,
               environment_spec: specs.EnvironmentSpec,
               hidden_sizes: Optional[Sequence[int]] = None,
               network: Optional[str] = None, model: Any = None
              ) -> agent_lib.Agent:
  """`AgentEntry.build` of agent `name`."""
  return get(name).build(config, environment_spec, hidden_sizes, network,
                         model)
