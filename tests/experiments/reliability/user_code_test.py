"""A user's own code that is broken, through the command line: a module of
--imports that raises or does not parse, and an environment whose
observation_spec does not match its observations, are each refused in one
line naming the file or environment and the problem, before anything is
compiled or written."""

import os
import textwrap

import pytest

pytestmark = pytest.mark.slow  # Whole commands; see docs/testing.md.

# The example corridor, but its spec claims 5 cells where it shows 8.
_WRONG_SPEC = textwrap.dedent('''
    from dm_env import specs
    import numpy as np
    from environments import registry
    from examples import custom_environment

    class WrongSpec(custom_environment.Corridor):
      def observation_spec(self):
        return specs.BoundedArray((5,), np.float32, 0.0, 1.0,
                                  name='position')

    registry.register(registry.EnvironmentEntry(name='wrong_spec',
                                                make_core=WrongSpec))
''')


def _one_line(done) -> str:
  assert done.returncode == 1, done.stderr
  lines = done.stderr.strip().splitlines()
  assert len(lines) == 1, done.stderr
  assert 'Traceback' not in done.stderr
  return lines[0]


@pytest.mark.parametrize('source, error', [
    ("import os\nraise RuntimeError('boom')\n",
     "raised RuntimeError while being imported: boom (at {path}, line 2)"),
    ('def f(:\n  pass\n',
     'raised SyntaxError while being imported: invalid syntax (at {path}, '
     'line 1)'),
    ('import no_such_dependency_xyz\n',
     "failed to import: ModuleNotFoundError: No module named "
     "'no_such_dependency_xyz' (at {path}, line 1)"),
], ids=['raises', 'syntax_error', 'missing_dependency'])
def test_a_module_that_raises_is_named_in_one_line(cli, tmp_path, source,
                                                   error):
  path = tmp_path / 'my_module.py'
  path.write_text(source)
  workdir = tmp_path / 'run'
  line = _one_line(cli.run('train', *cli.FAST, f'--imports={path}',
                           f'--workdir={workdir}'))
  assert line.startswith(f"FATAL Flags parsing error: --imports: file "
                         f"'{path}' "), line
  assert error.format(path=path) in line, line
  assert not workdir.exists()


@pytest.mark.parametrize('loop', ['compiled', 'python'])
def test_an_observation_spec_unlike_the_observations_is_refused(
    cli, tmp_path, loop):
  path = tmp_path / 'wrong_spec.py'
  path.write_text(_WRONG_SPEC)
  workdir = tmp_path / 'run'
  line = _one_line(cli.run(
      'train', '--env=wrong_spec', '--agent=ppo', '--num_steps=1000',
      f'--loop={loop}', '--progress=false', f'--imports={path}',
      f'--workdir={workdir}'))
  assert line.startswith(
      f"FATAL --env=wrong_spec (registered by --imports={path}): its "
      f"observation_spec() 'position' says shape (5,) (float32), but "
      f"reset() returned observations of shape (8,) (float32)."), line
  assert 'make observation_spec() describe what reset()' in line
  assert not os.path.exists(workdir)
