"""A trained run's policy as an object: actions from observations.

`Policy.predict` gives the greedy action (what the exported model does) or,
with a PRNG key, one drawn from the policy's probabilities; one
observation or a batch of them (a leading axis). It is what
`api.load_policy` and `api.load_run(...).policy()` return; `play` (what
`api.evaluate` calls) plays episodes with it and returns each one's return
and length.
"""

import dataclasses
from typing import Any, Mapping, Optional

import jax
import jax.numpy as jnp
import numpy as np

from agents import agent as agent_lib
from agents import search as search_lib
from environments import registry as env_registry
from environments import specs
from environments import two_player
from experiments.loops import evaluation
from experiments.setup import build as build_lib
from experiments.setup import env_settings
from experiments.setup import settings as settings_lib

_SAMPLED = evaluation.Protocol('sampled')
UsageError = settings_lib.UsageError  # `api.UsageError`.


class Policy:
  """A trained agent's policy, compiled (once per batch size and mode).

  A policy with memory (a recurrent agent) remembers the observations it
  was given since its episodes began: call `reset()` when they begin anew
  (the first call, and a call with another batch size, begin them too).

  Attributes:
    built: the run's agent, environment spec and config.
    params: the actor's parameters (of the checkpoint it was loaded from).
  """

  def __init__(self, built: build_lib.Built, params: agent_lib.Params):
    self.built = built
    self.params = params
    self._compiled = {}
    self._state = None  # Of the episodes under way; None: begin anew.

  @property
  def environment_spec(self):
    """The observations it reads and the actions it gives."""
    return self.built.environment_spec

  def reset(self) -> None:
    """The next call begins new episodes (a recurrent policy forgets)."""
    self._state = None

  def __call__(self, observations: Any) -> np.ndarray:
    """`predict(observations)`: the greedy actions."""
    return self.predict(observations)

  def predict(self, observations: Any, deterministic: bool = True,
              key: Optional[jax.Array] = None) -> np.ndarray:
    """Actions for `observations`: one observation (the spec's shape) or a
    batch (a leading axis), as NumPy arrays.

    Args:
      observations: what the environment showed.
      deterministic: the greedy action (the most probable legal one, or the
        deterministic continuous one); False: drawn from the policy's
        probabilities (discrete actions of a policy agent) with `key`.
      key: a `jax.random` key for the draws (one per call; each row draws
        from its own split of it); only with `deterministic=False`.

    Raises:
      UsageError: an observation of the wrong shape, a key missing or
        given where nothing is drawn, or an agent that cannot sample.
    """
    spec = self.environment_spec.observations
    observations = np.asarray(observations, spec.dtype)
    single = observations.shape == tuple(spec.shape)
    batch = observations[None] if single else observations
    if batch.shape[1:] != tuple(spec.shape):
      raise UsageError(
          f'observations of shape {observations.shape}: this policy reads '
          f'{tuple(spec.shape)}, or a batch of them (N, '
          f'{", ".join(map(str, spec.shape))}).')
    if deterministic and key is not None:
      raise UsageError('key is for deterministic=False (sampled actions); '
                       'the greedy actions draw nothing.')
    if not deterministic:
      if key is None:
        raise UsageError('deterministic=False samples actions: pass key= '
                         '(e.g. jax.random.PRNGKey(0)).')
      self._check_can_sample()
    n = batch.shape[0]
    begin = self._state is None or any(
        x.shape[0] != n for x in jax.tree.leaves(self._state))
    state = (agent_lib.initial_state(self.built.agent, n) if begin
             else self._state)
    keys = (jnp.zeros((n, 2), jnp.uint32) if key is None else
            jax.random.split(key, n))
    actions, self._state = self._act(deterministic)(
        self.params, batch, keys, np.full(n, begin), state)
    actions = np.asarray(actions)
    return actions[0] if single else actions

  def _check_can_sample(self) -> None:
    why = build_lib.protocol_refusal(self.built.config,
                                     self.environment_spec, 'sampled')
    if why:
      raise UsageError(
          f'deterministic=False: {why.split(" (use ")[0]}. The greedy '
          f'actions (deterministic=True) work for every agent; '
          f'api.evaluate(..., protocol=\'epsilon_greedy\') plays a value '
          f'agent with exploration.')

  def core_episodes(self, config, episodes: int,
                    protocol: evaluation.Protocol):
    """Jitted `(params, env_key) -> (returns, lengths)` of `episodes`
    episodes of `config`'s JAX core (compiled once per environment,
    count and protocol)."""
    cache_key = ('episodes', config.env,
                 repr(sorted(config.env_kwargs.items())), episodes, protocol)
    if cache_key not in self._compiled:
      core = two_player.evaluation_core(
          config.environment.core(**config.env_kwargs))
      agent, spec = self.built.agent, self.environment_spec
      self._compiled[cache_key] = jax.jit(
          lambda params, key: evaluation.core_episodes(
              core, agent, spec, params, key, episodes, protocol))
    return self._compiled[cache_key]

  def _act(self, deterministic: bool):
    if deterministic not in self._compiled:
      protocol = evaluation.GREEDY if deterministic else _SAMPLED
      agent, spec = self.built.agent, self.environment_spec
      self._compiled[deterministic] = jax.jit(
          lambda params, observations, keys, first, state:
          evaluation.protocol_step(agent, spec, protocol, params,
                                   observations, keys, first, state))
    return self._compiled[deterministic]


