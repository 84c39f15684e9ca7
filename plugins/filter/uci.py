# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter plugins: uci_show_redacted_command (docs in the .yml twin)."""

from __future__ import annotations

import re
import shlex

from ansible.errors import AnsibleFilterError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.redact import uci_show_redacted_argv

_TARGET = re.compile(r"[A-Za-z0-9_-]+(\.[A-Za-z0-9_@\[\]-]+){0,2}")


def uci_show_redacted_command(target):
    """``"network"`` → the sh command line of ``uci -q show network`` with secrets replaced on the router."""
    if not isinstance(target, str) or not _TARGET.fullmatch(target):
        raise AnsibleFilterError("uci_show_redacted_command: target must be config[.section[.option]], got %r" % (target,))
    return shlex.join(uci_show_redacted_argv(target))


class FilterModule:
    """tunnelfix.fleet uci filters."""

    def filters(self):
        return {"uci_show_redacted_command": uci_show_redacted_command}
