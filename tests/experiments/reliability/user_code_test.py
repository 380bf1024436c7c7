"""A user's own code that is broken, through the command line: a module of
--imports that raises or does not parse is refused in one line naming the
file and the problem, before anything is compiled or written."""

import pytest

pytestmark = pytest.mark.slow  # Whole commands; see docs/testing.md.

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
