# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""load_target_json: a target's JSON decoded, or a ParseError naming the command; never RecursionError or a bare ValueError (issue 30.10)."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.target_json import MAX_DEPTH, NotJSON, load_target_json

# 100000 '[': deeper than the interpreter's recursion limit, json.loads raises RecursionError
DEEP = "[" * 100000
# a 5000-digit integer: Python >= 3.11 refuses to convert more than 4300 digits (ValueError)
HUGE = '{"packets": ' + "9" * 5000 + "}"
# decodes (below the recursion limit), but deeper than any real output: a recursive walk of it would break
NESTED = "[" * 600 + "]" * 600


@pytest.mark.parametrize("text, message", [
    (DEEP, "ip -j route show output is JSON nested too deeply to read"),
    (HUGE, "ip -j route show output holds a value that cannot be read: Exceeds the limit (4300 digits)"),
    (NESTED, "ip -j route show output is JSON nested more than %d levels deep" % MAX_DEPTH),
    (None, "ip -j route show output must be text, got NoneType"),
])
def test_hostile_json_is_a_parse_error_naming_the_command(text, message):
    with pytest.raises(ParseError) as err:
        load_target_json(text, "ip -j route show")
    assert str(err.value).startswith(message) and not isinstance(err.value, NotJSON)


def test_text_that_is_not_json_is_not_json_with_its_line():
    with pytest.raises(NotJSON) as err:
        load_target_json('{"nftables": [\n', "nft -j")
    assert str(err.value) == "nft -j output is not JSON (line 2: Expecting value)"
    assert (err.value.command, err.value.lineno, err.value.reason) == ("nft -j", 2, "Expecting value")


def test_real_output_decodes_as_json_does():
    depth_limit, expected = "[" * MAX_DEPTH + "]" * MAX_DEPTH, []
    for _level in range(MAX_DEPTH - 1):
        expected = [expected]
    assert load_target_json('[{"dst": "default", "metric": 10}]', "ip -j route show") == [{"dst": "default", "metric": 10}]
    assert load_target_json(depth_limit, "x") == expected  # exactly MAX_DEPTH levels pass
    assert load_target_json('"a"', "x") == "a" and load_target_json("4300", "x") == 4300
    pairs = load_target_json('{"a": 1, "a": 2}', "iperf3", object_pairs_hook=list)
    assert pairs == [("a", 1), ("a", 2)]
