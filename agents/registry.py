"""The one registry of agents: config dataclass, network and agent factory.

Everything the framework needs to know about an agent lives in its
`AgentEntry` (which network it needs, whether its policy can be trained on
the device), so no code elsewhere tests an agent's name. A user's own agent,
from their own module (see `examples/custom_agent.py`):

    from agents import registry
    registry.register(registry.AgentEntry(
        'my_agent', MyConfig, network_registry.POLICY, 'mlp_policy',
        make_agent))

then `python -m experiments.train --imports=my_module --agent=my_agent`.
"""

import dataclasses
import typing
from typing import Any, Callable, Dict, Mapping, Optional, Sequence, Tuple

from dm_env import specs as dm_specs
import haiku as hk

from agents import a2c
from agents import agent as agent_lib
from agents import c51
from agents import config_checks
from agents import dqn
from agents import impala
from agents import optimizers
from agents import ppo
from agents import pqn
from agents import qr_dqn
from agents import reinforce
from agents import sac
from agents import td3
from environments import continuous_actions
from environments import named_entries
from environments import specs
from networks import registry as network_registry


DISCRETE = 'discrete'  # Actions of a dm_env DiscreteArray.
CONTINUOUS = 'continuous'  # Float actions `[action_dim]` (BoundedArray).
ACTION_SPACES = (DISCRETE, CONTINUOUS)


@dataclasses.dataclass(frozen=True)
class AgentEntry:
  """How to build one agent, and what it can do.

  Attributes:
    name: the name `--agent` takes.
    config_class: the agent's config dataclass (documented defaults).
    network_kind: the kind of network it needs (`networks.registry.KINDS`)
      over actions of `action_space`.
    default_network: the registered network it uses there unless
      `--network` names another of its kind (on image observations the conv
      network of its kind instead: `networks.registry.default_network`).
    make_agent: `(config, environment_spec, network) -> Agent`.
    trainable_on_device: its exported policy has a policy gradient, so an
      `--export=trainable` model can keep learning on the device.
    fit_to_budget: `(config, num_steps) -> config`: fills the settings
      derived from the run's step budget (e.g. PPO's learning-rate
      annealing); None: the agent has none.
    static_keys: float config keys the agent reads in Python (control flow,
      shapes), so a sweep cannot give them as arrays: sweeps group by them
      (`sweepable_keys`). Every other float key must work as a traced
      scalar.
    title: the agent's name for people (figure legends, reports); None:
      `name`.
    batch_splits: `config -> {what: size}`: the sizes a device count that
      splits one seed's batch (`--devices_per_seed`) must divide, beyond
      the environments (e.g. PPO's minibatch); None: the agent does not
      reduce over its batch through `agents.data_parallel`, so each seed
      runs on one device.
    action_space: the actions `network_kind` acts in (`ACTION_SPACES`).
    continuous_network: `(kind, default network)` over continuous actions,
      for an agent whose `action_space` is discrete but that acts in both
      (PPO: a Gaussian instead of a categorical policy); None: only
      `action_space`.
    schedules: `config -> {schedule: environment step it ends at}` for the
      config's schedules that a run's budget may cut short (DQN's ε decay);
      None: the agent has none. Checked against every run's budget
      (`schedule_ends`).
    eval_epsilon: the exploration rate of its ε-greedy evaluations unless
      `--eval_epsilon` gives one: DQN's is 0.05, the evaluation ε of DQN on
      Atari (Mnih et al., 2015); the policy agents, which have no published
      convention, use the same so that one protocol compares them.
    recurrent: it can use a recurrent network (`NetworkEntry.recurrent`),
      carrying a state through `Agent.recurrence`; others refuse one.
    network_options: `config -> {option: value}` its network is built
      with beyond the environment and widths (C51's `num_atoms`); None:
      none.
    learns_from_stale_actors: it corrects for actors acting with params
      some updates old (IMPALA's V-trace), so the Python loop may run its
      actors ahead of the learner (`--actor_thread`).
  """
  name: str
  config_class: type
  network_kind: str
  default_network: str
  make_agent: Callable[[Any, specs.EnvironmentSpec, hk.Transformed],
                       agent_lib.Agent]
  trainable_on_device: bool = False
  fit_to_budget: Optional[Callable[[Any, Optional[int]], Any]] = None
  static_keys: Tuple[str, ...] = ()
  title: Optional[str] = None
  batch_splits: Optional[Callable[[Any], Mapping[str, int]]] = None
  action_space: str = DISCRETE
  continuous_network: Optional[Tuple[str, str]] = None
  schedules: Optional[Callable[[Any], Mapping[str, int]]] = None
  eval_epsilon: float = 0.05
  recurrent: bool = False
  network_options: Optional[Callable[[Any], Mapping[str, Any]]] = None
  learns_from_stale_actors: bool = False

  def __post_init__(self):
    if not dataclasses.is_dataclass(self.config_class):
      raise ValueError(f'Agent {self.name!r}: config_class must be a '
                       f'dataclass; got {self.config_class!r}.')
    if self.action_space not in ACTION_SPACES:
      raise ValueError(f'Agent {self.name!r}: action_space must be one of '
                       f'{ACTION_SPACES}; got {self.action_space!r}.')
    if self.continuous_network is not None and self.action_space != DISCRETE:
      raise ValueError(f'Agent {self.name!r}: continuous_network is for an '
                       f'agent of discrete action_space that acts in both.')
    for space, (kind, default) in self.networks().items():
      if (kind in network_registry.CONTINUOUS_KINDS) != (space == CONTINUOUS):
        raise ValueError(
            f'Agent {self.name!r}: network kind {kind!r} does not act in '
            f'{space} action spaces (continuous kinds: '
            f'{", ".join(network_registry.CONTINUOUS_KINDS)}).')
      network_registry.get(default, kind)
    if not 0.0 <= self.eval_epsilon <= 1.0:
      raise ValueError(f'Agent {self.name!r}: eval_epsilon must be in '
                       f'[0, 1]; got {self.eval_epsilon!r}.')

  def networks(self) -> Dict[str, Tuple[str, str]]:
    """`{action space: (network kind, default network)}` it acts in."""
    networks = {self.action_space: (self.network_kind, self.default_network)}
    if self.continuous_network is not None:
      networks[CONTINUOUS] = tuple(self.continuous_network)
    return networks


