r"""Train, evaluate and export from Python, through `experiments.api`.

Runs what `python -m experiments.train --agent=ppo --env=catch
--num_steps=20000 --workdir=/tmp/api_example` runs, then plays the trained
greedy policy on fresh games (`api.evaluate`), asks it for one action
(`Policy.predict`) and exports it to TFLite:

  python examples/train_with_api.py --workdir=/tmp/api_example

It works from any directory (the framework is installed by ./run.sh or
./test.sh); rerunning it resumes the finished run instead of training
again.
"""

import argparse
from typing import Any, Dict

from environments import registry as env_registry
from experiments import api


def main(workdir: str, num_steps: int) -> Dict[str, Any]:
  run = api.train(agent='ppo', env='catch', workdir=workdir,
                  num_steps=num_steps, export_tflite=False, progress=False)
  result = run.result
  print(f'Trained: greedy return {result["eval_mean_return"]:.2f} over '
        f'{result["eval_episodes"]} episodes.')
  played = api.evaluate(run, episodes=20, seed=123)
  print(f'Played 20 games: mean return {played.mean_return:.2f}.')
  policy = run.policy()
  observation = env_registry.make_environment('catch').reset().observation
  print(f'Greedy action at the start of a game: '
        f'{int(policy.predict(observation))}.')
  exported = api.export(workdir, verify_games=20)
  print(f'Exported {exported["tflite_path"]} (largest difference from JAX: '
        f'{exported["max_abs_diff"]:.1e}).')
  return {'result': result, 'played': played.mean_return,
          'export': exported}


if __name__ == '__main__':
  parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
  parser.add_argument('--workdir', default='/tmp/api_example')
  parser.add_argument('--num_steps', type=int, default=20_000)
  arguments = parser.parse_args()
  main(arguments.workdir, arguments.num_steps)
