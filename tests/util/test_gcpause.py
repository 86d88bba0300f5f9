"""The collector pause around bulk ledger passes restores the collector's state."""

import gc

import pytest

from evaluator.util import gcpause


def test_pause_turns_the_collector_off_and_back_on_even_on_error():
    assert gc.isenabled()
    with pytest.raises(RuntimeError), gcpause.paused():
        assert not gc.isenabled()
        with gcpause.paused():  # nested: the inner pause must not switch it back on
            pass
        assert not gc.isenabled()
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_pause_leaves_a_disabled_collector_disabled():
    gc.disable()
    try:
        with gcpause.paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
