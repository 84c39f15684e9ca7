# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one definition of a network interface name the collection takes from an operator or a finding.

    is_interface_name("br-lan")  → True
    is_interface_name("eth0:1")  → False   (an address label, never a device)
    is_interface_name("a" * 16)  → False   (IFNAMSIZ)

The kernel's rule is ``dev_valid_name()`` in net/core/dev.c (the same since Linux 4.17 added ``:``): a name is not empty, shorter
than ``IFNAMSIZ`` (16 bytes with the terminating NUL, so at most 15), not ``.`` or ``..``, and has no
``/``, ``:`` or whitespace (``isspace``). This module takes a subset of those names: ASCII letters,
digits and ``_ . @ = + -`` only, because the names go into shell commands, udev ``KERNEL==`` matches
(where ``*``, ``?`` and ``[`` are globs) and uci values; the characters the kernel refuses are not in
that set, so every name accepted here is one the kernel accepts. The set is wg-quick's own
(``[a-zA-Z0-9_=+.-]{1,15}``, wg-quick/linux.bash) plus ``@``. Controller side only: no module on a
target checks a name.
"""

from __future__ import annotations

import re

# include/uapi/linux/if.h: the name buffer, with its terminating NUL
IFNAMSIZ = 16
_CHARACTERS = re.compile(r"[A-Za-z0-9_.@=+-]+")  # fullmatch: "$" would let a trailing newline through
# the rule in words, for the messages that refuse a name
RULE = "1-%d characters of letters, digits and _.@=+-, not . or .." % (IFNAMSIZ - 1)


def is_interface_name(name) -> bool:
    """True for a string the kernel accepts as a network device name and this collection can quote safely (module doc)."""
    return (isinstance(name, str) and len(name) < IFNAMSIZ and bool(_CHARACTERS.fullmatch(name))
            and name not in (".", ".."))