@dataclasses.dataclass(frozen=True)
class Episodes:
  """Episodes a policy played.

  Attributes:
    env: the environment's name.
    protocol: how the policy acted ('greedy', 'sampled', 'ε-greedy (ε …)').
    returns: float `[episodes]`, each episode's return.
    lengths: int `[episodes]`, each episode's steps.
  """
  env: str
  protocol: str
  returns: np.ndarray
  lengths: np.ndarray

  @property
  def mean_return(self) -> float:
    return float(np.mean(self.returns))

  @property
  def mean_length(self) -> float:
    return float(np.mean(self.lengths))

  def __repr__(self) -> str:
    return (f'Episodes({len(self.returns)} on {self.env}, {self.protocol}: '
            f'mean return {self.mean_return:.4g}, mean length '
            f'{self.mean_length:.4g})')


def play(policy: Policy, episodes: int, env: Optional[str] = None,
         env_config: Optional[Mapping[str, Any]] = None,
         protocol: str = 'greedy', epsilon: float = 0.0,
         seed: int = 0,
         search_settings: Optional[Mapping[str, Any]] = None) -> Episodes:
  """`policy`'s `episodes` episodes of `env` (default: the run's own, with
  its settings; `env_config` overrides them), acted by `protocol`
  (`evaluation.PROTOCOLS`) and seeded by `seed` (episode j of seed s is
  the one a `DmEnvironment` seeded s plays j-th). `search_settings`: for
  the `search` protocol (an agent that searches: its search, without
  exploration), settings of the search that differ from the run's
  (`with_search`, e.g. `{'num_simulations': 128}`). On a game with a JAX
  core every episode plays at once under jit; otherwise one after another
  through its `dm_env`.

  Raises:
    UsageError: a bad count, protocol or epsilon, an unknown environment
      or setting, an environment the policy cannot play (other
      observations or actions), or a protocol the agent cannot act by.
  """
  if isinstance(episodes, bool) or not isinstance(episodes, int) or (
      episodes < 1):
    raise UsageError(f'episodes must be a positive integer; got '
                     f'{episodes!r}.')
  if protocol not in evaluation.PROTOCOLS:
    raise UsageError(f'protocol must be one of '
                     f'{", ".join(evaluation.PROTOCOLS)}; got {protocol!r}.')
  if not 0.0 <= epsilon <= 1.0:
    raise UsageError(f'epsilon must be between 0 and 1; got {epsilon!r}.')
  protocol_ = evaluation.Protocol(protocol, epsilon)
  if search_settings:
    if protocol != 'search':
      raise UsageError(f'search_settings={dict(search_settings)!r} set how '
                       f'the search plays: use them with '
                       f'protocol=\'search\'.')
    policy = with_search(policy, search_settings)
  config = policy.built.config
  try:
    if env is not None:
      env_registry.check_name(env)
    if env_config:
      env_settings.check_values(env or config.env, dict(env_config))
    if env is not None or env_config:
      kwargs = dict(config.env_kwargs if env in (None, config.env) else {})
      config = dataclasses.replace(
          config, env=env or config.env,
          env_kwargs={**kwargs, **(env_config or {})})
    spec = build_lib.environment_spec(config)
  except UsageError:
    raise
  except ValueError as e:  # The registries' and the config's refusals.
    raise UsageError(f'env={env!r}, env_config={env_config!r}: {e}') from e
  if not _same_spec(spec, policy.environment_spec):
    raise UsageError(
        f'env={config.env!r} shows observations {_shown(spec)}, but '
        f'{policy.built.config.env!r}, the game this policy was trained '
        f'on, shows {_shown(policy.environment_spec)}.')
  why = build_lib.protocol_refusal(config, spec, protocol)
  if why:
    raise UsageError(f'protocol={protocol!r}: {why}. greedy works for '
                     f'every agent.')
  if protocol == 'search' and config is not policy.built.config:
    # The search steps the game played, not the one trained on.
    policy = Policy(build_lib.build(config), policy.params)
  if config.environment.has_core:
    returns, lengths = policy.core_episodes(config, episodes, protocol_)(
        policy.params, jax.random.PRNGKey(seed))
  else:
    environment = config.environment.environment(seed, **config.env_kwargs)
    try:
      returns, lengths = evaluation.play_episodes(
          environment, policy.built.agent, policy.params, episodes,
          evaluation.make_batched_policy(policy.built.agent, spec,
                                         protocol_), stream=seed)
    finally:
      environment.close()
  shown = evaluation.describe(protocol_)
  if search_settings:
    shown += ' (' + ', '.join(f'{key} {value}' for key, value in
                              sorted(search_settings.items())) + ')'
  return Episodes(config.env, shown,
                  np.asarray(returns, np.float32),
                  np.asarray(lengths, np.int32))


