"""Learning that collapses with finite weights, through the command line:
the run finishes (exit status 0, `finished`), but says so in a WARNING line
at the end, in result.json's `warnings`, and in its summary line."""


import pytest

pytestmark = pytest.mark.slow  # Whole commands; see docs/testing.md.


def test_a_collapsed_policy_is_warned_about_not_called_fine(cli, tmp_path):
  workdir = str(tmp_path / 'run')
  # A collapsed policy scores random play's -0.6 on average; 1,000
  # episodes hold its estimate (σ ≈ 0.03) inside the 5% margin, whatever
  # path this run's numbers took.
  done, result = cli.train(
      workdir, '--env=catch', '--agent=ppo', '--num_steps=10000',
      '--config.learning_rate=1000', '--eval_episodes=1000',
      '--export_check_episodes=2', '--progress=false')
  assert result['status'] == 'finished'
  (warning,) = result['warnings']
  assert warning.startswith('learning collapsed: the final evaluation\'s '
                            'return '), warning
  assert 'no better than random play (-0.602' in warning
  assert 'entropy fell to 0' in warning and 'lower learning rate' in warning
  assert done.stderr.rstrip().splitlines()[-1] == f'WARNING: {warning}.'
  (summary,) = done.stdout.strip().splitlines()
  assert 'verified' not in summary, summary
  assert summary.endswith('but it may not play well: see the WARNING).'), (
      summary)
