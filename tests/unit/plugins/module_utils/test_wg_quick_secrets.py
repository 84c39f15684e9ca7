"""Key material never leaves redact_wg_quick or a ParseError, however the file hides it."""
import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._wg_quick import (
    parse_wg_quick_peers,
    redact_wg_quick,
    set_wg_quick_keepalive,
)

PRIVATE = "K" * 43 + "="
PUBLIC = "A" * 43 + "="


@pytest.mark.parametrize("line", [
    "PrivateKey =\u00a0%s\n" % PRIVATE,
    "# old PrivateKey: %s\n" % PRIVATE,
    "#PrivateKey_old = %s\n" % PRIVATE,
    "PostUp = wg set %%i private-key <(echo %s)\n" % PRIVATE,
    "PrivateKey=%s\n" % PRIVATE,
    "PresharedKey = %s\r\n" % PRIVATE,
])
def test_hidden_keys_are_redacted(line):
    redacted = redact_wg_quick("[Interface]\n" + line)
    assert PRIVATE not in redacted
    assert "<redacted>" in redacted


def test_public_key_lines_stay_readable():
    text = "[Peer]\nPublicKey = %s\n" % PUBLIC
    assert redact_wg_quick(text) == text


def test_mistyped_public_key_is_not_quoted_in_the_error():
    text = "[Peer]\nPublicKey = %s=\n" % PRIVATE
    with pytest.raises(ParseError) as error:
        parse_wg_quick_peers(text)
    assert PRIVATE[:20] not in str(error.value)


def test_crlf_file_without_final_newline_stays_crlf():
    text = "[Peer]\r\nEndpoint = 192.0.2.1:51820\r\nPublicKey = %s" % PUBLIC
    new_text, changed = set_wg_quick_keepalive(text, 25, None)
    assert changed == [PUBLIC]
    assert new_text == "[Peer]\r\nEndpoint = 192.0.2.1:51820\r\nPublicKey = %s\r\nPersistentKeepalive = 25" % PUBLIC
