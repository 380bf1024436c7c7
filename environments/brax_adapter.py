"""Brax's continuous-control tasks as pure-JAX functional cores
(`--env=brax:<name>`, e.g. `brax:inverted_pendulum`, `brax:hopper`).

Brax tasks are JAX already, so each becomes a
`functional.FunctionalEnvironment` and runs in both loops: the compiled
loop vmaps it under `lax.scan`, and `DmEnvironment` gives it a dm_env face
for the Python loop.

How a brax task maps onto the core:
  * The core's state is brax's `State` and a step counter. Brax's reset
    takes a key and its step none, so a trajectory depends only on the
    reset key and the actions.
  * Actions are float32 `[action_size]` within the range the task's `step`
    takes (`action_bounds`), clipped to it where they enter the task.
  * `done` ends the episode with discount 0; `episode_length` steps
    (default 1000, as brax's training wrappers) end it with discount 1.
    Brax's own `EpisodeWrapper`/`AutoResetWrapper` are not used: the loops
    here truncate and reset themselves.
  * Observations and rewards are float32; observations are flat vectors.

Settings: `episode_length`, `backend` (the physics pipeline:
'generalized', 'positional', 'spring' or 'mjx'; default the task's own),
`n_frames` (physics steps per step; default the task's own) and the task
class's keywords (e.g. hopper's `ctrl_cost_weight`).

brax is imported on first use, so the framework works without it (then
every brax id raises, saying how to install it).
"""

import contextlib
import inspect
import io
import sys
from typing import Any, Dict, List, NamedTuple, Optional, Tuple
import warnings

import dm_env
from dm_env import specs
import jax
import jax.numpy as jnp
import numpy as np

from environments import continuous_actions
from environments import functional
from environments import name_hints

INSTALL_HINT = "pip install -e '.[control]'"
DEFAULT_EPISODE_LENGTH = 1000
BACKENDS = ('generalized', 'positional', 'spring', 'mjx')
_FLOAT = np.float32

# Registered in brax but not a task: brax's stub for its own unit tests.
_NOT_TASKS = ('fast',)

# Tasks whose `step` maps actions from [-1, 1] onto the actuators'
# `ctrl_range` itself (brax 0.14.2; a test checks this against brax's
# source), so they take actions in [-1, 1] whatever that range is
# (inverted_pendulum's is [-3, 3]). The others hand actions to the physics,
# which clips them to `ctrl_range`, so they take that range.
_RESCALE_FROM_UNIT = frozenset(
    {'humanoid', 'humanoidstandup', 'inverted_pendulum', 'pusher'})

# Brax warns on building every task (in `mjcf.load`) that its pipelines are
# no longer actively maintained: a known fact, silenced where we build.
_UNMAINTAINED = 'Brax System, piplines and environments are not actively'


def _brax_envs() -> Any:
  """`brax.envs`, imported on first use (ValueError if brax is missing).

  MuJoCo's MJX prints 'Failed to import warp' on import where the optional
  GPU package warp is absent; those lines are dropped, others kept.
  """
  first_import = 'brax.envs' not in sys.modules
  printed = io.StringIO()
  try:
    with contextlib.redirect_stdout(printed) if first_import else (
        contextlib.nullcontext()):
      import brax.envs  # pylint: disable=g-import-not-at-top
  except ImportError as e:
    raise ValueError(f'brax is not installed: {INSTALL_HINT} ({e}).') from e
  finally:
    kept = [line for line in printed.getvalue().splitlines()
            if not line.startswith(('Failed to import warp',
                                    'Failed to import mujoco_warp'))]
    if kept:
      print('\n'.join(kept))
  return brax.envs


def _task_classes() -> Dict[str, type]:
  """Brax's registered tasks by name (its registry has no public listing
  in 0.14.2: `brax.envs._envs`)."""
  registered = getattr(_brax_envs(), '_envs')
  return {name: cls for name, cls in registered.items()
          if name not in _NOT_TASKS}


def names() -> List[str]:
  """The valid brax task names, sorted."""
  return sorted(_task_classes())


def check_id(name: str) -> None:
  """Raises ValueError unless `name` is a brax task, naming close matches
  and the valid names (or how to install brax)."""
  valid = names()
  if name in valid:
    return
  raise ValueError(f'Unknown brax environment {name!r}.'
                   f'{name_hints.did_you_mean(name, valid)} Brax tasks: '
                   f'{", ".join(valid)}.')


