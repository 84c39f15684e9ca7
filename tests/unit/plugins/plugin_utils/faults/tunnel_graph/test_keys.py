# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""keys.py: what counts as a key, what looks like a generated private key, and the placeholder shown instead of one."""

import base64

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.keys import clamped, placeholder, public_key_of


def _raw(first, last):
    return bytes([first] + [0] * 30 + [last])


@pytest.mark.parametrize("first, last, looks_generated", [
    (0x00, 0x40, True),
    (0x08, 0x40, True),      # bit 3 of the first byte is free; only the low three are cleared
    (0xF8, 0x7F, True),
    (0x01, 0x40, False),     # a low bit set
    (0x04, 0x40, False),
    (0x00, 0x41, True),      # the low bits of the last byte are free
    (0x00, 0x00, False),     # bit 6 of the last byte must be set
    (0x00, 0xC0, False),     # bit 7 must be clear
    (0x01, 0x00, False),     # both wrong
])
def test_clamped_reads_both_ends_of_the_key(first, last, looks_generated):
    assert clamped(_raw(first, last)) is looks_generated


@pytest.mark.parametrize("value", [
    None, 42, "", "A" * 43,
    "A" * 42 + "==",          # 44 characters, 31 bytes
    "A" * 44,                 # 44 characters, 33 bytes
    "A" * 42 + "!=",          # not base64
])
def test_what_is_no_key_gives_no_public_key(value):
    assert public_key_of(value) is None


def test_a_key_of_32_bytes_gives_a_public_key_of_32_bytes():
    public = public_key_of(base64.b64encode(_raw(0x00, 0x40)).decode())
    assert len(public) == 44 and len(base64.b64decode(public)) == 32


def test_the_placeholder_names_the_host_and_the_interface_after_the_last_slash():
    assert placeholder("hub/wg0") == "(the private key of hub's wg0, not shown)"
    assert placeholder("dc1/hub/wg0") == "(the private key of dc1/hub's wg0, not shown)"
