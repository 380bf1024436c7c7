"""pgx's AlphaZero example (`examples/alphazero/train.py`), timed on our
network; run by `benchmarks/peer_programs.py pgx_alphazero` in the peers'
own environment (`.venv-peers`), never the project's: it imports pgx's
example, never this project (`peer_programs` loads it by its path).
"""

import contextlib
import io
import os
import resource
import sys
import time

# Iterations before the timed ones, which compile (`pgx_alphazero`).
WARMUP_ITERATIONS = 2


def mlp_actor_critic_forward(num_actions: int, hidden_sizes):
  """pgx `train.py`'s `forward_fn(x, is_eval=False) -> (logits, value)`,
  computing our `mlp_actor_critic` instead of its AZNet (a BatchNorm
  ResNet): each observation flattened as float32, `hidden_sizes` tanh
  layers (`hk.nets.MLP`, activated last too), a linear policy head and a
  linear value head, Haiku's default initialisers, under our module
  names (`networks/actor_critic.py`, `networks/mlp.py`: `MLPTorso`), so
  the same key gives the same parameters. It keeps no state (no
  BatchNorm), so `is_eval` changes nothing; `hk.transform_with_state`
  of it gives `train.py`'s `(params, state)` with an empty state."""
  import haiku as hk  # pylint: disable=g-import-not-at-top
  import jax  # pylint: disable=g-import-not-at-top
  hidden_sizes = tuple(hidden_sizes)

  class MLPTorso(hk.Module):

    def __call__(self, x):
      x = hk.Flatten(preserve_dims=1)(x.astype('float32'))
      return hk.nets.MLP(hidden_sizes, activation=jax.nn.tanh,
                         activate_final=True)(x)

  def forward_fn(x, is_eval=False):
    del is_eval  # Nothing differs between training and evaluation.
    features = MLPTorso(name='mlp_torso')(x)
    logits = hk.Linear(num_actions, name='policy')(features)
    value = hk.Linear(1, name='value')(features)[..., 0]
    return logits, value

  return forward_fn


def _no_baseline(model_id, download_dir='baselines'):
  """Stands in for `pgx.make_baseline_model`, which `train.py` calls at
  import for its `evaluate` (against pgx's baseline player): pgx ships
  none for connect_four (it fails an assert) and the others download
  weights. `evaluate` is not run here."""
  del download_dir

  def baseline(observations):
    raise RuntimeError(f'No baseline model {model_id!r} here: pgx_alphazero '
                       f'times training, not train.py\'s evaluate.')

  return baseline


