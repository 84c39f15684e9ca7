# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""uci_show_redacted_command: the raw command line that redacts on the router."""

import shlex

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.tunnelfix.fleet.plugins.filter.uci import uci_show_redacted_command
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.redact import uci_show_redacted_argv


def test_command_line_is_the_redacting_script():
    assert shlex.split(uci_show_redacted_command("network")) == uci_show_redacted_argv("network")


@pytest.mark.parametrize("target", ["", "network; reboot", "$(id)", 42, None, "a.b.c.d", "network\n"])
def test_bad_target_is_refused_naming_it(target):
    with pytest.raises(AnsibleFilterError, match="target must be config"):
        uci_show_redacted_command(target)
