# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the TCP-stack faults read on Linux: the ``tcp`` and ``netns`` readings, and the view's TCP facts.

The family's one reading module: fault 3 (this folder), ``buffer_below_bdp``, the kernel and container limits
(``kernel_without_bbr``, ``cc_in_container``, ``sch_fq_missing``) and ``tcp_fix_undone_at_boot`` declare these
readings and take the facts through the accessors here; no other fault reads them.

- ``TCP``: tunnel_facts' ``tcp`` (``TcpReader.gather_tcp``, remote/tcp_reader.py): every sysctl of the TCP stack,
  the kernel modules tcp_bbr and sch_fq, the drop-ins that set the managed keys, every sysctl file the boot
  applies (parse/sysctl_boot.py) and the files that load tcp_bbr at boot.
- ``NETNS``: tunnel_facts' ``netns`` (``TcpReader.gather_netns``): whether the host runs in a child network
  namespace, and which container.

The reader stays in remote/ (remote/tcp_reader.py): linux_bbr_fq's tcp_tuning action reads the same stack
through it, so the fix decides from what the fault read. openwrt_facts reads neither (its batch would not fit
dropbear's command line): a router's TCP stack is not judged.
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import is_router, not_checked
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.reading import Read, Reading
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.tcp_reader import tcp_read_steps


def _tcp(action, facts, args):
    """The TCP stack and what sets it at boot (``TcpReader.gather_tcp``: linux_bbr_fq's tcp_tuning reads alike)."""
    return action.gather_tcp()


def _netns(action, facts, args):
    """Whether the host runs in a child network namespace, and which container (``TcpReader.gather_netns``)."""
    return action.gather_netns()


TCP = Reading("tcp", {"linux": Read(steps=tuple(tcp_read_steps(tcp=True, netns=False)), gather=_tcp)})
NETNS = Reading("netns", {"linux": Read(steps=tuple(tcp_read_steps(tcp=False, netns=True)), gather=_netns)})


def tcp_netns(view):
    """(tcp facts, netns facts, the available congestion controls) or None when they were not read."""
    facts = view.get("tunnelfix") or {}
    tcp, netns = facts.get("tcp") or {}, facts.get("netns") or {}
    available = tcp.get("congestion_control_available")
    if not tcp or not isinstance(available, list):  # not read (or junk): no guess about the kernel
        return None
    return tcp, netns, available


def tcp_stack_read(view):
    """None when the TCP stack was read, else Fault.coverage's not_checked with the reason (a router's facts lack it)."""
    if tcp_netns(view) is not None:
        return None
    return not_checked("the TCP stack was not read (openwrt_facts does not read it)" if is_router(view)
                       else "the TCP stack was not read")


def child_netns(view) -> bool:
    """Whether the facts say the host runs in a child network namespace (a container)."""
    return bool(((view.get("tunnelfix") or {}).get("netns") or {}).get("child_netns"))
