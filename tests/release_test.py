"""The release is declared once (setup.py) and reported alike everywhere:
each package's `__version__`, CITATION.cff and CHANGELOG.md."""

import pathlib
import re

import agents
import environments
import experiments
import networks

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _declared() -> str:
  match = re.search(r"version='([^']+)'", (ROOT / 'setup.py').read_text())
  assert match, 'setup.py declares no version'
  return match.group(1)


def test_every_package_reports_the_declared_version():
  version = _declared()
  for package in (agents, environments, networks, experiments):
    assert package.__version__ == version, package.__name__


def test_the_citation_and_the_changelog_name_it():
  version = _declared()
  citation = (ROOT / 'CITATION.cff').read_text()
  assert re.search(rf'^version: {re.escape(version)}$', citation, re.M)
  assert re.search(r'^license: Apache-2.0$', citation, re.M)
  assert f'## {version}' in (ROOT / 'CHANGELOG.md').read_text()
  assert 'Apache License' in (ROOT / 'LICENSE').read_text()
