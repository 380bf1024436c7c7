"""gymnax environments as pure-JAX functional cores (`--env=gymnax:<id>`).

gymnax games are JAX already, so each one becomes a
`functional.FunctionalEnvironment` and runs in both loops: the compiled loop
vmaps it under `lax.scan`, and `DmEnvironment` gives it a dm_env face for
the Python loop.

How a gymnax game maps onto the core:
  * The core's state carries gymnax's state and a PRNG key, because gymnax's
    `step_env` takes a key: each step of a game whose step draws from it
    (Acrobot's torque noise, Asterix's spawns) splits it, so a trajectory
    depends only on the reset key and the actions; a game whose step never
    reads it (CartPole, Pendulum, Breakout…) keeps it as it is, which saves
    a split per step and changes nothing the game does.
  * `step_env` (never gymnax's auto-resetting `step`) gives `terminated`,
    which excludes the time limit; `is_truncated` on the new state gives the
    time limit. Termination ends the episode with discount 0, truncation with
    discount 1 (`functional.transition`; termination wins when both hold).
  * Observations are float32 with the observation space's shape (MinAtar
    games stay 10x10xC images for the conv networks); a `Discrete(n)`
    observation (FrozenLake) becomes a one-hot vector of length n, as in
    `gym_adapter`. Box specs are unbounded `Array`s: some games leave the
    bounds their spaces declare.
  * A `Discrete(n)` action space becomes `DiscreteArray(n)` (int32 actions).
    A `Box` action space (continuous control: Pendulum-v1,
    MountainCarContinuous-v0, Reacher-misc, ...) becomes a float32
    `BoundedArray` of shape `[action_dim]` with the Box's bounds; `step`
    clips each action to them before gymnax sees it
    (`continuous_actions.clip_to_spec`), so agents may act outside them.
  * `max_episode_steps` is `params.max_steps_in_episode`, and the core counts
    steps itself too, so episodes never outlast it.
  * `env_kwargs` override gymnax's env params (e.g. `max_steps_in_episode`).

Suites written to gymnax's interface (Craftax) share the core
(`GymnaxCore`), each saying how its games end.

gymnax is imported on first use, so the framework works without it (then
every gymnax id raises, saying how to install it).
"""

import dataclasses
import functools
import inspect
import math
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple
from typing import Union

import dm_env
from dm_env import specs
import jax
import jax.numpy as jnp
import numpy as np

from environments import continuous_actions
from environments import functional
from environments import name_hints
from environments import reference_scores

INSTALL_HINT = "pip install -e '.[suites]'"
_FLOAT = np.float32

# Measured: uniformly random actions on this core, 10,000 episodes (one
# jitted, vmapped while_loop; episode keys split from PRNGKey(0)): mean return
# 22.12, standard error 0.12. The cap is CartPole-v1's 500 steps.
CARTPOLE_REFERENCE = reference_scores.ReferenceScore(
    metric='mean_return', label='return', low=22.1, high=500.0,
    source='uniformly random actions (22.1, mean of 10,000 episodes of the '
    'gymnax core, jit + vmap), the 500-step cap (500)', random_play=22.1,
    low_name='random actions', high_name='the 500-step cap')

# Measured: actions uniform in [-2, 2] on this core, 100,000 episodes of 200
# steps (one jitted, vmapped scan; episode keys split from PRNGKey(0)): mean
# return -1229.5, standard deviation 288 (standard error 0.9). Every reward
# is <= 0, so 0 bounds every return from above.
PENDULUM_REFERENCE = reference_scores.ReferenceScore(
    metric='mean_return', label='return', low=-1229.5, high=0.0,
    source='actions uniform in the bounds (-1229.5, mean of 100,000 '
    'episodes of the gymnax core, jit + vmap), the largest return possible '
    '(0: every reward is <= 0)', random_play=-1229.5,
    low_name='random actions', high_name='the largest return possible')

# Reference scores of the ids that have a measured one (others: None).
REFERENCE_SCORES = {'CartPole-v1': CARTPOLE_REFERENCE,
                    'Pendulum-v1': PENDULUM_REFERENCE}


