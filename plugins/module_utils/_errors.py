# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one exception every parser in tunnelfix.fleet raises.

Callers translate it once at their boundary: a module calls ``fail_json(msg=str(exc))``, an
action plugin raises ``AnsibleActionFail``, a filter raises ``AnsibleFilterError``.
"""

from __future__ import annotations


class ParseError(ValueError):
    """Input does not have the expected format, or an argument is out of range.

    The message names what was expected and where (line number, key, field) and is safe to
    show to an operator: parsers never put secrets (private or preshared keys) into it.
    Subclasses add structured detail (for example ``_iperf3.Iperf3Error.retryable``).
    """
