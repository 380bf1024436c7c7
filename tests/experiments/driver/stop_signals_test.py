"""Tests of `stop_signals`: Ctrl-C once asks, twice stops at once."""

import gc
import signal
import time

import pytest

from experiments.driver import stop_signals


def test_first_ctrl_c_asks_for_a_stop_and_the_second_raises():
  before = signal.getsignal(signal.SIGINT)  # Ignored under pytest-xdist.
  with stop_signals.StopSignals() as stop:
    signal.raise_signal(signal.SIGINT)
    assert stop.requested == signal.SIGINT
    with pytest.raises(KeyboardInterrupt):
      signal.raise_signal(signal.SIGINT)
  assert signal.getsignal(signal.SIGINT) is before


def test_a_second_ctrl_c_inside_a_gc_callback_is_not_lost(capfd):
  # Python drops an exception raised in a gc callback (JAX registers one)
  # with an "Exception ignored" traceback on stderr.
  def callback(phase, info):
    del info
    if phase == 'start':
      signal.raise_signal(signal.SIGINT)  # Handled inside the callback.

  with stop_signals.StopSignals():
    signal.raise_signal(signal.SIGINT)
    gc.callbacks.append(callback)
    try:
      with pytest.raises(KeyboardInterrupt):
        gc.collect()
        for _ in range(500):  # Where the signal, sent again, lands.
          time.sleep(0.01)
    finally:
      gc.callbacks.remove(callback)
  assert 'Traceback' not in capfd.readouterr().err