def pgx_alphazero(source: str, settings: dict, seed: int, iterations: int,
                  hidden_sizes) -> dict:
  """pgx's `examples/alphazero/train.py` (imported with `settings`, its
  config keys, and `seed` as its command-line overrides) with its global
  `forward` replaced by our MLP actor-critic of `hidden_sizes`
  (`mlp_actor_critic_forward`): two iterations to compile, then
  `iterations` timed, each the body of its `__main__` loop less its
  evaluation, checkpoints and logging: `selfplay` (its batch of games,
  new every iteration, `max_num_steps` moves), `compute_loss_input`
  (value targets) fetched to the host, a shuffle, and one `train` step
  per minibatch of `training_batch_size` (each loss fetched, as it
  logs them). Its model is replicated over the devices by stacking
  copies (`jax.device_put_replicated`, which it calls, is gone from
  today's JAX).

  Two iterations warm up, not one: under today's JAX its pmapped
  functions compile again for the model `train` returns (placed over its
  named axis), so `selfplay` and `train` compile in the second iteration
  too, as they do in its own loop. `compilations_while_timed` counts
  the XLA compilations in the timed iterations (0 when all went ahead).

  Positions are environment steps: every move of either player, in every
  game. `steps_per_second` is the whole iteration's (self-play and
  training, our steps/s's counterpart); self-play's positions and
  training's over their own seconds beside it.
  """
  import jax  # pylint: disable=g-import-not-at-top
  import jax.numpy as jnp  # pylint: disable=g-import-not-at-top
  import haiku as hk  # pylint: disable=g-import-not-at-top
  import pgx  # pylint: disable=g-import-not-at-top
  sys.path.insert(0, os.path.join(source, 'examples', 'alphazero'))
  pgx.make_baseline_model = _no_baseline
  overrides = dict(settings, seed=seed)
  sys.argv = ['train.py'] + [f'{key}={value}'
                             for key, value in sorted(overrides.items())]
  with contextlib.redirect_stdout(io.StringIO()):  # It prints its config.
    import train  # pylint: disable=g-import-not-at-top
  config = train.config
  train.forward = hk.without_apply_rng(hk.transform_with_state(
      mlp_actor_critic_forward(train.env.num_actions, hidden_sizes)))
  # Its __main__'s set-up.
  dummy_state = jax.vmap(train.env.init)(
      jax.random.split(jax.random.PRNGKey(0), 2))
  model = train.forward.init(jax.random.PRNGKey(0), dummy_state.observation)
  opt_state = train.optimizer.init(params=model[0])
  model, opt_state = jax.tree.map(
      lambda x: jnp.stack([x] * train.num_devices), (model, opt_state))
  rng_key = jax.random.PRNGKey(config.seed)

  def iteration(model, opt_state, rng_key):
    """One iteration of its loop: the new `(model, opt_state, rng_key)`,
    the seconds of self-play, of the targets (to the host) and of the
    shuffle and updates, positions played and positions trained on."""
    start = time.perf_counter()
    rng_key, subkey = jax.random.split(rng_key)
    keys = jax.random.split(subkey, train.num_devices)
    data = jax.block_until_ready(train.selfplay(model, keys))
    played = time.perf_counter()
    samples = train.compute_loss_input(data)
    samples = jax.device_get(samples)
    targets = time.perf_counter()
    positions = (samples.obs.shape[0] * samples.obs.shape[1] *
                 samples.obs.shape[2])
    samples = jax.tree_util.tree_map(
        lambda x: x.reshape((-1, *x.shape[3:])), samples)
    rng_key, subkey = jax.random.split(rng_key)
    ixs = jax.random.permutation(subkey, jnp.arange(samples.obs.shape[0]))
    samples = jax.tree_util.tree_map(lambda x: x[ixs], samples)
    num_updates = samples.obs.shape[0] // config.training_batch_size
    minibatches = jax.tree_util.tree_map(
        lambda x: x.reshape((num_updates, train.num_devices, -1) +
                            x.shape[1:]), samples)
    losses = []
    for i in range(num_updates):
      minibatch = jax.tree_util.tree_map(lambda x: x[i], minibatches)
      model, opt_state, policy_loss, value_loss = train.train(
          model, opt_state, minibatch)
      losses.append((policy_loss.mean().item(), value_loss.mean().item()))
    jax.block_until_ready((model, opt_state))
    done = time.perf_counter()
    return (model, opt_state, rng_key,
            (played - start, targets - played, done - targets),
            positions, num_updates * config.training_batch_size, losses)

  start = time.perf_counter()
  for _ in range(WARMUP_ITERATIONS):
    model, opt_state, rng_key, *_ = iteration(model, opt_state, rng_key)
  warmup_seconds = time.perf_counter() - start
  compilations = []
  jax.monitoring.register_event_duration_secs_listener(
      lambda event, duration, **kwargs: compilations.append(event) if (
          event == '/jax/core/compile/backend_compile_duration') else None)
  seconds = [0.0, 0.0, 0.0]
  steps = trained = 0
  losses = []
  for _ in range(iterations):
    model, opt_state, rng_key, parts, played, used, losses = iteration(
        model, opt_state, rng_key)
    seconds = [total + part for total, part in zip(seconds, parts)]
    steps += played
    trained += used
  selfplay_seconds, targets_seconds, update_seconds = seconds
  train_seconds = sum(seconds)
  return {'env_steps': steps, 'iterations': iterations,
          'positions_trained': trained,
          # The warm-up iterations, compiling everything, less as many
          # timed ones.
          'compile_seconds': warmup_seconds - (
              WARMUP_ITERATIONS * train_seconds / iterations),
          'warmup_seconds': warmup_seconds,
          'warmup_iterations': WARMUP_ITERATIONS,
          'compilations_while_timed': len(compilations),
          'train_seconds': train_seconds,
          'selfplay_seconds': selfplay_seconds,
          'targets_seconds': targets_seconds,
          'update_seconds': update_seconds,
          'steps_per_second': steps / train_seconds,
          'selfplay_positions_per_second': steps / selfplay_seconds,
          'training_positions_per_second': trained / (
              targets_seconds + update_seconds),
          'last_policy_loss': sum(p for p, _ in losses) / max(len(losses), 1),
          'last_value_loss': sum(v for _, v in losses) / max(len(losses), 1),
          'devices': train.num_devices,
          'peak_memory_mib': resource.getrusage(
              resource.RUSAGE_SELF).ru_maxrss / 1024}
