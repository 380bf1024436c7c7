"""Tests for experiments/storage/workdir_format.py."""

import pytest

from experiments.storage import workdir_format


def test_a_stamped_workdir_reads_back_without_its_stamp():
  saved = workdir_format.stamped({'agent': 'ppo'})
  assert saved == {'agent': 'ppo', 'workdir_format': workdir_format.FORMAT}
  assert workdir_format.unstamped(saved, 'w') == {'agent': 'ppo'}
  assert 'workdir_format' in saved  # The caller's dict is left whole.


@pytest.mark.parametrize('version', [None, 1, 3, workdir_format.FORMAT + 1])
def test_another_format_is_refused_in_one_line(version):
  saved = {'agent': 'ppo'}
  if version is not None:
    saved['workdir_format'] = version
  with pytest.raises(workdir_format.OtherFormat) as e:
    workdir_format.unstamped(saved, '/runs/old')
  message = str(e.value)
  assert '\n' not in message
  assert message == (
      f"--workdir '/runs/old' was written by another version of this "
      f"framework (workdir format {version or 1}, this one reads "
      f"{workdir_format.FORMAT}): train again in a new --workdir, or read "
      f"it with the release that wrote it.")