def _gymnax() -> Any:
  """The gymnax module, imported on first use (ValueError if missing)."""
  try:
    import gymnax  # pylint: disable=g-import-not-at-top
  except ImportError as e:
    raise ValueError(f'gymnax is not installed: {INSTALL_HINT} '
                     f'({e}).') from e
  return gymnax


# id -> (env, default params), or the exception building it raised. gymnax
# environments hold static configuration only, so one instance serves all.
_BUILT: Dict[str, Union[Tuple[Any, Any], Exception]] = {}


def _build(env_id: str) -> Tuple[Any, Any]:
  """`gymnax.make(env_id)`, cached; raises what it raised, cached too."""
  if env_id not in _BUILT:
    gymnax = _gymnax()
    try:
      _BUILT[env_id] = gymnax.make(env_id)
    except Exception as e:  # pylint: disable=broad-except
      # E.g. MNISTBandit-bsuite downloads MNIST when built.
      _BUILT[env_id] = e
  built = _BUILT[env_id]
  if isinstance(built, Exception):
    raise ValueError(f'gymnax could not build {env_id!r}: {built}') from built
  return built


# By name: suites written to gymnax's interface (Craftax) define spaces
# of their own, of the same names and fields.
def _is_discrete(space: Any) -> bool:
  return type(space).__name__ == 'Discrete'


def _is_box(space: Any) -> bool:
  return type(space).__name__ == 'Box'



# Games whose constructor downloads a data set (MNIST): never built just to
# list ids in an error message (a typo must not start a download); they
# still work when named.
_LOADS_DATA = ('MNISTBandit-bsuite',)


def buildable_ids() -> List[str]:
  """Registered ids that build here without downloading data, discrete- and
  continuous-action games alike."""
  ids = []
  for env_id in _gymnax().registered_envs:
    if env_id in _LOADS_DATA:
      continue
    try:
      _build(env_id)
    except ValueError:
      continue
    ids.append(env_id)
  return ids


def check_id(env_id: str) -> None:
  """Raises ValueError unless `env_id` is a gymnax game that builds here.

  Unknown ids name close matches and the buildable ids; so do ids whose
  action space is neither `Discrete` nor `Box`.
  """
  registered = _gymnax().registered_envs
  if env_id not in registered:
    valid = buildable_ids()
    raise ValueError(f'Unknown gymnax environment {env_id!r}.'
                     f'{name_hints.did_you_mean(env_id, valid)} '
                     f'Valid gymnax ids: {", ".join(valid)}.')
  env, params = _build(env_id)
  space = env.action_space(params)
  if not (_is_discrete(space) or _is_box(space)):
    raise ValueError(
        f'gymnax environment {env_id!r} has the action space {space!r}; '
        f'only Discrete and Box ones are supported. Valid gymnax ids: '
        f'{", ".join(buildable_ids())}.')


def _shape(space: Any) -> Tuple[int, ...]:
  """A gymnax space's shape as a tuple (some spaces give an int)."""
  shape = space.shape
  return (int(shape),) if np.ndim(shape) == 0 else tuple(
      int(d) for d in shape)


def _continuous_action_spec(space: Any) -> specs.BoundedArray:
  """float32 `BoundedArray` of a gymnax `Box`: its shape (a scalar Box
  becomes `[1]`) and its bounds broadcast to it."""
  shape = _shape(space) or (1,)
  low = np.broadcast_to(np.asarray(space.low, _FLOAT), shape).copy()
  high = np.broadcast_to(np.asarray(space.high, _FLOAT), shape).copy()
  return specs.BoundedArray(shape, _FLOAT, low, high, name='action')


