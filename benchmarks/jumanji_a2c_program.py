"""Jumanji's A2C (`jumanji.training`), timed, then its policy played; run by
`benchmarks/peer_programs.py jumanji_a2c` in the peers' own environment
(`.venv-peers`), never the project's: it imports Jumanji's training
package, never this project (`peer_programs` loads it by its path).

The run is built as `jumanji/training/train.py` builds it: its Hydra
configs composed (`agent=a2c`, `env=<task's config>`, the settings as
overrides), then its own `setup_env`, `setup_agent`,
`setup_training_state` and, per epoch, its `epoch_fn` (a `pmap` of
`num_learner_steps_per_epoch` scanned `run_epoch` calls). Its evaluations
between epochs are left out (ours run none while training either); after
training, untimed, its greedy `Evaluator` plays `eval_episodes` episodes,
our evaluation protocol.
"""

import importlib.util
import os
import sys
import time
import types
from typing import Any, Dict


def _as_jumanji_expects() -> None:
  """What Jumanji 1.1.2's training package needs around it:
    * its loggers import neptune-client 0.16 at module level, whose pins
      (protobuf 3.20) break the other peers' packages; this program logs
      nothing, so a placeholder module stands in where neptune is missing;
    * `setup_training_state` calls `jax.device_put_replicated`, which JAX
      0.10 (ours) keeps but no longer exports: it is put back as it is."""
  if importlib.util.find_spec('neptune') is None:
    neptune = types.ModuleType('neptune')
    neptune.new = types.ModuleType('neptune.new')
    sys.modules['neptune'] = neptune
    sys.modules['neptune.new'] = neptune.new
  import jax  # pylint: disable=g-import-not-at-top
  from jax._src import api  # pylint: disable=g-import-not-at-top
  try:
    jax.device_put_replicated  # pylint: disable=pointless-statement
  except AttributeError:
    jax.device_put_replicated = api.device_put_replicated


def jumanji_a2c(settings: Dict[str, Any], seed: int) -> Dict[str, Any]:
  """Jumanji's A2C on `settings['env']` (a config name of
  jumanji/training/configs/env, e.g. 'maze') for `settings['steps']`
  steps or more (whole updates of its `n_steps` x `total_batch_size`),
  `settings['overrides']` its other config keys (`Hydra` overrides)."""
  _as_jumanji_expects()
  import hydra  # pylint: disable=g-import-not-at-top
  import jax  # pylint: disable=g-import-not-at-top
  import jax.numpy as jnp  # pylint: disable=g-import-not-at-top
  import numpy as np  # pylint: disable=g-import-not-at-top
  import jumanji.training  # pylint: disable=g-import-not-at-top
  from jumanji.training import setup_train  # pylint: disable=g-import-not-at-top

  configs = os.path.join(os.path.dirname(jumanji.training.__file__),
                         'configs')
  overrides = [f'env={settings["env"]}', 'agent=a2c', f'seed={seed}',
               'env.evaluation.greedy_eval_total_batch_size='
               f'{settings.get("eval_episodes", 100)}',
               *settings.get('overrides', ())]
  with hydra.initialize_config_dir(config_dir=configs, version_base=None):
    cfg = hydra.compose(config_name='config', overrides=overrides)
  training = cfg.env.training
  steps_per_update = training.n_steps * training.total_batch_size
  updates = -(-int(settings['steps']) // steps_per_update)
  per_epoch = min(int(training.num_learner_steps_per_epoch), updates)
  epochs = -(-updates // per_epoch)

  key, init_key = jax.random.split(jax.random.PRNGKey(cfg.seed))
  env = setup_train.setup_env(cfg)
  agent = setup_train.setup_agent(cfg, env)
  _, greedy_eval = setup_train.setup_evaluators(cfg, agent)
  state = setup_train.setup_training_state(env, agent, init_key)

  def epoch_fn(training_state):  # train.py's, for `per_epoch` updates.
    training_state, metrics = jax.lax.scan(
        lambda s, _: agent.run_epoch(s), training_state, None, per_epoch)
    return training_state, jax.tree_util.tree_map(jnp.mean, metrics)

  start = time.perf_counter()
  epoch = jax.pmap(epoch_fn, axis_name='devices').lower(state).compile()
  compile_seconds = time.perf_counter() - start
  start = time.perf_counter()
  for _ in range(epochs):
    state, _ = jax.block_until_ready(epoch(state))
  seconds = time.perf_counter() - start

  greedy = greedy_eval.run_evaluation(state.params_state,
                                      jax.random.split(key)[1])
  env_steps = epochs * per_epoch * steps_per_update
  return {'env_steps': env_steps, 'compile_seconds': compile_seconds,
          'train_seconds': seconds, 'steps_per_second': env_steps / seconds,
          'greedy_return': float(np.asarray(greedy['episode_return'])[0]),
          'greedy_length': float(np.asarray(greedy['episode_length'])[0])}