def _no_splits(config: Any) -> Mapping[str, int]:
  """An agent whose batch splits wherever its environments do."""
  del config
  return {}


_BUILT_IN = (
    AgentEntry('a2c', a2c.A2CConfig, network_registry.ACTOR_CRITIC,
               'mlp_actor_critic', a2c.make_agent, trainable_on_device=True,
               title='A2C', batch_splits=_no_splits, recurrent=True),
    AgentEntry('c51', c51.C51Config, network_registry.Q_DISTRIBUTION,
               'mlp_q_distribution', c51.make_agent, title='C51',
               batch_splits=dqn.batch_splits, schedules=dqn.schedules,
               network_options=c51.network_options),
    AgentEntry('dqn', dqn.DQNConfig, network_registry.Q_VALUES,
               'mlp_q_values', dqn.make_agent, title='DQN',
               batch_splits=dqn.batch_splits, schedules=dqn.schedules,
               eval_epsilon=0.05),
    AgentEntry('impala', impala.IMPALAConfig, network_registry.ACTOR_CRITIC,
               'mlp_actor_critic', impala.make_agent, title='IMPALA',
               batch_splits=_no_splits, learns_from_stale_actors=True),
    AgentEntry('ppo', ppo.PPOConfig, network_registry.ACTOR_CRITIC,
               'mlp_actor_critic', ppo.make_agent, trainable_on_device=True,
               fit_to_budget=optimizers.fit_decay_to_budget, title='PPO',
               recurrent=True, batch_splits=ppo.batch_splits, schedules=ppo.schedules,
               continuous_network=(network_registry.GAUSSIAN_ACTOR_CRITIC,
                                   'mlp_gaussian_actor_critic')),
    AgentEntry('pqn', pqn.PQNConfig, network_registry.Q_VALUES,
               'mlp_layer_norm_q_values', pqn.make_agent, title='PQN',
               batch_splits=pqn.batch_splits, schedules=pqn.schedules,
               fit_to_budget=optimizers.fit_decay_to_budget),
    AgentEntry('qr_dqn', qr_dqn.QRDQNConfig, network_registry.Q_DISTRIBUTION,
               'mlp_q_distribution', qr_dqn.make_agent, title='QR-DQN',
               batch_splits=dqn.batch_splits, schedules=dqn.schedules,
               network_options=qr_dqn.network_options),
    AgentEntry('reinforce', reinforce.ReinforceConfig, network_registry.POLICY,
               'mlp_policy', reinforce.make_agent, trainable_on_device=True,
               title='REINFORCE', batch_splits=_no_splits, recurrent=True),
    AgentEntry('sac', sac.SACConfig, network_registry.ACTOR_TWIN_Q,
               'mlp_actor_twin_q', sac.make_agent, title='SAC',
               batch_splits=sac.batch_splits, action_space=CONTINUOUS),
    AgentEntry('td3', td3.TD3Config,
               network_registry.DETERMINISTIC_ACTOR_TWIN_Q,
               'mlp_deterministic_actor_twin_q', td3.make_agent, title='TD3',
               batch_splits=td3.batch_splits, action_space=CONTINUOUS),
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
    raise ValueError(f'Unknown agent {name!r}. Valid names: '
                     f'{", ".join(names())}. Your own agent: register it in '
                     f'a module named by --imports.')
  return entry


def title(name: str) -> str:
  """Agent `name` for people, e.g. 'PPO' (its entry's title, else name)."""
  entry = get(name)
  return entry.title or entry.name


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
  config = get(name).config_class(**overrides)
  config_checks.check_finite_floats(config)  # Of every agent, users' too.
  return config


def sweepable_keys(name: str) -> Tuple[str, ...]:
  """Config keys of agent `name` that a sweep can vary inside one compiled
  program (float fields, less the entry's `static_keys`); the others
  (integers, strings, flags) change shapes or code and form separate
  programs."""
  entry = get(name)
  hints = typing.get_type_hints(entry.config_class)
  return tuple(sorted(
      f.name for f in dataclasses.fields(entry.config_class)
      if hints[f.name] in (float, Optional[float]) and
      f.name not in entry.static_keys))


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


def check_stale_actors(name: str, setting: str) -> None:
  """Refuses `setting` (which runs actors ahead of the learner) for agent
  `name` unless it `learns_from_stale_actors`, naming the agents that do."""
  if not get(name).learns_from_stale_actors:
    able = [n for n in names() if get(n).learns_from_stale_actors]
    raise ValueError(
        f'{setting}: agent {name!r} does not correct for actors whose params '
        f'are updates old; agents that do: {", ".join(able)}. Use one of '
        f'them, or leave {setting} unset.')


def fit_to_budget(name: str, config: Any, num_steps: Optional[int]) -> Any:
  """Agent `name`'s `config` with its budget-derived settings filled in
  for a run of `num_steps` environment steps (`AgentEntry.fit_to_budget`)."""
  fit = get(name).fit_to_budget
  return config if fit is None else fit(config, num_steps)


def schedule_ends(name: str, config: Any) -> Dict[str, int]:
  """`{schedule: environment step it ends at}` of agent `name`'s `config`
  (`AgentEntry.schedules`); empty for an agent without schedules."""
  schedules = get(name).schedules
  return {} if schedules is None else dict(schedules(config))


def action_space(environment_spec: specs.EnvironmentSpec) -> Optional[str]:
  """`DISCRETE` (a `DiscreteArray`), `CONTINUOUS` (float `[action_dim]`) or
  None (anything else, which no agent here acts in) for `environment_spec`.
  """
  actions = environment_spec.actions
  if isinstance(actions, dm_specs.DiscreteArray):
    return DISCRETE
  if environment_spec.is_continuous and len(actions.shape) == 1:
    return CONTINUOUS
  return None


def check_action_space(name: str,
                       environment_spec: specs.EnvironmentSpec) -> None:
  """Raises ValueError, naming the agent, the environment's action spec and
  the agents that fit, unless agent `name` acts in its action space."""
  space = action_space(environment_spec)
  if space in get(name).networks():
    return
  described = continuous_actions.describe(environment_spec.actions)
  acts_in = " and ".join(get(name).networks())
  if space is None:
    raise ValueError(
        f'Agent {name!r} acts in {acts_in} action spaces; this '
        f'environment\'s actions are {described}, which no agent here takes '
        f'(discrete: a dm_env DiscreteArray; continuous: a float '
        f'[action_dim] array).')
  fits = [n for n in names() if space in get(n).networks()]
  raise ValueError(
      f'Agent {name!r} acts in {acts_in} action spaces; this environment\'s '
      f'actions are {described}. Agents for {space} actions: '
      f'{", ".join(fits) or "none"}.')


def network_entry(name: str, network: Optional[str] = None,
                  environment_spec: Optional[specs.EnvironmentSpec] = None
                 ) -> network_registry.NetworkEntry:
  """The network agent `name` uses: `network`, else its default for the
  action space and observations of `environment_spec`
  (`networks.registry.default_network`: on images the conv twin of its
  default, else the conv network of its kind). A network of the wrong kind, or one that cannot take those
  observations, is refused, listing the ones that fit. Without a spec, a
  `network` of any kind the agent uses is accepted, and the default is
  that of its `action_space`."""
  entry = get(name)
  observations = (None if environment_spec is None else
                  environment_spec.observations)
  networks = entry.networks()
  if environment_spec is not None:
    check_action_space(name, environment_spec)
  try:
    if environment_spec is not None:
      kind, default = networks[action_space(environment_spec)]
    elif network is not None:  # Any kind the agent uses.
      defaults = dict(networks.values())
      kind = network_registry.get(network).kind
      kind = kind if kind in defaults else entry.network_kind
      default = defaults[kind]
    else:
      kind, default = entry.network_kind, entry.default_network
    chosen = network_registry.get(
        network or network_registry.default_network(
            kind, observations, default), kind)
    if observations is not None:
      chosen.check_observations(observations)
  except ValueError as e:
    raise ValueError(f'Agent {name!r}: {e}') from e
  if chosen.recurrent and not entry.recurrent:
    able = [n for n in names() if get(n).recurrent]
    plain = [n for n in network_registry.names(chosen.kind)
             if not network_registry.get(n).recurrent]
    raise ValueError(
        f'Agent {name!r} cannot use the recurrent network {chosen.name!r} '
        f'(it keeps no state between steps); agents that can: '
        f'{", ".join(able)}. Feed-forward networks for {name}: '
        f'{", ".join(plain)}.')
  return chosen


def make_agent(name: str, config: Any,
               environment_spec: specs.EnvironmentSpec,
               hidden_sizes: Optional[Sequence[int]] = None,
               network: Optional[str] = None) -> agent_lib.Agent:
  """Builds agent `name` with its network (`network_entry`) for
  `environment_spec`."""
  options = get(name).network_options
  transformed = network_entry(name, network, environment_spec).make(
      environment_spec, hidden_sizes,
      **({} if options is None else options(config)))
  return get(name).make_agent(config, environment_spec, transformed)
