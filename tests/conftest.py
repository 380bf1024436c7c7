"""Pytest set-up shared by all tests."""

from absl import flags


def pytest_configure(config):
  del config
  # absltest helpers (create_tempdir, …) read flags; pytest never parses them.
  if not flags.FLAGS.is_parsed():
    flags.FLAGS.mark_as_parsed()