def with_overrides(name: str, params: Any, env_kwargs: Dict[str, Any],
                   limit_field: str) -> Any:
  """`params` (env params of game `name`, e.g. 'gymnax:CartPole-v1') with
  `env_kwargs` replacing fields; unknown keys, and a time limit
  (`limit_field`) under 1, raise."""
  fields = [f.name for f in dataclasses.fields(params)]
  unknown = sorted(set(env_kwargs) - set(fields))
  if unknown:
    raise ValueError(f'Unknown setting(s) {unknown} for {name}. '
                     f'Valid ones (its env params): {", ".join(fields)}.')
  # An int for a float field becomes a float: some games select between
  # params and floats (BernoulliBandit's max_steps_in_episode is 100.0).
  env_kwargs = {
      k: float(v) if isinstance(getattr(params, k), float) and isinstance(
          v, (int, np.integer)) and not isinstance(v, bool) else v
      for k, v in env_kwargs.items()}
  params = params.replace(**env_kwargs)
  limit = getattr(params, limit_field)
  if isinstance(limit, bool) or not isinstance(
      limit, (int, float, np.integer, np.floating)) or not limit >= 1:
    raise ValueError(f'{limit_field} must be a number >= 1; got '
                     f'{limit!r}.')
  return params


def params_settings(params: Any) -> Dict[str, inspect.Parameter]:
  """Env params as settings (`--env_config` keys), each with its default."""
  return {f.name: inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY,
                                    default=getattr(params, f.name))
          for f in dataclasses.fields(params)}


class GymnaxState(NamedTuple):
  """gymnax's state, the key of the next step, and the steps taken."""
  env_state: Any
  key: jax.Array
  steps: jax.Array  # int32 [].


# What ended an episode, from the state a step reached, step_env's `done`
# and its info: `(terminated, truncated)` (bool scalars). The core also
# truncates at its own `max_steps`.
EpisodeEnd = Callable[[Any, jax.Array, Any], Tuple[jax.Array, jax.Array]]