# What play by search may change of a run's search; its exploration
# (root noise, random moves) it plays without.
SEARCH_SETTINGS = ('num_simulations', 'search', 'max_num_considered_actions',
                   'value_scale', 'rescale_values', 'sampled_states')


def with_search(policy: Policy, settings: Mapping[str, Any]) -> Policy:
  """`policy` searching with `settings` (`SEARCH_SETTINGS` its agent has)
  in place of the run's: the same parameters, another search.

  Raises:
    UsageError: an agent that does not search, a key that is not one of
      those settings (the valid ones listed), or a bad value.
  """
  agent_config = policy.built.config.agent_config
  if not isinstance(agent_config, search_lib.SearchSettings):
    raise UsageError(f'search_settings: {policy.built.config.agent} does '
                     f'not search.')
  names = {f.name for f in dataclasses.fields(agent_config)}
  valid = [name for name in SEARCH_SETTINGS if name in names]
  unknown = sorted(set(settings) - set(valid))
  if unknown:
    raise UsageError(
        f'search_settings: {", ".join(map(repr, unknown))} not a setting '
        f'of {policy.built.config.agent}\'s search as it plays (without '
        f'exploration); valid: {", ".join(valid)}.')
  try:
    config = dataclasses.replace(
        policy.built.config,
        agent_config=dataclasses.replace(agent_config, **settings))
    built = build_lib.build(config)
  except ValueError as e:
    raise UsageError(f'search_settings: {e}') from e
  return Policy(built, policy.params)


def _shown(spec: specs.EnvironmentSpec) -> str:
  """Observations and actions of `spec`, for a message."""
  actions = spec.actions
  taken = (f'{actions.num_values} actions' if hasattr(actions, 'num_values')
           else f'actions of shape {tuple(actions.shape)}')
  return (f'of shape {tuple(spec.observations.shape)} '
          f'({np.dtype(spec.observations.dtype).name}) and takes {taken}')


def _same_spec(a: specs.EnvironmentSpec, b: specs.EnvironmentSpec) -> bool:
  """Same observation and action shapes, dtypes and action count."""
  def key(array_spec):
    return (tuple(array_spec.shape), np.dtype(array_spec.dtype),
            getattr(array_spec, 'num_values', None))
  return (key(a.observations) == key(b.observations) and
          key(a.actions) == key(b.actions))
