"""The end of a run: final evaluation, export and `result.json`.

Every `result.json` carries a `status`: `finished` (trained to its budget,
evaluated, exported if asked, every periodic evaluation in `eval.csv`; its
`warnings` list says, in short strings with the evidence, if learning
collapsed or never started: `collapse`) or
`diverged` (stopped by the divergence guard; `divergence` says where, and a
seed stopped only because another seed of its program diverged says which).
Readers such as `experiments.compare` count a run only when it is
`finished`. Files are strict JSON, written atomically.
"""

import contextlib
import dataclasses
import os
from typing import Any, Dict, List, Optional

from environments import two_player
from experiments.driver import collapse
from experiments.driver import divergence as divergence_lib
from experiments.driver import time_account
from experiments.driver import workdir as workdir_lib
from experiments.export import tflite
from experiments.loops import evaluation
from experiments.loops import interface
from experiments.setup import build as build_lib
from experiments.setup import provenance
from experiments.storage import atomic_files

FINISHED, DIVERGED = 'finished', 'diverged'
STATUSES = (FINISHED, DIVERGED)
# Keys of a result that differ between two runs of one experiment (time
# taken, when and where it ran); everything else is the outcome.
CIRCUMSTANCE_KEYS = ('wall_seconds', 'compile_seconds', 'time_account',
                     'provenance')

PerSeed = interface.PerSeed


def _provenance(loop: interface.TrainingLoop, wall_seconds: float,
                sessions: List[Dict[str, Any]]) -> Dict[str, Any]:
  """What produced a result: each training session's software and hardware
  (`setup.provenance`), the setup keys on which they differ (a resumed run
  that changed machine or versions), and the program's device-seconds
  (shared by the seeds trained in it)."""
  return {
      'device_seconds': float(wall_seconds) * loop.num_devices,
      'num_devices': loop.num_devices,
      'sessions': sessions,
      'differing_between_sessions': provenance.differing_keys(sessions),
  }


def _common(built: build_lib.Built, loop: interface.TrainingLoop, seed: int,
            i: int, counters: PerSeed, wall_seconds: float, evaluations: int,
            compile_seconds: float,
            sessions: List[Dict[str, Any]]) -> Dict[str, Any]:
  config = built.config
  trial = build_lib.lane_trial(config, i)
  agent_config = (config.agent_config if trial is None else
                  config.trial_config(trial))
  return {
      'agent': config.agent,
      'env': config.env,
      'seed': seed,
      **({} if trial is None else {'trial': trial,
                                   'trial_values': config.trials[trial]}),
      'loop': config.loop,
      'num_envs': loop.num_envs,
      'num_seeds': config.num_seeds,
      # The settings that produced this result, and where they came from.
      'preset': config.preset,
      'agent_config': dataclasses.asdict(agent_config),
      'network': build_lib.network_name(config),
      'hidden_sizes': (None if config.resolved_hidden_sizes() is None else
                       list(config.resolved_hidden_sizes())),
      **{k: int(v[i]) for k, v in counters.items()},
      'wall_seconds': float(wall_seconds),
      # Of this session's training (included in wall_seconds).
      'compile_seconds': compile_seconds,
      # Rows of eval.csv (periodic greedy evaluations), and their size.
      'evaluations': evaluations,
      'periodic_eval_episodes': built.periodic_eval_episodes,
      # How evaluations acted; their episodes come from the seed's own
      # evaluation stream (`loops.seeding.EVAL`), never its training one.
      'eval_protocol': {'policy': config.eval_policy, **(
          {'epsilon': config.eval_epsilon}
          if config.eval_policy == 'epsilon_greedy' else {}),
                        'episodes': 'evaluation stream'},
      'provenance': _provenance(loop, wall_seconds, sessions),
  }


