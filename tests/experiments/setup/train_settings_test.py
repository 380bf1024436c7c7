"""Tests for experiments/setup/train_settings.py: what a preset of another
game does to a run's config."""

import pytest

from experiments import api


def test_a_preset_of_another_game_is_refused_naming_this_game_s():
  with pytest.raises(api.UsageError, match=(
      r"--preset: Preset 'rainbow_plane_strike' was tuned on plane_strike, "
      r'not catch: .*Presets of c51 on catch: c51_catch; .*'
      r'--preset_on_other_env')):
    api.experiment_config(agent='c51', env='catch',
                          preset='rainbow_plane_strike')


def test_asked_for_it_runs_and_records_it():
  config = api.experiment_config(agent='c51', env='catch',
                                 preset='rainbow_plane_strike',
                                 preset_on_other_env=True)
  assert config.preset == 'rainbow_plane_strike'
  assert config.preset_on_other_env
  own = api.experiment_config(agent='c51', env='catch', preset='c51_catch',
                              preset_on_other_env=True)
  assert not own.preset_on_other_env  # Its own game's: nothing to record.
  assert not api.experiment_config(agent='c51',
                                   env='catch').preset_on_other_env
