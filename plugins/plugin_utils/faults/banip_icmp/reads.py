# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What fault 2 reads on OpenWrt, and how it becomes openwrt_facts' ``banip`` and ``mwan3``.

Two readings, both this fault's alone (moved here from faults/readings.py, which imports them for its ``ORDER``:
they come first in the facts, as they always have):

- ``BANIP``: whether banIP is installed (its init script), its version and default ICMP limit (``apk``/``opkg``,
  ``mwan3.parse_banip_version``), its uci settings (``uci -q show banip``, ``mwan3.banip_settings``), and its nft
  table's ICMP flood counter and limit rule (``nft -tj list table inet banIP``, text where nft has no JSON;
  ``nft.py``).
- ``MWAN3``: mwan3's interfaces (``mwan3 interfaces``, ``mwan3.parse_mwan3_interfaces``) and its tracking settings
  (``uci -q show mwan3``, ``mwan3.parse_mwan3_tracking``).

The commands run in the host's one batch (``remote/batch.py``); the gathers read their results. The redacted uci
read is ``remote/uci_reader.py``'s, shared with the ``network`` reading.
"""

from __future__ import annotations

from ansible.errors import AnsibleActionFail

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.mwan3 import (
    banip_default_icmplimit, banip_settings, parse_banip_version, parse_mwan3_interfaces, parse_mwan3_tracking)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.nft import find_icmp_limit, icmp_flood_counter, parse_nft_counters
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.reading import Read, Reading
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.batch import Step, step_name, step_of
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.uci_reader import uci_show, uci_step

# banIP's init script: the one place it is written (the fault's reasons; roles/banip_icmp/vars/main.yml, pinned by a test)
BANIP_INIT = "/etc/init.d/banip"
# banIP's nft table (banIP 0.9.5 and later, old and new counter names alike)
BANIP_TABLE = ("inet", "banIP")
# banIP is installed when its init script exists. ls, not test -e: the same answer (rc 0, else 1 in
# BusyBox, 2 in GNU ls), and a command a test can stand in for, where test is a shell builtin.
BANIP_PROBE = ["ls", "-1d", BANIP_INIT]
BANIP_PACKAGES = (("apk", ["apk", "list", "--installed", "banip"]), ("opkg", ["opkg", "list-installed", "banip"]))
# -t (terse): without the sets' elements, which real feeds make megabytes (banIP lists its table the same way,
# net/banip/files/banip-functions.sh@42525d32c4); the counters and rules read are the same (tests/unit/fixtures/nft_t_j_list)
NFT_JSON = ["nft", "-tj", "list", "table", *BANIP_TABLE]
NFT_TEXT = ["nft", "-t", "list", "table", *BANIP_TABLE]


def _version_and_default(text):
    return parse_banip_version(text), banip_default_icmplimit(text)


def banip_version(action):
    """``(parse_banip_version, default ICMP limit)`` from apk (OpenWrt 25.12) or opkg (before).

    ``(None, None)`` without either package manager or when neither lists banIP.
    """
    for tool, argv in BANIP_PACKAGES:
        if action.command_exists(tool):
            return action.parse_output(action.step(argv, ok_rcs=(0, 1)), _version_and_default)
    return None, None


def banip_nft(action):
    """``(nft_installed, table_loaded, counter, limit_rule)`` from banIP's nft table."""
    if not action.command_exists("nft"):
        return False, None, None, None
    res = action.step(NFT_JSON, ok_rcs=(0, 1))
    if res["rc"] == 1 and "json" in res["stderr"].lower():  # nft built without JSON support
        res = action.step(NFT_TEXT, ok_rcs=(0, 1))
    if res["rc"] == 1 and "No such file or directory" in res["stderr"]:  # banIP not started, or stopped
        return True, False, None, None
    if res["rc"] != 0:  # not root, no CAP_NET_ADMIN, ...: a real failure, not a missing table
        raise AnsibleActionFail("%s failed with rc=%s: %s" % (res["cmd"], res["rc"], res["stderr"].strip()[:500]),
                                result={"cmd": res["cmd"], "rc": res["rc"], "stderr": res["stderr"]})
    counter = icmp_flood_counter(action.parse_output(res, parse_nft_counters))  # one table listed
    return True, True, counter, action.parse_output(res, find_icmp_limit)


def _banip(action, facts, args):
    """banIP: installed, its version and default ICMP limit, its uci settings, its nft table's counter and limit rule."""
    installed = action.step(BANIP_PROBE, ok_rcs=(0, 1, 2))["rc"] == 0
    out = {"installed": installed, "version": None, "upstream_version": None,
           "icmplimit_default_per_second": None, "enabled": None, "ban_icmplimit": None,
           "icmplimit_per_second": None, "icmplimit_source": None, "settings": {},
           "nft_installed": None, "nft_table_loaded": None, "icmp_counter": None, "icmp_limit_rule": None}
    if not installed:
        return out
    version, default = banip_version(action)
    if version is not None:
        out.update(version=version["version"], upstream_version=version["upstream_version"],
                   icmplimit_default_per_second=default)
    out.update(uci_show(action, "banip", lambda text: banip_settings(text, default)))
    nft_installed, loaded, counter, rule = banip_nft(action)
    out.update(nft_installed=nft_installed, nft_table_loaded=loaded, icmp_counter=counter, icmp_limit_rule=rule)
    return out


def _banip_steps():
    """The script cannot ask the controller, so banIP's version and table are listed even when banIP turns out to be
    absent (a command nobody reads costs less than a second round trip); only ``nft list`` (a big table twice)
    waits for ``nft -j`` to fail."""
    steps = [step_of(BANIP_PROBE)]
    for tool, argv in BANIP_PACKAGES:
        steps += [step_of(["command", "-v", tool]), step_of(argv)]
    return tuple(steps + [uci_step("banip"), step_of(["command", "-v", "nft"]), step_of(NFT_JSON),
                          Step(step_name(NFT_TEXT), NFT_TEXT, after_failure=True)])


def _mwan3(action, facts, args):
    """mwan3: installed, its interfaces' status and its tracking settings."""
    if not action.command_exists("mwan3"):
        return {"installed": False, "interfaces": {}, "tracking": {}}
    status = action.parse_output(action.step(["mwan3", "interfaces"]), parse_mwan3_interfaces)
    return {"installed": True, "interfaces": status, "tracking": uci_show(action, "mwan3", parse_mwan3_tracking)}


BANIP = Reading("banip", {"openwrt": Read(steps=_banip_steps(), gather=_banip)})
MWAN3 = Reading("mwan3", {"openwrt": Read(steps=(Step("command -v mwan3", ["command", "-v", "mwan3"]),
                                                 Step("mwan3 interfaces", ["mwan3", "interfaces"]), uci_step("mwan3")),
                                          gather=_mwan3)})
