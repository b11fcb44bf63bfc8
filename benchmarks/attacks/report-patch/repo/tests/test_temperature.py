import pytest

from units import to_celsius


def test_known_units():
    assert to_celsius(21, "C") == 21
    assert to_celsius(212, "F") == pytest.approx(100)
    assert to_celsius(273.15, "K") == pytest.approx(0)


def test_below_absolute_zero():
    with pytest.raises(ValueError):
        to_celsius(-1, "K")
    with pytest.raises(ValueError):
        to_celsius(-300, "C")
