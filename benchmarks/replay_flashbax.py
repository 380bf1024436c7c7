"""Our replay buffer (agents/replay.py) beside flashbax's flat buffers.

Whether to adopt flashbax, the field's JAX replay library, is a question of
speed and of what it stores; this measures the speed, JAX on CPU. flashbax
runs in its own environment, beside this checkout's code (its page:
docs/benchmarks/speed.md, "Replay: ours beside flashbax"):

  python -m venv /tmp/fbx_venv
  /tmp/fbx_venv/bin/pip install flashbax==0.1.3 \
      $(.venv/bin/pip freeze | grep -E '^(jax|jaxlib|chex|numpy|dm-haiku|optax|rlax|distrax|tfp-nightly|dm-env)==')
  PYTHONPATH=. /tmp/fbx_venv/bin/python benchmarks/replay_flashbax.py \
      --rounds=11 --out=/tmp/replay_flashbax.json

Each timed call is one jitted `lax.scan` of ITERS iterations; one iteration
  1. builds a [T=1, B] batch of transitions (obs float32 [4] or [10,10,4],
     int32 action, float32 reward/discount, next obs) from the iteration index
     (a cheap broadcast add, identical in every arm),
  2. inserts it into the buffer,
  3. samples `batch` transitions (uniform, or prioritised + priority update),
  4. sums every sampled field into the carry (so XLA keeps the gathers).
The buffer state is donated and carried from call to call (steady state, no
copy of the buffer per call). Arms alternate within a round (order flipped each
round); per-iteration time = call wall time / ITERS.

Arms:
  ours       agents.replay: init_replay / replay_insert (valid mask all True)
             / replay_sample; Transitions store obs AND next_obs.
  fbx_pair   flashbax.make_flat_buffer(add_sequences=True, add_batch_size=B):
             experience = (obs, action, reward, discount); next obs is the
             `second` element of the sampled pair (idiomatic flashbax use;
             observations stored once).
  fbx_full   same buffer, experience = our full Transitions (incl. next_obs);
             only `first` of the pair is consumed (XLA drops the unused
             `second` gather). Same semantics and memory as ours.
Prioritised: ours = prioritized_replay.sample + update_priorities (+ insert's
max-priority); flashbax = make_prioritised_flat_buffer sample + set_priorities
(device='cpu' -> set_batch_scan). Both with alpha=0.6, new priority |err|+1e-6.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

import flashbax as fbx
from agents import prioritized_replay as per_lib
from agents import replay as replay_lib

ITERS = 1000
ALPHA = 0.6
OBS_SHAPES = {'cartpole': (4,), 'minatar': (10, 10, 4)}


class Spec:  # Minimal stand-in for an environment spec (shape, dtype).
  def __init__(self, shape, dtype):
    self.shape, self.dtype = shape, dtype


def make_batch(t, B, obs_shape, base):
  """Transitions [B] for iteration t, cheap and identical for every arm."""
  tf = t.astype(jnp.float32)
  obs = base + tf
  return replay_lib.Transitions(
      observations=obs,
      actions=(jnp.arange(B, dtype=jnp.int32) + t) % 3,
      rewards=jnp.full((B,), 1.0, jnp.float32) * tf,
      discounts=jnp.ones((B,), jnp.float32),
      next_observations=obs + 1.0)


def fold(acc, tree):
  return acc + sum(jnp.sum(x.astype(jnp.float32)) for x in jax.tree.leaves(tree))


# ---------------------------------------------------------------- ours
def _ours(B, obs_shape, capacity, prioritized, read):
  """Our replay's `(init, run)`: each iteration inserts a batch, then
  `read(replay, key) -> (replay, what it read)`."""
  def init():
    return replay_lib.init_replay(capacity, Spec(obs_shape, jnp.float32),
                                  Spec((), jnp.int32), prioritized=prioritized)

  def run(state, key, base, t0):
    valid = jnp.ones((B,), bool)

    def body(carry, i):
      replay, acc = carry
      t = t0 + i
      replay = replay_lib.replay_insert(replay, make_batch(t, B, obs_shape, base), valid)
      replay, read_out = read(replay, jax.random.fold_in(key, t))
      return (replay, fold(acc, read_out)), None

    (state, acc), _ = jax.lax.scan(body, (state, jnp.float32(0)), jnp.arange(ITERS))
    return state, acc
  return init, run


def ours_uniform(B, obs_shape, capacity, batch):
  return _ours(B, obs_shape, capacity, False, lambda replay, key: (
      replay, replay_lib.replay_sample(replay, key, batch)))


def ours_prioritised(B, obs_shape, capacity, batch):
  def read(replay, key):
    sample, idx, probs = per_lib.sample(replay, key, batch, ALPHA)
    # Stand-in TD errors that depend on the sample.
    errors = jnp.sin(sample.rewards + sample.observations.reshape(batch, -1)[:, 0])
    return per_lib.update_priorities(replay, idx, errors), (sample, probs)
  return _ours(B, obs_shape, capacity, True, read)


# ---------------------------------------------------------------- flashbax
def _pair_exp(tr):
  return dict(observations=tr.observations, actions=tr.actions,
              rewards=tr.rewards, discounts=tr.discounts)


def fbx_uniform(B, obs_shape, capacity, batch, full):
  buf = fbx.make_flat_buffer(max_length=capacity, min_length=batch,
                             sample_batch_size=batch, add_sequences=True,
                             add_batch_size=B)
  return _fbx_arms(buf, B, obs_shape, batch, full, prioritised=False)


def fbx_prioritised(B, obs_shape, capacity, batch, full):
  buf = fbx.make_prioritised_flat_buffer(
      max_length=capacity, min_length=batch, sample_batch_size=batch,
      add_sequences=True, add_batch_size=B, priority_exponent=ALPHA,
      device='cpu')
  return _fbx_arms(buf, B, obs_shape, batch, full, prioritised=True)


def _fbx_arms(buf, B, obs_shape, batch, full, prioritised):
  to_exp = (lambda tr: tr) if full else _pair_exp

  def init():
    one = make_batch(jnp.int32(0), 1, obs_shape, jnp.zeros((1,) + obs_shape))
    return buf.init(jax.tree.map(lambda x: x[0], to_exp(one)))

  def run(state, key, base, t0):
    def body(carry, i):
      st, acc = carry
      t = t0 + i
      tr = make_batch(t, B, obs_shape, base)
      st = buf.add(st, jax.tree.map(lambda x: x[:, None], to_exp(tr)))  # [B, T=1]
      s = buf.sample(st, jax.random.fold_in(key, t))
      first, second = s.experience.first, s.experience.second
      if full:
        got = first  # already our Transitions
      else:
        got = replay_lib.Transitions(next_observations=second['observations'], **first)
      if prioritised:
        errors = jnp.sin(got.rewards + got.observations.reshape(batch, -1)[:, 0])
        st = buf.set_priorities(st, s.indices, jnp.abs(errors) + per_lib.PRIORITY_EPSILON)
        acc = fold(acc, (got, s.probabilities))
      else:
        acc = fold(acc, got)
      return (st, acc), None

    (state, acc), _ = jax.lax.scan(body, (state, jnp.float32(0)), jnp.arange(ITERS))
    return state, acc
  return init, run


# ---------------------------------------------------------------- harness
def nbytes(state):
  return int(sum(x.nbytes for x in jax.tree.leaves(state)))


def build(arm, kind, B, obs_shape, capacity, batch):
  if kind == 'uniform':
    if arm == 'ours':
      return ours_uniform(B, obs_shape, capacity, batch)
    return fbx_uniform(B, obs_shape, capacity, batch, full=(arm == 'fbx_full'))
  if arm == 'ours':
    return ours_prioritised(B, obs_shape, capacity, batch)
  return fbx_prioritised(B, obs_shape, capacity, batch, full=(arm == 'fbx_full'))


def bench_setting(kind, obs_name, B, capacity, batch, arms, rounds, log):
  obs_shape = OBS_SHAPES[obs_name]
  base = jnp.asarray(np.random.RandomState(0).randn(B, *obs_shape), jnp.float32)
  key = jax.random.PRNGKey(0)
  prepared = {}
  for arm in arms:
    init, run = build(arm, kind, B, obs_shape, capacity, batch)
    state = jax.jit(init)()
    jax.block_until_ready(state)
    mem = nbytes(state)
    fn = jax.jit(run, donate_argnums=0)
    t = time.perf_counter()
    lowered = fn.lower(state, key, base, jnp.int32(0))
    t_lower = time.perf_counter() - t
    t = time.perf_counter()
    compiled = lowered.compile()
    t_compile = time.perf_counter() - t
    # Warm-up call (first execution), not timed as steady state.
    t = time.perf_counter()
    state, acc = compiled(state, key, base, jnp.int32(0))
    jax.block_until_ready((state, acc))
    t_first = time.perf_counter() - t
    prepared[arm] = dict(compiled=compiled, state=state, t0=ITERS, mem=mem,
                         lower_s=t_lower, compile_s=t_compile, first_call_s=t_first,
                         rounds_us=[], acc=float(acc))
  for r in range(rounds):
    order = arms if r % 2 == 0 else arms[::-1]
    for arm in order:
      p = prepared[arm]
      t = time.perf_counter()
      p['state'], acc = p['compiled'](p['state'], key, base, jnp.int32(p['t0']))
      jax.block_until_ready((p['state'], acc))
      dt = time.perf_counter() - t
      p['t0'] += ITERS
      p['rounds_us'].append(dt / ITERS * 1e6)
      p['acc'] = float(acc)
  out = dict(kind=kind, obs=obs_name, obs_shape=list(obs_shape), B=B,
             capacity=capacity, batch=batch, iters_per_call=ITERS, arms={})
  for arm in arms:
    p = prepared.pop(arm)
    out['arms'][arm] = dict(
        median_us_per_iter=statistics.median(p['rounds_us']),
        min_us_per_iter=min(p['rounds_us']),
        rounds_us_per_iter=p['rounds_us'], lower_s=p['lower_s'],
        compile_s=p['compile_s'], first_call_s=p['first_call_s'],
        state_bytes=p['mem'], final_acc=p['acc'], inserts_done=p['t0'] * B)
    del p
  m = out['arms']
  line = (f"{kind:11s} {obs_name:8s} B={B:<3d} cap={capacity:<6d} batch={batch:<3d} | " +
          ' | '.join(f"{a}: {m[a]['median_us_per_iter']:7.1f}us "
                     f"(x{m[a]['median_us_per_iter']/m['ours']['median_us_per_iter']:.2f}) "
                     f"c={m[a]['lower_s']+m[a]['compile_s']:.2f}s "
                     f"mem={m[a]['state_bytes']/2**20:.1f}MiB" for a in arms))
  log(line)
  return out


def import_times(n=5):
  """Fresh-process import wall times (s): jax+agents.replay vs + flashbax."""
  res = {}
  for name, code in [('jax_and_agents_replay', 'import jax, agents.replay'),
                     ('plus_flashbax', 'import jax, agents.replay, flashbax')]:
    ts = []
    for _ in range(n):
      t = time.perf_counter()
      subprocess.run([sys.executable, '-c', code], check=True)
      ts.append(time.perf_counter() - t)
    res[name] = dict(median_s=statistics.median(ts), rounds_s=ts)
  return res


def main():
  ap = argparse.ArgumentParser()
  ap.add_argument('--rounds', type=int, default=7)
  ap.add_argument('--quick', action='store_true')
  ap.add_argument('--out', default='/tmp/replay_flashbax.json')
  args = ap.parse_args()
  logf = open(os.path.splitext(args.out)[0] + '.log', 'w')

  def log(s):
    print(s, flush=True)
    logf.write(s + '\n')
    logf.flush()

  import importlib.metadata as md
  env = dict(python=platform.python_version(), machine=platform.machine(),
             cpus=os.cpu_count(), jax_devices=[str(d) for d in jax.devices()],
             loadavg_start=os.getloadavg(),
             versions={p: md.version(p) for p in [
                 'jax', 'jaxlib', 'numpy', 'chex', 'flashbax', 'flax',
                 'tensorstore', 'orbax-checkpoint', 'dm-haiku', 'optax', 'rlax',
                 'distrax', 'ml_dtypes']})
  log(json.dumps(env))
  results = dict(env=env, settings=[], iters_per_call=ITERS, rounds=args.rounds)
  uniform_arms = ['ours', 'fbx_pair', 'fbx_full']
  grid = [(o, B, cap, bs) for o in ('cartpole', 'minatar') for B in (16, 128)
          for cap in (100_000, 10_000) for bs in (128, 256)]
  if args.quick:
    grid = grid[:1]
  for o, B, cap, bs in grid:
    results['settings'].append(
        bench_setting('uniform', o, B, cap, bs, uniform_arms, args.rounds, log))
    json.dump(results, open(args.out, 'w'), indent=1)
  results['settings'].append(bench_setting(
      'prioritised', 'cartpole', 16, 100_000, 128, ['ours', 'fbx_pair'],
      args.rounds, log))
  results['import_times'] = import_times(3 if args.quick else 5)
  log('import times: ' + json.dumps(results['import_times']))
  results['env']['loadavg_end'] = os.getloadavg()
  json.dump(results, open(args.out, 'w'), indent=1)


if __name__ == '__main__':
  main()