def default_backend(name: str) -> str:
  """The physics backend task `name` uses unless told otherwise."""
  backend = inspect.signature(_task_classes()[name]).parameters.get('backend')
  # PipelineEnv's own default where a task class does not set one.
  return 'mjx' if backend is None or backend.default is backend.empty else (
      backend.default)


def _task_keywords(name: str) -> List[inspect.Parameter]:
  """The keyword parameters of task `name`'s class, less `backend`."""
  return [p for p in inspect.signature(_task_classes()[name]).parameters
          .values() if p.name != 'backend' and
          p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def settings(name: str) -> Dict[str, inspect.Parameter]:
  """The settings of task `name` (`make_core`'s keywords) with defaults."""
  check_id(name)
  keyword = inspect.Parameter.KEYWORD_ONLY
  ours = [
      inspect.Parameter('episode_length', keyword,
                        default=DEFAULT_EPISODE_LENGTH, annotation=int),
      inspect.Parameter('backend', keyword, default=default_backend(name),
                        annotation=str),
      inspect.Parameter('n_frames', keyword, default=None,
                        annotation=Optional[int]),
  ]
  return {p.name: p for p in ours + _task_keywords(name)}


def _trace(name: str, backend: str, env: Any) -> Any:
  """Shapes of brax's reset state (observation, reward and done float32),
  after tracing reset and step once, so that a task that does not run here
  raises now, not inside a loop."""
  try:
    state = jax.eval_shape(env.reset, jax.random.PRNGKey(0))
    jax.eval_shape(env.step, state, jnp.zeros(env.action_size, _FLOAT))
  except Exception as e:  # pylint: disable=broad-except
    # E.g. swimmer: brax 0.14.2 calls jnp.clip(a_min=...), gone in JAX 0.10.
    raise ValueError(
        f'brax:{name} (backend {backend!r}) does not run with JAX '
        f'{jax.__version__}: {type(e).__name__}: {e}. Try another backend or '
        f'task, or a brax release made for this JAX.') from e
  obs = state.obs
  if not isinstance(obs, jax.ShapeDtypeStruct) or len(obs.shape) != 1:
    raise ValueError(f'brax:{name} has observations {obs}; only flat '
                     f'vectors are supported.')
  scalar = jax.ShapeDtypeStruct((), _FLOAT)
  return state.replace(obs=jax.ShapeDtypeStruct(obs.shape, _FLOAT),
                       reward=scalar, done=scalar)


# (name, backend, sorted kwargs) -> (brax env, `_trace`'s shapes). Building
# an env loads its MJCF model (seconds); an env holds static configuration
# only, so one serves every core of the same settings.
_BUILT: Dict[Tuple[Any, ...], Tuple[Any, Any]] = {}


def _build(name: str, backend: str, env_kwargs: Dict[str, Any]
          ) -> Tuple[Any, Any]:
  """`brax.envs.get_environment(name, backend=..., **env_kwargs)` and its
  state's shapes, cached where the settings are hashable."""
  key = (name, backend, tuple(sorted(env_kwargs.items())))
  try:
    hash(key)
  except TypeError:
    key = None
  if key is None or key not in _BUILT:
    with warnings.catch_warnings():
      warnings.filterwarnings('ignore', message=_UNMAINTAINED,
                              category=UserWarning)
      env = _brax_envs().get_environment(name, backend=backend, **env_kwargs)
    built = (env, _trace(name, backend, env))
    if key is None:
      return built
    _BUILT[key] = built
  return _BUILT[key]


def action_bounds(name: str, env: Any) -> Tuple[np.ndarray, np.ndarray]:
  """`(low, high)`, float32 `[action_size]`: the actions task `name`'s
  `step` takes (see `_RESCALE_FROM_UNIT`)."""
  size = int(env.action_size)
  ctrl_range = getattr(getattr(getattr(env, 'sys', None), 'actuator', None),
                       'ctrl_range', None)
  if name in _RESCALE_FROM_UNIT or ctrl_range is None:
    # [-1, 1]: what a rescaling task takes, and brax's convention (its
    # training squashes actions into it) where no range can be read.
    return np.full(size, -1.0, _FLOAT), np.ones(size, _FLOAT)
  ctrl_range = np.asarray(ctrl_range, _FLOAT).reshape(size, 2)
  return ctrl_range[:, 0].copy(), ctrl_range[:, 1].copy()


class BraxState(NamedTuple):
  """Brax's state and the steps taken in this episode."""
  env_state: Any  # brax.envs.State.
  steps: jax.Array  # int32 [].


class BraxCore:
  """One brax task as a `functional.FunctionalEnvironment`."""

  def __init__(self, name: str,
               episode_length: int = DEFAULT_EPISODE_LENGTH,
               backend: Optional[str] = None,
               n_frames: Optional[int] = None,
               **env_kwargs: Any):
    """Builds brax task `name`.

    Args:
      name: a brax task (`names()`).
      episode_length: steps after which an episode is truncated.
      backend: brax's physics pipeline (`BACKENDS`); None: the task's.
      n_frames: physics steps per environment step; None: the task's.
      **env_kwargs: keywords of the task's class (`settings`).
    """
    check_id(name)
    unknown = sorted(set(env_kwargs) - {p.name for p in _task_keywords(name)})
    if unknown:
      raise ValueError(f'Unknown setting(s) {unknown} for brax:{name}. '
                       f'Valid ones: {", ".join(settings(name))}.')
    for setting, value in (('episode_length', episode_length),
                           ('n_frames', 1 if n_frames is None else n_frames)):
      if isinstance(value, bool) or not isinstance(
          value, (int, np.integer)) or value < 1:
        raise ValueError(f'{setting} must be an int >= 1; got {value!r}.')
    backend = default_backend(name) if backend is None else backend
    if backend not in BACKENDS:
      raise ValueError(f'Unknown brax backend {backend!r}; valid: '
                       f'{", ".join(BACKENDS)}.')
    if n_frames is not None:
      env_kwargs['n_frames'] = n_frames
    self.name = name
    self.backend = backend
    self.env, self._state_shapes = _build(name, backend, env_kwargs)
    self._episode_length = int(episode_length)
    obs_size = int(self._state_shapes.obs.shape[0])
    self._observation_spec = specs.Array((obs_size,), _FLOAT,
                                         name='observation')
    low, high = action_bounds(name, self.env)
    self._action_spec = specs.BoundedArray(low.shape, _FLOAT, low, high,
                                           name='action')

  @property
  def max_episode_steps(self) -> int:
    """`episode_length` (truncation)."""
    return self._episode_length

  def reset(self, key: jax.Array) -> Tuple[BraxState, dm_env.TimeStep]:
    env_state = self._like_reset(self.env.reset(key))
    state = BraxState(env_state, jnp.zeros((), jnp.int32))
    return state, functional.restart(env_state.obs)

  def step(self, state: BraxState,
           action: jax.Array) -> Tuple[BraxState, dm_env.TimeStep]:
    """One brax step with `action` clipped to the action spec.

    Pure and traceable; `action` is float `[action_size]` (any values).
    """
    action = continuous_actions.clip_to_spec(
        jnp.asarray(action, jnp.float32).reshape(self._action_spec.shape),
        self._action_spec)
    env_state = self._like_reset(self.env.step(state.env_state, action))
    steps = state.steps + 1
    state = BraxState(env_state, steps)
    return state, functional.transition(
        env_state.reward, env_state.obs, terminated=env_state.done > 0.5,
        truncated=steps >= self._episode_length)

  def _like_reset(self, env_state: Any) -> Any:
    """`env_state` with each leaf of the dtype reset gives it (float32
    observations and rewards), so that a scan's carry keeps one type
    (brax's step returns some as weakly typed Python floats)."""
    return jax.tree.map(lambda x, shape: jnp.asarray(x, shape.dtype),
                        env_state, self._state_shapes)

  def observation_spec(self) -> specs.Array:
    return self._observation_spec

  def action_spec(self) -> specs.BoundedArray:
    return self._action_spec

  def reward_spec(self) -> specs.Array:
    return specs.Array((), _FLOAT, name='reward')

  def discount_spec(self) -> specs.BoundedArray:
    return specs.BoundedArray((), _FLOAT, 0.0, 1.0, name='discount')


def make_core(name: str, **kwargs: Any) -> BraxCore:
  """Brax task `name` as a functional core; `kwargs`: its settings."""
  return BraxCore(name, **kwargs)
