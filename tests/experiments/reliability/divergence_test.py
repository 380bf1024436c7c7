"""Divergence through the command line: a run whose numbers
blow up stops non-zero, is never exported or scored, and says so."""

import json
import os
import textwrap
import pytest

pytestmark = pytest.mark.slow  # Whole commands; see docs/testing.md.

_UNSTABLE_AGENT = textwrap.dedent('''
    """REINFORCE whose default learning rate diverges (a test fixture)."""
    import dataclasses
    from agents import reinforce
    from agents import registry
    from networks import registry as network_registry

    @dataclasses.dataclass(frozen=True)
    class UnstableConfig(reinforce.ReinforceConfig):
      learning_rate: float = 1e9

    registry.register(registry.AgentEntry(
        'unstable_reinforce', UnstableConfig, reinforce.make_agent,
        {registry.DISCRETE: (network_registry.POLICY, 'mlp_policy')}))
''')


def test_nan_and_inf_settings_are_refused_before_anything_is_written(
    cli, tmp_path):
  for flag, named in (('--config.learning_rate=nan', 'learning_rate'),
                      ('--learning_rate=inf', '--learning_rate')):
    workdir = tmp_path / flag.strip('-').replace('=', '_')
    done = cli.run('train', *cli.FAST, flag, f'--workdir={workdir}')
    assert done.returncode != 0, flag
    assert named in done.stderr and ('finite' in done.stderr or
                                     '[0, 1]' in done.stderr), done.stderr
    assert not workdir.exists()


def test_nan_stops_the_run_with_nothing_exported_or_checkpointed_after(
    cli, tmp_path):
  workdir = str(tmp_path / 'run')
  done, result = cli.train(
      workdir, '--env=catch', '--agent=ppo', '--num_steps=40000',
      '--config.learning_rate=1e30', '--max_abs_param=0',
      '--eval_episodes=20', '--progress=false', returncode=1)
  assert 'Training diverged' in done.stderr and '= nan' in done.stderr
  assert result['status'] == 'diverged'
  step = result['divergence']['env_steps']
  assert result['divergence']['metric'] == 'max_abs_param'
  assert all(s < step for s in cli.checkpoint_steps(workdir))
  assert not os.path.exists(os.path.join(workdir, 'catch.tflite'))
  assert not [n for n in os.listdir(workdir) if 'unverified' in n]


def test_runaway_parameters_stop_the_python_loop(cli, tmp_path):
  workdir = str(tmp_path / 'run')
  done, result = cli.train(
      workdir, '--env=catch', '--agent=reinforce', '--loop=python',
      '--num_episodes=400', '--config.learning_rate=1e9',
      '--eval_episodes=20', '--progress=false', returncode=1)
  assert 'max_abs_param' in done.stderr and '--max_abs_param' in done.stderr
  assert result['status'] == 'diverged'
  assert not os.path.exists(os.path.join(workdir, 'catch.tflite'))


@pytest.mark.usefixtures('unrendered_figures')
def test_compare_lists_diverged_runs_and_leaves_them_out(cli, tmp_path):
  (tmp_path / 'unstable_agent.py').write_text(_UNSTABLE_AGENT)
  workdir = str(tmp_path / 'comparison')
  flags = ('--imports=unstable_agent', '--agents=reinforce,unstable_reinforce',
           '--envs=catch', '--seeds=2', '--num_steps=6000',
           '--eval_points=2', '--eval_episodes=20',
           '--periodic_eval_episodes=10', '--bootstrap_reps=200',
           '--progress=false', f'--workdir={workdir}')
  done = cli.run('compare', *flags, cwd=str(tmp_path))
  assert done.returncode == 0, done.stderr
  assert ('Left out of the report: unstable_reinforce on catch, seed 0: '
          'diverged') in done.stdout
  # The console names the section that lists them (the report's last).
  assert '(incomplete: see section "7. Runs left out")' in done.stdout
  report = cli.strict_json(os.path.join(workdir, 'report.json'))
  assert not report['complete']
  assert {(r['agent'], r['seed'], r['state'])
          for r in report['left_out_runs']} == {
              ('unstable_reinforce', 0, 'diverged'),
              ('unstable_reinforce', 1, 'diverged')}
  catch = report['envs']['catch']['agents']
  assert set(catch) == {'reinforce'} and catch['reinforce']['seeds'] == [0, 1]
  assert set(report['aggregate']['agents']) == {'reinforce'}
  with open(os.path.join(workdir, 'report.md')) as f:
    text = f.read()
  assert '**Incomplete report:** 2 of 4 runs' in text
  assert 'unstable_reinforce on Catch, seed 1: **diverged**' in text
  again = cli.run('compare', *flags, cwd=str(tmp_path))  # Nothing to train.
  assert again.returncode == 0, again.stderr
  assert 'finished already; training 0' in again.stdout
  assert json.loads(json.dumps(cli.strict_json(
      os.path.join(workdir, 'report.json')))) == report
