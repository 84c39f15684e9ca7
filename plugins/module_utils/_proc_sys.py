# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read kernel parameters from /proc/sys (the one I/O helper the modules share; not a parser)."""

from __future__ import annotations

import os

from ansible_collections.tunnelfix.fleet.plugins.module_utils._sysctl import normalize_sysctl_value

PROC_SYS = "/proc/sys"


def sysctl_path(key):
    """``net.ipv4.tcp_rmem`` -> ``/proc/sys/net/ipv4/tcp_rmem`` (see sysctl(8): dots map to slashes)."""
    return os.path.join(PROC_SYS, *key.split("."))


def read_sysctl(key):
    """Value of a dotted sysctl key, whitespace-normalised (``"4096 131072 6291456"``).

    Returns None when the key does not exist in this kernel or network namespace (a container
    has no ``net.core.default_qdisc``) or cannot be read. Never raises for a missing key.
    """
    try:
        with open(sysctl_path(key)) as handle:
            return normalize_sysctl_value(handle.read())
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError, PermissionError):
        return None
