# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""parse_derived_public_key: what wg pubkey printed on the router for a uci interface's private_key."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.openwrt_wireguard import parse_derived_public_key


def test_recorded_output(load_fixture):
    assert parse_derived_public_key(load_fixture("wg_pubkey", "uci_private_key_dash.txt")) == "KqZKDyb1mqH6xV+14sEyq/R15Hy5/OuNkCxm2CcC72c="


@pytest.mark.parametrize("text", ["", "\n", "  \n"])
def test_nothing_is_not_known(text):
    """wg missing, no private_key, or one wg rejects: nothing printed."""
    assert parse_derived_public_key(text) is None


@pytest.mark.parametrize("text", ["wg: Key is not the correct length or format\n", "A" * 43 + "=" + "\n" + "B" * 44,
                                  "A" * 42 + "==", "A" * 43 + "-"])
def test_anything_else_is_an_error_that_does_not_echo_it(text):
    with pytest.raises(ParseError, match="characters that are not one public key") as error:
        parse_derived_public_key(text)
    assert text.strip() not in str(error.value)


def test_not_text():
    with pytest.raises(ParseError, match="must be text"):
        parse_derived_public_key(None)
