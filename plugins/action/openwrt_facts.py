# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Gather banIP and mwan3 facts on OpenWrt, with no Python on the router.

Documentation: plugins/modules/openwrt_facts.py (``ansible-doc tunnelfix.fleet.openwrt_facts``).
All parsing is in module_utils (_mwan3, _nft, _uci); this file only decides which commands to
run and puts the parsed results together. A missing tool is reported, never a failure.
"""

from __future__ import annotations

from ansible.errors import AnsibleActionFail

from ansible_collections.tunnelfix.fleet.plugins.module_utils._mwan3 import (
    banip_default_icmplimit, banip_settings, parse_banip_version, parse_mwan3_interfaces, parse_mwan3_tracking)
from ansible_collections.tunnelfix.fleet.plugins.module_utils._nft import (
    find_icmp_limit, icmp_flood_counter, parse_nft_counters)
from ansible_collections.tunnelfix.fleet.plugins.module_utils._subset import resolve_gather_subset
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils._openwrt_action import OpenWrtActionBase

SUBSETS = ("banip", "mwan3")
BANIP_INIT = "/etc/init.d/banip"
# banIP's nft table (banIP 0.9.5 and later, old and new counter names alike)
BANIP_TABLE = ("inet", "banIP")


def _version_and_default(text):
    return parse_banip_version(text), banip_default_icmplimit(text)


class ActionModule(OpenWrtActionBase):
    """The ``tunnelfix.fleet.openwrt_facts`` action."""

    ARGUMENT_SPEC = {
        "gather_subset": {"type": "list", "elements": "str", "default": ["all"]},
    }

    def run_openwrt(self, args, task_vars):
        subsets = resolve_gather_subset(args["gather_subset"], SUBSETS)
        facts = {}
        if "banip" in subsets:
            facts["banip"] = self.gather_banip()
        if "mwan3" in subsets:
            facts["mwan3"] = self.gather_mwan3()
        return {"changed": False, "ansible_facts": {"tunnelfix_openwrt": facts}}

    def uci_show(self, config, parser):
        """``parser(uci -q show CONFIG)``; a missing config (rc 1) parses as empty output."""
        res = self.run_command(["uci", "-q", "show", config], ok_rcs=(0, 1))
        if res["rc"] == 1:
            res = dict(res, stdout="")
        return self.parse_output(res, parser)

    def banip_version(self):
        """``(parse_banip_version, default ICMP limit)`` from apk (OpenWrt 25.12) or opkg (before).

        ``(None, None)`` without either package manager or when neither lists banIP.
        """
        for tool, argv in (("apk", ["apk", "list", "--installed", "banip"]), ("opkg", ["opkg", "list-installed", "banip"])):
            if self.command_exists(tool):
                return self.parse_output(self.run_command(argv, ok_rcs=(0, 1)), _version_and_default)
        return None, None

    def banip_nft(self):
        """``(nft_installed, table_loaded, counter, limit_rule)`` from banIP's nft table."""
        if not self.command_exists("nft"):
            return False, None, None, None
        family, table = BANIP_TABLE
        res = self.run_command(["nft", "-j", "list", "table", family, table], ok_rcs=(0, 1))
        if res["rc"] == 1 and "json" in res["stderr"].lower():  # nft built without JSON support
            res = self.run_command(["nft", "list", "table", family, table], ok_rcs=(0, 1))
        if res["rc"] == 1 and "No such file or directory" in res["stderr"]:  # banIP not started, or stopped
            return True, False, None, None
        if res["rc"] != 0:  # not root, no CAP_NET_ADMIN, ...: a real failure, not a missing table
            raise AnsibleActionFail("%s failed with rc=%s: %s" % (res["cmd"], res["rc"], res["stderr"].strip()[:500]),
                                    result={"cmd": res["cmd"], "rc": res["rc"], "stderr": res["stderr"]})
        counter = icmp_flood_counter(self.parse_output(res, parse_nft_counters))  # one table listed
        return True, True, counter, self.parse_output(res, find_icmp_limit)

    def gather_banip(self):
        installed = self.run_command(["test", "-e", BANIP_INIT], ok_rcs=(0, 1))["rc"] == 0
        facts = {"installed": installed, "version": None, "upstream_version": None,
                 "icmplimit_default_per_second": None, "enabled": None, "ban_icmplimit": None,
                 "icmplimit_per_second": None, "icmplimit_source": None, "settings": {},
                 "nft_installed": None, "nft_table_loaded": None, "icmp_counter": None, "icmp_limit_rule": None}
        if not installed:
            return facts
        version, default = self.banip_version()
        if version is not None:
            facts.update(version=version["version"], upstream_version=version["upstream_version"],
                         icmplimit_default_per_second=default)
        facts.update(self.uci_show("banip", lambda text: banip_settings(text, default)))
        nft_installed, loaded, counter, rule = self.banip_nft()
        facts.update(nft_installed=nft_installed, nft_table_loaded=loaded, icmp_counter=counter, icmp_limit_rule=rule)
        return facts

    def gather_mwan3(self):
        if not self.command_exists("mwan3"):
            return {"installed": False, "interfaces": {}, "tracking": {}}
        status = self.run_and_parse(["mwan3", "interfaces"], parse_mwan3_interfaces)
        return {"installed": True, "interfaces": status, "tracking": self.uci_show("mwan3", parse_mwan3_tracking)}
