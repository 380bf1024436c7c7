"""examples/custom_network.py: a user's Haiku network for a built-in
agent."""

import pytest

from tests.examples import conftest

pytestmark = pytest.mark.slow  # Whole commands; see docs/testing.md.


def test_reinforce_learns_catch_with_the_layer_norm_policy(tmp_path):
  result = conftest.train_result(conftest.run(
      'experiments.train', '--imports=examples.custom_network',
      '--agent=reinforce', '--network=layer_norm_policy', '--env=catch',
      '--num_episodes=2000', '--eval_episodes=100',
      f'--workdir={tmp_path}/run', '--noprogress'), f'{tmp_path}/run')
  # A uniformly random policy scores about -0.6 on Catch.
  assert result['eval_mean_return'] >= 0.9
  assert result['tflite']['max_abs_diff'] < 1e-5


def test_an_agent_needing_another_kind_is_refused(tmp_path):
  process = conftest.run(
      'experiments.train', '--imports=examples.custom_network',
      '--agent=dqn', '--network=layer_norm_policy', '--env=catch',
      f'--workdir={tmp_path}/run', '--noprogress')
  assert process.returncode != 0
  assert ("network: Agent 'dqn': Network 'layer_norm_policy' is of kind "
          "'policy'; kind 'q_values' is needed") in process.stderr
