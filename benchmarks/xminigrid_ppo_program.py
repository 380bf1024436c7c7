"""XLand-MiniGrid's recurrent PPO (`training/train_single_task.py`), timed,
then its policy played; run by `benchmarks/peer_programs.py xminigrid_ppo`
in the peers' own environment (`.venv-peers`), never the project's: it
imports a checkout of github.com/dunnolab/xland-minigrid's `training/`
folder and xminigrid, never this project (`peer_programs` loads it by its
path).

The script logs to Weights & Biases and reads its flags with pyrallis; its
`make_states` and `make_train` use neither, so the program builds its
`TrainConfig` itself and, where pyrallis is not installed, gives the
script a stand-in whose `wrap` is never called (nothing is logged).
Python 3.11's dataclasses refuse a JAX array as a field's default (it is
unhashable), which `utils.RolloutStats` gives its three counters: the
program loads `utils.py` with those defaults made by a factory instead
(the same values), and changes nothing else.
"""

import importlib.util
import os
import re
import sys
import time
import types
from typing import Any, Dict


def _script(source: str) -> Any:
  """`train_single_task` from the checkout `source` (the repository root
  or its `training/` folder)."""
  folder = os.path.join(source, 'training')
  folder = folder if os.path.isdir(folder) else source
  sys.path.insert(0, folder)
  path = os.path.join(folder, 'utils.py')
  with open(path) as f:
    text = re.sub(r'(\w+: jax\.Array) = (jnp\.asarray\([^)]*\))',
                  r'\1 = struct.field(default_factory=lambda: \2)', f.read())
  utils = types.ModuleType('utils')
  utils.__file__ = path
  exec(compile(text, path, 'exec'), utils.__dict__)  # pylint: disable=exec-used
  sys.modules['utils'] = utils
  if importlib.util.find_spec('pyrallis') is None:
    sys.modules['pyrallis'] = types.SimpleNamespace(
        wrap=lambda: (lambda function: function))
  import train_single_task  # pylint: disable=g-import-not-at-top
  return train_single_task


def xminigrid_ppo(source: str, settings: Dict[str, Any],
                  seed: int) -> Dict[str, Any]:
  """The script's `make_train` with `settings` (its `TrainConfig` fields:
  `env_id`, `num_envs`, `num_steps`, `total_timesteps`, `rnn_hidden_dim`,
  ...), compiled, then run and timed for one seed, as the script does;
  `settings['eval_episodes']` episodes of the sampled policy by its own
  `rollout` from a zero memory (its evaluation protocol), untimed.

  Its per-update evaluation (in the timed program) plays one episode, the
  fewest `TrainConfig` allows: it is not training, and ours plays none."""
  import jax  # pylint: disable=g-import-not-at-top
  import numpy as np  # pylint: disable=g-import-not-at-top
  from flax.jax_utils import replicate, unreplicate  # pylint: disable=g-import-not-at-top
  script = _script(source)
  import utils  # pylint: disable=g-import-not-at-top
  settings = dict(settings)
  eval_episodes = settings.pop('eval_episodes', 80)
  config = script.TrainConfig(**settings, eval_episodes=1, seed=seed)
  rng, env, env_params, init_hstate, train_state = script.make_states(config)
  devices = jax.local_devices()
  rng = jax.random.split(rng, num=len(devices))
  train_state = replicate(train_state, devices)
  init_hstate = replicate(init_hstate, devices)
  start = time.perf_counter()
  train = script.make_train(env, env_params, config).lower(
      rng, train_state, init_hstate).compile()
  compile_seconds = time.perf_counter() - start
  start = time.perf_counter()
  out = jax.block_until_ready(train(rng, train_state, init_hstate))
  seconds = time.perf_counter() - start
  trained = unreplicate(out['runner_state'][1])
  zero_memory = np.zeros((1, config.rnn_num_layers, config.rnn_hidden_dim),
                         np.float32)
  stats = jax.jit(jax.vmap(
      lambda key: utils.rollout(key, env, env_params, trained, zero_memory,
                                1)))(
                                    jax.random.split(jax.random.PRNGKey(
                                        seed + 1), eval_episodes))
  steps = config.num_updates * config.num_steps * config.num_envs
  return {'env_steps': steps, 'updates': config.num_updates,
          'compile_seconds': compile_seconds, 'train_seconds': seconds,
          'steps_per_second': steps / seconds,
          'final_eval_return': float(np.mean(stats.reward)),
          'final_eval_length': float(np.mean(stats.length))}