def _write(config, workdir: str, results: List[Dict[str, Any]],
           writes: bool) -> Dict[str, Any]:
  """Writes each seed's result and, for several seeds, the summary."""
  if writes:
    for i, result in enumerate(results):
      directory = workdir_lib.seed_workdir(config, workdir, i)
      atomic_files.write_json(os.path.join(directory, workdir_lib.RESULT),
                              result)
  if len(results) == 1:
    return results[0]
  if writes:
    atomic_files.write_json(os.path.join(workdir, workdir_lib.RESULT),
                            summary(results))
  return summary(results)


def finish(built: build_lib.Built, loop: interface.TrainingLoop,
           counters: PerSeed, wall_seconds: float, evaluations: int,
           workdir: str, writes: bool,
           stopped: Optional[Dict[int, Dict[str, Any]]] = None,
           sessions: Optional[List[Dict[str, Any]]] = None,
           compile_seconds: Optional[float] = None, *,
           account: time_account.TimeAccount) -> Dict[str, Any]:
  """Final evaluation and export of every seed; writes the results.

  `stopped`: the lanes (sweep trials) the divergence guard stopped, with
  their records: their results say diverged, with no score or model.
  `sessions`: the provenance of each training session (`run._run`).
  `compile_seconds`: of every session's training (default: the loop's, of
  this session). `account`: the run's time so far, completed here with
  the final evaluation and the export and kept in each result.

  Returns:
    For one seed, its result; for several, `{'seeds': [result, …]}`.

  Raises:
    tflite.VerificationError: an exported model disagrees with JAX (no
      file is left under its final name; no result is written).
  """
  config = built.config
  if compile_seconds is None:  # Of training, not evaluation.
    compile_seconds = loop.compile_seconds
  with account.timed('final_evaluation', loop):
    final = loop.evaluate(config.eval_episodes)
  # Every process fetches the params (a collective in multi-host runs);
  # process 0 exports them.
  params = None
  if config.export_tflite:
    with account.timed('export'):
      params = [loop.actor_params(i) for i in range(len(loop.seeds))]
  results = []
  # Every seed's model is verified before any takes its final name.
  with contextlib.ExitStack() as publish:
    for i, seed in enumerate(loop.seeds):
      if stopped and i in stopped:
        results.append({
            **_common(built, loop, seed, i, counters, wall_seconds,
                      evaluations, compile_seconds, sessions or []),
            'status': DIVERGED, 'divergence': stopped[i]})
        continue
      results.append(_finish_seed(
          built, loop, i, seed, counters, wall_seconds, evaluations,
          compile_seconds, final, params, workdir, writes, publish,
          sessions or [], account))
  for result in results:
    result['time_account'] = account.record()
  return _write(config, workdir, results, writes)


def _finish_seed(built, loop, i, seed, counters, wall_seconds, evaluations,
                 compile_seconds, final, params, workdir, writes,
                 publish: contextlib.ExitStack,
                 sessions: List[Dict[str, Any]],
                 account: time_account.TimeAccount) -> Dict[str, Any]:
  """One seed's result; its model verified at a name `publish` renames."""
  config = built.config
  result = {
      **_common(built, loop, seed, i, counters, wall_seconds, evaluations,
                compile_seconds, sessions),
      'status': FINISHED,
      'eval_episodes': config.eval_episodes,
      'eval_mean_return': float(final['mean_return'][i]),
      'eval_mean_episode_length': float(final['mean_episode_length'][i]),
      # Every final episode the same (a deterministic game, or a policy
      # that always wins the same way).
      'eval_identical_episodes': bool(final['identical_episodes'][i]),
      'tflite_path': None,
  }
  if all(name in final for name in evaluation.OUTCOMES):  # Two players.
    result['eval_outcomes'] = {name: float(final[name][i])
                               for name in evaluation.OUTCOMES}
    result['eval_opponent'] = (config.env_kwargs.get('opponent') or
                               two_player.DEFAULT_OPPONENT)
  if config.export_tflite and writes:
    path = os.path.join(workdir_lib.seed_workdir(config, workdir, i),
                        workdir_lib.export_filename(config.env))
    with account.timed('export'):
      result['tflite'] = tflite.export_and_verify(
          built.agent, params[i], built.environment_spec, path,
          built.for_seed(seed).export_environment(),
          num_games=config.export_check_episodes,
          input_name=config.environment.input_name, publish=publish)
    result['tflite_path'] = os.path.abspath(path)
  # Learning that died with finite weights (`collapse`): said, not hidden.
  with account.timed('final_evaluation', loop):  # Random play, at times.
    result['warnings'] = collapse.warnings(
        config, built.environment_spec, result,
        workdir_lib.seed_workdir(config, workdir, i),
        collapse.measured_random_play(config, built.agent,
                                      built.environment_spec))
  return result


