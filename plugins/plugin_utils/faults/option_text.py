# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What every role option check shares: how a message quotes a value, and the checks several roles make.

Pure functions. ``fix/role_options.py`` (the general roles' checks, and the table of every role's) and a fault's
own checks (``Fault.option_checks``, in the fault's folder) both import these, so a fault's check says what the
general ones say in the same words, and no fault imports ``fix/role_options.py`` (which imports the registry).
"""

from __future__ import annotations

import json
import re

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.role_specs import ROLE_OPTIONS

_DIGITS = re.compile(r"^[0-9]+$")
# what Ansible's `bool` filter and a `type: bool` option take besides true and false (-e gives strings)
_BOOLEAN_WORDS = ("true", "false", "yes", "no", "on", "off", "1", "0", "y", "n", "t", "f")


def shown(value) -> str:
    """``value | string | to_json``: ``"bbr"`` → ``'"bbr"'``, ``7`` → ``'"7"'``, ``True`` → ``'"True"'``."""
    return json.dumps(value if isinstance(value, str) else str(value))


def whole_number_in(value, low, high) -> bool:
    """True for a whole number ``low``-``high`` given as an int or a string of digits (``-e``); never a bool."""
    return not isinstance(value, bool) and bool(_DIGITS.match(str(value))) and low <= int(value) <= high


def _bool_ok(value) -> bool:
    return isinstance(value, bool) or str(value).strip().lower() in _BOOLEAN_WORDS


def bool_errors(role, options):
    """One message per option of ``role`` its argument spec types ``bool`` whose value is not true or false (by name)."""
    return ["%s must be true or false, got %s" % (name, shown(options.get(name)))
            for name, spec in sorted(ROLE_OPTIONS[role].items()) if spec["type"] == "bool" and not _bool_ok(options.get(name))]


def absolute_path_errors(options, names):
    """One message per option of ``names`` whose value is not an absolute path (a string starting with /)."""
    return ["%s must be an absolute path, got %s" % (name, shown(options.get(name)))
            for name in names if not (isinstance(options.get(name), str) and options[name].startswith("/"))]
