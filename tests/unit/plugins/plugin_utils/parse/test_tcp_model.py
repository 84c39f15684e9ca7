# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Mathis bound and the bandwidth-delay product, checked against worked numbers."""

import math

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.tcp_model import bdp_bytes, mathis_bits_per_second


def test_mathis_for_the_field_case_path():
    # 1368-byte MSS, 52 ms, 0.033 % loss: sqrt(1.5) * 10944 bit / 0.052 s / sqrt(0.00033)
    assert mathis_bits_per_second(1368, 52, 0.00033) == pytest.approx(14.19e6, rel=1e-3)


def test_mathis_scales_with_inverse_square_root_of_loss_and_inverse_rtt():
    base = mathis_bits_per_second(1448, 50, 0.01)
    assert mathis_bits_per_second(1448, 50, 0.0025) == pytest.approx(2 * base)
    assert mathis_bits_per_second(1448, 100, 0.01) == pytest.approx(base / 2)
    assert mathis_bits_per_second(1448, 50, 0.01, c=1) == pytest.approx(base / math.sqrt(1.5))


def test_bdp_of_the_lab_path():
    assert bdp_bytes(40e6, 50) == 250000.0
    assert bdp_bytes(0, 50) == 0.0


@pytest.mark.parametrize("args, named", [
    ((1368, 52, 0), "loss_ratio"), ((1368, 52, 1.5), "loss_ratio"), ((1368, 0, 0.01), "rtt_ms"),
    ((0, 52, 0.01), "mss_bytes"), (("1368", 52, 0.01), "mss_bytes"), ((1368, float("nan"), 0.01), "rtt_ms"),
    ((True, 52, 0.01), "mss_bytes"), ((10 ** 400, 52, 0.01), "mss_bytes"),
    ((1368, 52, 0.01, 0), "c"), ((1368, 52, 0.01, float("nan")), "c")])
def test_mathis_refuses_bad_input_naming_it(args, named):
    # the argument's own name, as a word (not inside another word)
    with pytest.raises(ValueError, match=r"\b%s\b" % named):
        mathis_bits_per_second(*args)


@pytest.mark.parametrize("args, named", [((-1, 50), "bits_per_second"), ((40e6, -5), "rtt_ms"), ((None, 5), "bits_per_second")])
def test_bdp_refuses_bad_input_naming_it(args, named):
    with pytest.raises(ValueError, match=r"\b%s\b" % named):
        bdp_bytes(*args)