class GymnaxCore:
  """A game with gymnax's interface (`reset_env`, `step_env`, env params)
  as a `functional.FunctionalEnvironment`: gymnax's own games (`make_core`)
  and the suites written to its interface (`craftax_adapter`).

  Args:
    env: the game.
    params: its env params.
    env_id: the game's id in its suite.
    max_steps: the time limit (truncation, discount 1).
    episode_end: splits `done` into termination and truncation; None:
      gymnax's own split (`done` is termination, `env.is_truncated` the
      time limit).
  """

  def __init__(self, env: Any, params: Any, env_id: str, max_steps: int,
               episode_end: Optional[EpisodeEnd] = None):
    self.env_id = env_id
    self.env = env
    self.params = params
    self._max_steps = int(max_steps)
    self._episode_end = episode_end or self._gymnax_episode_end
    action_space = self.env.action_space(self.params)
    if _is_discrete(action_space):
      self._action_spec = specs.DiscreteArray(
          int(action_space.n), dtype=np.int32, name='action')
      self._gymnax_action_shape = None
    else:
      self._action_spec = _continuous_action_spec(action_space)
      # What gymnax's step_env was written for (e.g. Pendulum's (1,)).
      self._gymnax_action_shape = _shape(action_space)
    space = self.env.observation_space(self.params)
    if _is_discrete(space):
      self._one_hot = int(space.n)
      self._observation_spec = specs.BoundedArray(
          (self._one_hot,), _FLOAT, 0.0, 1.0, name='observation')
    else:
      # Unbounded: several games leave their declared Box bounds
      # (MemoryChain, UmbrellaChain, MetaMaze, GaussianBandit).
      self._one_hot = None
      shape = tuple(int(d) for d in np.atleast_1d(space.shape))
      self._observation_spec = specs.Array(shape, _FLOAT, name='observation')

  def _gymnax_episode_end(self, env_state: Any, done: jax.Array,
                          info: Any) -> Tuple[jax.Array, jax.Array]:
    del info
    return done, self.env.is_truncated(env_state, self.params)

  @property
  def max_episode_steps(self) -> int:
    """The time limit (gymnax: `max_steps_in_episode`)."""
    return self._max_steps

  def _observation(self, observation: Any) -> jax.Array:
    if self._one_hot is not None:
      return jax.nn.one_hot(observation, self._one_hot, dtype=jnp.float32)
    return jnp.asarray(observation, jnp.float32).reshape(
        self._observation_spec.shape)

  @property
  def hidden_state(self) -> bool:
    """A game whose step draws from the key its state carries (MinAtar's
    spawns and sticky actions) holds the draws to come: agents that search
    by stepping it would know them."""
    return self.step_draws

  @functools.cached_property
  def step_draws(self) -> bool:
    """Whether the game's `step_env` reads its key: found once, from the
    program it traces to on abstract values."""
    key = jax.ShapeDtypeStruct((2,), jnp.uint32)
    _, state = jax.eval_shape(
        lambda k: self.env.reset_env(k, self.params), key)
    action = jax.eval_shape(lambda: self._gymnax_action(jnp.zeros(
        self._action_spec.shape, self._action_spec.dtype)))
    jaxpr = jax.make_jaxpr(lambda k, s, a: self.env.step_env(
        k, s, a, self.params))(key, state, action).jaxpr
    key_var = jaxpr.invars[0]
    return key_var in jaxpr.outvars or any(
        key_var in equation.invars for equation in jaxpr.eqns)

  def reset(self, key: jax.Array) -> Tuple[GymnaxState, dm_env.TimeStep]:
    reset_key, key = jax.random.split(key)
    observation, env_state = self.env.reset_env(reset_key, self.params)
    state = GymnaxState(env_state, key, jnp.zeros((), jnp.int32))
    return state, functional.restart(self._observation(observation))

  def step(self, state: GymnaxState,
           action: jax.Array) -> Tuple[GymnaxState, dm_env.TimeStep]:
    """One `step_env`, with the next key of the state's sequence where the
    game's step draws from it (`step_draws`).

    Pure and traceable, so it cannot raise: a discrete `action` must be in
    [0, num_actions); a continuous one (float, the action spec's shape) is
    clipped to the spec's bounds. The dm_env face validates actions from
    users.
    """
    if self.step_draws:
      key, step_key = jax.random.split(state.key)
    else:  # Nothing reads the key: it stays as it is.
      key = step_key = state.key
    observation, env_state, reward, done, info = self.env.step_env(
        step_key, state.env_state, self._gymnax_action(action), self.params)
    steps = state.steps + 1
    terminated, truncated = self._episode_end(env_state, done, info)
    terminated = jnp.asarray(terminated, bool)
    truncated = jnp.logical_or(jnp.asarray(truncated, bool),
                               steps >= self._max_steps)
    state = GymnaxState(env_state, key, steps)
    return state, functional.transition(reward, self._observation(observation),
                                        terminated, truncated)

  def _gymnax_action(self, action: jax.Array) -> jax.Array:
    """`action` as gymnax's step_env takes it: int32, or float32 clipped
    to the bounds in the Box's shape."""
    if self._gymnax_action_shape is None:
      return jnp.asarray(action, jnp.int32)
    action = jnp.asarray(action, jnp.float32).reshape(self._action_spec.shape)
    action = continuous_actions.clip_to_spec(action, self._action_spec)
    return action.reshape(self._gymnax_action_shape)

  def observation_spec(self) -> specs.Array:
    return self._observation_spec

  def action_spec(self) -> Union[specs.DiscreteArray, specs.BoundedArray]:
    """`DiscreteArray` for discrete games, float32 `BoundedArray` of shape
    `[action_dim]` with the Box's bounds for continuous ones."""
    return self._action_spec

  def reward_spec(self) -> specs.Array:
    return specs.Array((), _FLOAT, name='reward')

  def discount_spec(self) -> specs.BoundedArray:
    return specs.BoundedArray((), _FLOAT, 0.0, 1.0, name='discount')


def make_core(env_id: str, **env_kwargs: Any) -> GymnaxCore:
  """gymnax game `env_id` as a functional core; `env_kwargs` set params."""
  check_id(env_id)
  env, default_params = _build(env_id)
  params = with_overrides(f'gymnax:{env_id}', default_params, env_kwargs,
                          'max_steps_in_episode')
  return GymnaxCore(env, params, env_id,
                    int(math.ceil(params.max_steps_in_episode)))
