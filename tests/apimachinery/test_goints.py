"""Go's fixed-width integers wrap (apimachinery/goints.py)."""
from kexplain.apimachinery.goints import wrap


def test_wrap_is_twos_complement():
    assert wrap(2147483647, 32) == 2147483647 and wrap(2147483648, 32) == -2147483648
    assert wrap(4294967296, 32) == 0 and wrap(-1, 32) == -1
    assert wrap(9223372037 * 10**9, 64) < 0 and wrap(18446744074 * 10**9, 64) == 290448384
