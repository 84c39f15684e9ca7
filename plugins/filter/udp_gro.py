# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter plugins: udp_gro_forwarding_plan, udp_gro_forwarding_hook_probe (documentation in the .yml twins)."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.udp_gro_forwarding.hook_probe import parse_hook_probe
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.udp_gro_forwarding.plan import udp_gro_plan


def _udp_gro_facts(value):
    """The ``udp_gro`` facts from host_facts' registered result (Linux or router), or the facts themselves."""
    if isinstance(value, dict) and isinstance(value.get("ansible_facts"), dict):
        for key in ("tunnelfix", "tunnelfix_openwrt"):
            facts = (value["ansible_facts"].get(key) or {}).get("udp_gro")
            if isinstance(facts, dict):
                return facts
        raise AnsibleFilterError("udp_gro_forwarding_plan: the facts result has no udp_gro subset (%s)"
                                 % (value.get("msg") or "gather_subset without udp_gro"))
    return value


def udp_gro_forwarding_plan(facts, device="", gateway_timeout_s=30):
    """host_facts' result (or its udp_gro facts) -> the role's plan (faults/udp_gro_forwarding/plan.py); ValueError -> AnsibleFilterError."""
    try:
        return udp_gro_plan(_udp_gro_facts(facts), "" if device is None else device, int(gateway_timeout_s))
    except (ValueError, TypeError) as exc:
        raise AnsibleFilterError("udp_gro_forwarding: %s" % exc) from None


def udp_gro_forwarding_hook_probe(text):
    """The role's Linux probe output -> how to re-apply on interface events (faults/udp_gro_forwarding/hook_probe.py)."""
    try:
        return parse_hook_probe(text)
    except ParseError as exc:
        raise AnsibleFilterError("udp_gro_forwarding_hook_probe: %s" % exc) from None


class FilterModule:
    """tunnelfix.fleet UDP GRO forwarding filters."""

    def filters(self):
        return {"udp_gro_forwarding_plan": udp_gro_forwarding_plan,
                "udp_gro_forwarding_hook_probe": udp_gro_forwarding_hook_probe}
