# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""parse_file_probe, normalize_mode, marked_block."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.text_file import (
    EOF_MARK, marked_block, normalize_mode, parse_file_probe)

RC_LOCAL = "# Put your custom commands here\n\nexit 0\n"
BLOCK = "/usr/sbin/tunnelfix-bridge-offload br-lan"
WITH_BLOCK = ("# Put your custom commands here\n\n# BEGIN tf\n/usr/sbin/tunnelfix-bridge-offload br-lan\n"
              "# END tf\nexit 0\n")


@pytest.mark.parametrize("text, expected", [
    ("present\n644\n#!/bin/sh\n" + EOF_MARK, {"exists": True, "mode": "0644", "content": "#!/bin/sh\n"}),
    ("present\n755\n" + EOF_MARK, {"exists": True, "mode": "0755", "content": ""}),
    ("present\n4755\nno newline" + EOF_MARK + "\n", {"exists": True, "mode": "4755", "content": "no newline"}),
    ("absent\n", {"exists": False, "mode": None, "content": None}),
])
def test_parse_file_probe(text, expected):
    assert parse_file_probe(text) == expected


@pytest.mark.parametrize("text, message", [
    ("present\n644\n#!/bin/sh\n", "does not end with"),
    ("present\nrw-r--r--\nx" + EOF_MARK, "octal mode on line 2"),
    ("sh: stat: not found\n", "expected 'present' or 'absent'"),
    (None, "must be text"),
])
def test_parse_file_probe_errors(text, message):
    with pytest.raises(ParseError, match=message):
        parse_file_probe(text)


@pytest.mark.parametrize("mode, expected", [("755", "0755"), ("0644", "0644"), ("4755", "4755")])
def test_normalize_mode(mode, expected):
    assert normalize_mode(mode) == expected


@pytest.mark.parametrize("mode", ["rwx", "0999", "7", 755, None])
def test_normalize_mode_errors(mode):
    with pytest.raises(ParseError, match="mode must be an octal string"):
        normalize_mode(mode)


@pytest.mark.parametrize("text, block, insert_before, expected", [
    (RC_LOCAL, BLOCK, "^exit 0", WITH_BLOCK),
    (WITH_BLOCK, BLOCK, "^exit 0", WITH_BLOCK),  # idempotent
    (WITH_BLOCK, "/usr/sbin/tunnelfix-bridge-offload br-lan br-guest", "^exit 0",
     WITH_BLOCK.replace("br-lan\n", "br-lan br-guest\n")),
    ("# no exit\n", BLOCK, "^exit 0", "# no exit\n# BEGIN tf\n%s\n# END tf\n" % BLOCK),
    ("", BLOCK, None, "# BEGIN tf\n%s\n# END tf\n" % BLOCK),
    ("exit 0", "a\nb\n", "^exit 0", "# BEGIN tf\na\nb\n# END tf\nexit 0\n"),
])
def test_marked_block(text, block, insert_before, expected):
    assert marked_block(text, block, "tf", insert_before) == expected


@pytest.mark.parametrize("text, insert_before, message", [
    ("# BEGIN tf\nx\n", None, "1 '# BEGIN tf' and 0 '# END tf' lines"),
    ("# END tf\n# BEGIN tf\n", None, "expected one of each, in that order"),
    ("# BEGIN tf\n# END tf\n# BEGIN tf\n# END tf\n", None, "2 '# BEGIN tf'"),
    ("exit 0\n", "(", "insert_before '\\(' is not a regular expression"),
])
def test_marked_block_errors(text, insert_before, message):
    with pytest.raises(ParseError, match=message):
        marked_block(text, BLOCK, "tf", insert_before)