def _saved_result(config, workdir: str, lane: int
                 ) -> Optional[Dict[str, Any]]:
  """Lane `lane`'s `result.json`; None if missing or unreadable."""
  path = os.path.join(workdir_lib.seed_workdir(config, workdir, lane),
                      workdir_lib.RESULT)
  try:
    return atomic_files.read_json_object(path)
  except (OSError, ValueError):
    return None


def lane_result(config, workdir: str, lane: int
               ) -> Optional[Dict[str, Any]]:
  """Lane `lane`'s `result.json` as read here (None if missing or
  unreadable): its model is named in this workdir, wherever the run was
  trained (a copied or moved workdir names its own model)."""
  result = _saved_result(config, workdir, lane)
  if result and result.get('tflite_path'):
    result['tflite_path'] = os.path.abspath(os.path.join(
        workdir_lib.seed_workdir(config, workdir, lane),
        os.path.basename(result['tflite_path'])))
  return result


def saved(config, workdir: str) -> Optional[List[Dict[str, Any]]]:
  """Every lane's `result.json` in `workdir`, if all are `finished`; None
  if any is missing, unreadable or not finished (the run must go on)."""
  found = [lane_result(config, workdir, i)
           for i in range(len(build_lib.lane_names(config)))]
  if any(r is None or r.get('status') != FINISHED for r in found):
    return None
  return found


def divergence(config, workdir: str, lane: int) -> Optional[str]:
  """Why lane `lane` of the run in `workdir` diverged, in words (its
  `result.json` records it); None if it did not."""
  result = _saved_result(config, workdir, lane)
  if result is None or result.get('status') != DIVERGED:
    return None
  record = result.get('divergence') or {}
  why = (divergence_lib.describe(record) if 'metric' in record else
         f'Seed {result.get("seed")} stopped: '
         f'{record.get("reason", "the run diverged")}')
  path = os.path.join(workdir_lib.seed_workdir(config, workdir, lane),
                      workdir_lib.RESULT)
  return f'{why} ({path})'


def summary(results: List[Dict[str, Any]]) -> Dict[str, Any]:
  """What `finish` returns for these lanes' results."""
  return results[0] if len(results) == 1 else {'seeds': results}


def record_divergence(built: build_lib.Built, loop: interface.TrainingLoop,
                      counters: PerSeed, wall_seconds: float,
                      evaluations: int, records: List[Dict[str, Any]],
                      workdir: str, writes: bool,
                      sessions: Optional[List[Dict[str, Any]]] = None
                     ) -> Dict[str, Any]:
  """Writes every seed's `result.json` as diverged: the seeds that did, with
  their record, and the others of the same program naming which did."""
  by_lane = {r['lane']: r for r in records}
  results = []
  for i, seed in enumerate(loop.seeds):
    divergence = by_lane.get(i) or {
        'stopped_by': sorted({r['seed'] for r in records}),
        'reason': 'another seed trained in the same program diverged'}
    results.append({
        **_common(built, loop, seed, i, counters, wall_seconds, evaluations,
                  loop.compile_seconds, sessions or []),
        'status': DIVERGED, 'divergence': divergence})
  return _write(built.config, workdir, results, writes)
