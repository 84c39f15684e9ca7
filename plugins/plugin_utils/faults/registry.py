# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fault registry: every fault in fix order, and what diagnose, remediate and verify do with it.

``FAULTS`` lists the fault definitions (one file per field fault in this package) in the order
remediate applies their fixes: banIP before the endpoint route (mwan3's view of the uplinks must be
right before a route is re-pointed), keepalive, the tunnel's MTU (measured on the path the endpoint route
now takes, and right before any throughput judges the TCP stack), the TCP stack, bridges and tunnels; the faults no role fixes
last (kernel and container limits, a sysctl file that undoes the TCP fix at boot). Nothing outside
this package names a finding id or a fixing role. What the facts actions read is what these faults
declare (``Fault.facts``, ``readings(platform)``): a fault that needs a new reading changes no action. The
measuring roles diagnose and verify run besides the general ones are what these faults declare (``Fault.measure_role``,
``measuring_roles()``): a fault with a measuring role of its own changes no playbook.

A *view* is one host's facts and measurements (every key optional; filter ``host_view``, with the measurement
records the faults declare: ``view_records()``)::

    {"groups": ["tunnelfix_wireguard_peers"], "tunnel_hub": "hub",
     "tunnelfix": tunnel_facts' facts, "openwrt": openwrt_facts' facts,
     "measurement": tunnel_measure_record, "health_checks": health_check_measure_record,
     "sweep": tunnel_sweep_record, "path_bits_per_second": 40e6, "preferred_uplink_device": "eth1"}

A *finding* (``find_findings``; reports/findings.json)::

    {"id": "nat_peer_without_keepalive", "severity": "critical", "host": "peer",
     "fix_role": "tunnelfix.fleet.wireguard_keepalive" | None, "fix_vars": {...} (only where the role needs it),
     "evidence": {...numbers, units in the names...}, "explanation": "one paragraph"}

A missing fact gives no finding (the rules never guess); ``diagnosis`` says so. reports/findings.json
is its document, one status per host of the run and fault::

    {"format": "tunnelfix.findings/2", "hosts": ["owrt", "peer"],
     "checks": {"peer": {"nat_peer_without_keepalive": {"status": "found" | "clear" | "not_checked",
                                                        "reason": None | "its hub hub is not in this run"}, ...}},
     "findings": [finding, ...],
     "tunnel_graph": {...}}   # every host's tunnels and their states: tunnel_graph/export.py (built once per run)

Every function here that takes findings takes that document or the bare list (an older findings.json).
"""

from __future__ import annotations

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.bitrate import to_bits_per_second
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.fault import BANIP_ICMP_LIMIT
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.bridge_offload.fault import BRIDGE_OFFLOAD_SMALL_MTU_TUNNEL
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.buffer_below_bdp.fault import BUFFER_BELOW_BDP
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.cc_in_container.fault import CONGESTION_CONTROL_RESTRICTED_IN_CONTAINER
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.endpoint_route.fault import ENDPOINT_ROUTE_PINNED
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.fault import SEVERITIES, is_true, one_paragraph
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.kernel_without_bbr.fault import KERNEL_WITHOUT_BBR
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.loss_sensitive_cc.fault import LOSS_SENSITIVE_CONGESTION_CONTROL
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.nat_peer_keepalive.fault import NAT_PEER_WITHOUT_KEEPALIVE
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.path_mtu.fault import PATH_MTU_BLACK_HOLE
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.reading import platform_readings
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.readings import ORDER
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.sch_fq_missing.fault import SCH_FQ_MISSING
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.stale_despite_keepalive.fault import STALE_DESPITE_KEEPALIVE
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tcp_fix_undone_at_boot.fault import TCP_FIX_UNDONE_AT_BOOT
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.export import graph_export
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.fault import (
    ALLOWED_IPS_OVERLAP, ALLOWED_IPS_SHADOW_LAN, DUPLICATE_PUBLIC_KEY, ENDPOINT_PORT_MISMATCH, HANDSHAKE_NEVER_COMPLETES,
    KEEPALIVE_ON_WRONG_SIDE, NO_ENDPOINT_EITHER_SIDE, ONE_SIDED_PEER, PUBLIC_KEY_MISMATCH, RETURN_PATH_NOT_ALLOWED)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.fault import ENDPOINT_ADDRESS_MISMATCH
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_graph.graph import graph_of
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.tunnel_offload.fault import TUNNEL_OFFLOAD_SMALL_MTU
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.udp_gro_forwarding.fault import UDP_GRO_FORWARDING_OFF
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.view import host_view, records_of

FAULTS = (BANIP_ICMP_LIMIT, ENDPOINT_ROUTE_PINNED, NAT_PEER_WITHOUT_KEEPALIVE, STALE_DESPITE_KEEPALIVE, PATH_MTU_BLACK_HOLE,
          LOSS_SENSITIVE_CONGESTION_CONTROL, BUFFER_BELOW_BDP, BRIDGE_OFFLOAD_SMALL_MTU_TUNNEL, TUNNEL_OFFLOAD_SMALL_MTU,
          UDP_GRO_FORWARDING_OFF,
          KERNEL_WITHOUT_BBR, CONGESTION_CONTROL_RESTRICTED_IN_CONTAINER, SCH_FQ_MISSING, TCP_FIX_UNDONE_AT_BOOT, ONE_SIDED_PEER,
          DUPLICATE_PUBLIC_KEY, NO_ENDPOINT_EITHER_SIDE, ENDPOINT_PORT_MISMATCH, RETURN_PATH_NOT_ALLOWED,
          KEEPALIVE_ON_WRONG_SIDE, HANDSHAKE_NEVER_COMPLETES, ALLOWED_IPS_OVERLAP, ALLOWED_IPS_SHADOW_LAN,
          ENDPOINT_ADDRESS_MISMATCH, PUBLIC_KEY_MISMATCH)
BY_ID = {fault.id: fault for fault in FAULTS}
# The fixing roles in the order remediate runs them (a role's place: its first fault in FAULTS).
FIX_ROLES = tuple(dict.fromkeys(fault.fix_role for fault in FAULTS if fault.fix_role))
# Per fixing role, the inventory groups its faults let it run on.
FIX_GROUPS = {role: frozenset(group for fault in FAULTS if fault.fix_role == role for group in fault.fix_groups)
              for role in FIX_ROLES}
# Per fixing role, the groups remediate's every-role mode runs it on: those of its faults that every-role mode runs it for
# (Fault.fix_every_role; a fault fixed only from a finding widens FIX_GROUPS, never these).
EVERY_ROLE_GROUPS = {role: frozenset(group for fault in FAULTS if fault.fix_role == role and fault.fix_every_role
                                     for group in fault.fix_groups) for role in FIX_ROLES}
# The role variables a finding may carry (remediate sets them as host facts: nothing else from a file).
FIX_VAR_NAMES = frozenset(name for fault in FAULTS for name in fault.fix_var_names)
# Per fixing role, the variables its faults' findings may set (Fault.fix_var_names).
ROLE_VAR_NAMES = {role: frozenset(name for fault in FAULTS if fault.fix_role == role for name in fault.fix_var_names)
                  for role in FIX_ROLES}
# Per opt-in fixing role, the variable the operator must set true before remediate runs it (Fault.fix_opt_in).
FIX_OPT_IN = {fault.fix_role: fault.fix_opt_in for fault in FAULTS if fault.fix_role and fault.fix_opt_in}
# Per fixing role, the variable that set false leaves its change runtime only, lost at reboot (Fault.fix_persist).
FIX_PERSIST = {fault.fix_role: fault.fix_persist for fault in FAULTS if fault.fix_role and fault.fix_persist}
# A peer's single flow after the fix must keep this share of diagnose's single flow (no regression),
# where no finding of the host sets a higher floor; the share leaves room for run-to-run noise.
NO_REGRESSION_SHARE = 0.7
# With neither a finding's floor nor a before measurement: this share of the path's known rate.
PATH_SHARE_FLOOR = 0.5
OUTCOMES = ("fixed", "still_present", "not_checked", "new")
STATUSES = ("found", "clear", "not_checked")
FINDINGS_FORMAT = "tunnelfix.findings/2"


def readings(platform) -> list:
    """What the facts actions read on ``platform`` (``reading.PLATFORMS``): every reading a fault of ``FAULTS`` declares
    (``Fault.facts``) that applies there, with what those need, in gather order (``reading.platform_readings``)."""
    return platform_readings(FAULTS, platform, ORDER)


def view_records() -> tuple:
    """The measurement records a host's view holds (``view.Record``): what the faults of ``FAULTS`` declare
    (``Fault.records``), each once; read at each call, so the view follows the registry. Raises ValueError on two
    declarations that disagree (``view.records_of``)."""
    return records_of(FAULTS)


def measuring_roles() -> tuple:
    """The faults' own measuring roles (``Fault.measure_role``: FQCNs, each once, in ``FAULTS`` order), which diagnose
    and verify run on every fleet host through the lookup ``tunnelfix.fleet.measuring_roles``; read at each call, so
    the playbooks follow the registry: ``("tunnelfix.fleet.path_mtu_measure",)`` with today's faults."""
    return tuple(dict.fromkeys(fault.measure_role for fault in FAULTS if fault.measure_role))


def _check_views(views):
    if not isinstance(views, dict):
        raise ValueError("views must be a dict of host -> view (dict), got %s" % type(views).__name__)
    for host, view in views.items():
        if not isinstance(host, str) or not host:
            raise ValueError("views: a host name must be a non-empty string, got %r" % (host,))
        if not isinstance(view, dict):
            raise ValueError("views[%r] must be a dict (the host's view), got %s" % (host, type(view).__name__))


def _finding(fault, host, evidence, explanation):
    """One finding; its role and vars only where the fault's role can fix it (``Fault.fixable``)."""
    fixable = bool(fault.fix_role) and fault.fixable(evidence)
    finding = {"id": fault.id, "severity": fault.severity, "host": host, "fix_role": fault.fix_role if fixable else None,
               "evidence": evidence, "explanation": one_paragraph(explanation)}
    fix_vars = fault.fix_vars(evidence) if fixable else None
    if fix_vars is not None:
        finding["fix_vars"] = fix_vars
    return finding


def find_findings(views: dict) -> list:
    """Every fault's rule over ``{host: view}``: the findings, sorted by host, severity, id.

    Raises ValueError when ``views`` is not a dict of dicts, or a view's facts have the wrong shape
    (a string where a dict belongs), naming the host and the fault.
    """
    _check_views(views)
    found = []
    for host in sorted(views):
        for fault in FAULTS:
            try:
                pairs = fault.rule(host, views[host], views)
            except (AttributeError, TypeError, KeyError, IndexError) as exc:
                raise ValueError("views[%r] has facts of the wrong shape for %s: %s" % (host, fault.id, exc)) from None
            found.extend(_finding(fault, host, evidence, explanation) for evidence, explanation in pairs)
    hidden = graph_of(views)["hidden_keys"]
    if hidden:
        found = [_without_keys(finding, hidden) for finding in found]
    return sorted(found, key=lambda f: (f["host"], SEVERITIES.index(f["severity"]), f["id"]))


def _without_keys(value, hidden):
    """``value`` (a finding, or any part of one) with every private key of ``hidden`` (the tunnel graph's
    ``hidden_keys``: a host's private key listed as another's peer key) replaced by its placeholder, in any string."""
    if isinstance(value, str):
        for key, shown in hidden.items():
            value = value.replace(key, shown)
        return value
    if isinstance(value, dict):
        return {_without_keys(name, hidden): _without_keys(item, hidden) for name, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_without_keys(item, hidden) for item in value]
    return value


def _status(fault, host, view, views, found):
    """``{"status", "reason"}`` of ``fault`` on ``host``: found, else what its coverage says (module doc)."""
    if found:
        return {"status": "found", "reason": None}
    if view.get("tunnelfix") is None and view.get("openwrt") is None:
        error = view.get("facts_error")
        return {"status": "not_checked", "reason": "no facts were read from this host in this run%s" % (": %s" % error if error else "")}
    try:
        cover = fault.coverage(host, view, views)
    except (AttributeError, TypeError, KeyError, IndexError) as exc:
        raise ValueError("views[%r] has facts of the wrong shape for %s: %s" % (host, fault.id, exc)) from None
    status, reason = cover if cover else ("clear", None)
    return {"status": status, "reason": reason}


def diagnosis(views: dict) -> dict:
    """reports/findings.json for ``{host: view}`` (the hosts of this run only): findings and a status per host and fault.

    ``checks[host][fault id]``: ``found``; ``clear`` (reason None, or why the fault cannot occur
    there, or what the rule judged without); ``not_checked`` with the reason (no facts, no
    measurement, no hub in the run). ``tunnel_graph``: the graph the graph's rules read (the same build:
    ``graph_of`` keeps it for ``views``), exported with each entry's state (tunnel_graph/export.py). Raises ValueError
    as find_findings does.
    """
    findings = find_findings(views)
    found = {(finding["host"], finding["id"]) for finding in findings}
    checks = {host: {fault.id: _status(fault, host, views[host], views, (host, fault.id) in found) for fault in FAULTS}
              for host in sorted(views)}
    return {"format": FINDINGS_FORMAT, "hosts": sorted(views), "checks": checks, "findings": findings,
            "tunnel_graph": graph_export(graph_of(views), findings)}


def findings_of(document) -> list:
    """reports/findings.json (``diagnosis``'s document, or the bare list of an older one; None: none) -> its findings.

    Raises ValueError when it is neither, or a finding is not a dict with a ``host``.
    """
    findings = document.get("findings") if isinstance(document, dict) else ([] if document is None else document)
    _check_findings(findings)
    return findings


def _check_findings(findings):
    if not isinstance(findings, list) or not all(isinstance(f, dict) and isinstance(f.get("host"), str) for f in findings):
        raise ValueError("findings must be the list find_findings returns, or reports/findings.json's document")


def fix_roles_by_host(findings) -> dict:
    """findings -> ``{host: [fix role, ...]}`` in fix order (``FIX_ROLES``); findings without a role left out.

    Raises ValueError when ``findings`` is not a list of findings (dicts with ``host``), or a finding
    names a role no fault is fixed by (a findings file is input: remediate runs nothing else).
    """
    findings = findings_of(findings)
    roles = {}
    for finding in findings:
        if finding.get("fix_role"):
            if finding["fix_role"] not in FIX_ROLES:
                raise ValueError("finding %s on %s names %r, which fixes no fault of this collection (fixing roles: %s)"
                                 % (finding.get("id"), finding["host"], finding["fix_role"], ", ".join(FIX_ROLES)))
            roles.setdefault(finding["host"], set()).add(finding["fix_role"])
    order = {role: index for index, role in enumerate(FIX_ROLES)}
    return {host: sorted(names, key=lambda role: (order.get(role, len(order)), role)) for host, names in sorted(roles.items())}


def _order_key(value):
    """Numbers by value, anything else after them by its text (``min`` over a merged dict's two values)."""
    numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
    return (0, value, "") if numeric else (1, 0, str(value))


def fix_vars_by_host(findings) -> dict:
    """findings -> ``{host: {role variable: value}}`` from the findings' ``fix_vars``.

    List values of the same variable on one host are joined (sorted, unique): two
    ``bridge_offload_small_mtu_tunnel`` findings for ``br-lan`` and ``br-guest`` on one router give
    ``{"owrt": {"bridge_gso_off_bridges": ["br-guest", "br-lan"]}}``. Dict values are merged key by key (two
    ``path_mtu_black_hole`` findings for ``wg0`` and ``wg1`` give ``{"wireguard_mtu_tunnels": {"wg0": 1340, "wg1": 1380}}``;
    the same key twice: the smaller value, an MTU that fits both). Other values: the last one
    wins. A finding that runs its role on the role's defaults (its fault declares no ``fix_var_names``:
    nat_peer_without_keepalive, every peer with an endpoint) covers what another finding of that role on the host
    names (keepalive_on_wrong_side's entry keeps an endpoint), so that host gets none of the role's variables: the
    other's would narrow the role to its entry and leave the first finding unfixed. Hosts whose findings carry no
    ``fix_vars`` are left out.
    Raises ValueError when ``findings`` is not a list of findings, a ``fix_vars`` is not a dict, or it
    names a variable no fault's role takes (``FIX_VAR_NAMES``: remediate sets these as host facts).
    """
    findings = findings_of(findings)
    out = {}
    for finding in findings:
        fix_vars = finding.get("fix_vars")
        if fix_vars is None:
            continue
        if not isinstance(fix_vars, dict):
            raise ValueError("fix_vars of %s on %s must be a dict, got %r" % (finding.get("id"), finding["host"], fix_vars))
        host_vars = out.setdefault(finding["host"], {})
        for name, value in fix_vars.items():
            if name not in FIX_VAR_NAMES:
                raise ValueError("fix_vars of %s on %s names %r, which no fault's role takes (allowed: %s)"
                                 % (finding.get("id"), finding["host"], name, ", ".join(sorted(FIX_VAR_NAMES))))
            if isinstance(value, list) or isinstance(host_vars.get(name), list):
                if not isinstance(value, list) or not isinstance(host_vars.get(name, []), list) \
                        or not all(isinstance(item, (str, int, float)) for item in value):
                    raise ValueError("fix_vars.%s of %s on %s must be a list of names like the others, got %r"
                                     % (name, finding.get("id"), finding["host"], value))
                value = sorted(set(host_vars.get(name, [])) | set(value), key=str)
            elif isinstance(value, dict) and isinstance(host_vars.get(name), dict):
                merged = dict(host_vars[name])
                for key, item in value.items():
                    merged[key] = item if key not in merged else min(merged[key], item, key=_order_key)
                value = dict(sorted(merged.items()))
            host_vars[name] = value
    for host, role in _on_defaults(findings):
        if host in out and ROLE_VAR_NAMES[role] & set(out[host]):
            out[host] = {name: value for name, value in out[host].items() if name not in ROLE_VAR_NAMES[role]}
            if not out[host]:
                del out[host]
    return dict(sorted(out.items()))


def _on_defaults(findings):
    """``{(host, role)}``: the findings that run their role on its defaults (no ``fix_vars``, and their fault, which
    names that role, declares no ``fix_var_names``)."""
    out = set()
    for finding in findings:
        fault = BY_ID.get(finding.get("id"))
        if (fault is not None and finding.get("fix_role") and fault.fix_role == finding["fix_role"] and not fault.fix_var_names
                and finding.get("fix_vars") is None):
            out.add((finding["host"], finding["fix_role"]))
    return out


def _groups_of(finding):
    """The groups a finding lets its role run on: its fault's ``fix_groups`` (the id names a fault of that role), else
    (an older or edited file) the groups every-role mode runs the role on."""
    fault = BY_ID.get(finding.get("id"))
    if fault is not None and fault.fix_role == finding["fix_role"]:
        return frozenset(fault.fix_groups)
    return EVERY_ROLE_GROUPS[finding["fix_role"]]


def _unaimed(finding):
    """Why a finding may not run its role: its fault is fixed from a finding only (``Fault.fix_every_role`` false) and
    aims the role with ``fix_var_names``, but the finding lacks one of them or gives it empty (the role would run on its
    defaults, wider than the finding: every entry of a hub); None when it may."""
    fault = BY_ID.get(finding.get("id"))
    if fault is None or fault.fix_role != finding["fix_role"] or fault.fix_every_role or not fault.fix_var_names:
        return None
    fix_vars = finding.get("fix_vars") if isinstance(finding.get("fix_vars"), dict) else {}
    if all(fix_vars.get(name) for name in fault.fix_var_names):
        return None
    return "the finding %s on %s names %s without %s, which aim it at the finding's entry alone" % (
        fault.id, finding["host"], finding["fix_role"], " and ".join(fault.fix_var_names))


def role_plan(role, view, host_vars):
    """The changes ``role`` would make on a host: its faults' plans (``Fault.plan``) together, or None when one cannot tell.

    ``view``: the host's view (its facts); ``host_vars``: its variables (the role's settings).
    A plan that trips over facts of an odd shape counts as "cannot tell": the role then runs and
    reads for itself.
    """
    changes = []
    for plan in dict.fromkeys(fault.plan for fault in FAULTS if fault.fix_role == role):
        try:
            lines = plan(view, host_vars or {})
        except (AttributeError, TypeError, KeyError, IndexError, ValueError):
            return None
        if lines is None:
            return None
        changes.extend(line for line in lines if line not in changes)
    return changes


def opt_in_missing(role, host_vars):
    """Why remediate leaves ``role`` out on a host with ``host_vars``: its faults' opt-in (``Fault.fix_opt_in``) is not
    set true there; None when the role needs no opt-in or has it."""
    name = FIX_OPT_IN.get(role)
    if name and not is_true((host_vars or {}).get(name)):
        return ("left alone: %s is not true for this host (an opt-in fix: set it in the inventory or with -e %s=true "
                "to apply it)" % (name, name))
    return None


def opt_ins_left(findings, plans) -> list:
    """The findings remediate leaves alone because their fix is opt-in and their host did not opt in.

    ``findings``: reports/findings.json's document or list; ``plans``: ``remediate_plans``' choice for the same
    hosts (a host's ``skipped`` names the opt-in roles it leaves out). One entry per opt-in role, sorted by role:
    ``[{"role": "tunnelfix.fleet.udp_gro_forwarding", "variable": "udp_gro_forwarding_enable",
    "ids": ["udp_gro_forwarding_off"], "hosts": ["exit-01", ...]}]`` (ids and hosts sorted). Raises ValueError
    as ``findings_of`` does, or when ``plans`` is not a dict.
    """
    if not isinstance(plans, dict):
        raise ValueError("plans must be remediate_plans' {host: {roles, vars, skipped, changes}}, got %s" % type(plans).__name__)
    left = {}
    for finding in findings_of(findings):
        role = finding.get("fix_role")
        skipped = (plans.get(finding["host"]) or {}).get("skipped") or {}
        if FIX_OPT_IN.get(role) and role in skipped:
            entry = left.setdefault(role, {"role": role, "variable": FIX_OPT_IN[role], "ids": set(), "hosts": set()})
            entry["ids"].add(str(finding.get("id")))
            entry["hosts"].add(finding["host"])
    return [dict(entry, ids=sorted(entry["ids"]), hosts=sorted(entry["hosts"])) for _role, entry in sorted(left.items())]


def every_role_plan(groups, host_vars, view=None) -> dict:
    """remediate's every-role mode for one host: ``{"roles": [...], "skipped": {role: reason}, "changes": {role: [...]}}``.

    ``groups``: the host's inventory groups; ``host_vars``: its variables (a fault's ``fix_needs``
    and ``fix_opt_in`` are looked up there); ``view``: its facts (``host_view``), or None. A role runs
    where the host is in one of its faults' ``fix_groups`` (``EVERY_ROLE_GROUPS``: a fault fixed only from a finding,
    ``Fault.fix_every_role`` false, adds none and no ``fix_needs``), its opt-in (if any) is set true and a
    variable its faults need (``fix_needs``: bridge_gso_off takes bridges or tunnels) is non-empty,
    unless its plan (``role_plan``) says it would change nothing; ``changes`` holds the plans that list changes.
    """
    groups = set(groups or [])
    roles, skipped, changes = [], {}, {}
    for role in FIX_ROLES:
        if not groups & EVERY_ROLE_GROUPS[role]:
            continue
        if opt_in_missing(role, host_vars):
            skipped[role] = opt_in_missing(role, host_vars)
            continue
        faults = [fault for fault in FAULTS if fault.fix_role == role and fault.fix_every_role]
        needs = list(dict.fromkeys(fault.fix_needs for fault in faults if fault.fix_needs))
        if needs and not any((host_vars or {}).get(need) for need in needs):
            skipped[role] = "%s is not set for this host (the role needs %s; diagnose's findings would name it)" % (
                " or ".join(needs), "one of them" if len(needs) > 1 else "it")
            continue
        plan = role_plan(role, view, host_vars) if view else None
        if plan == []:
            skipped[role] = "converged: the facts show nothing this role would change"
        else:
            roles.append(role)
            if plan:
                changes[role] = plan
    return {"roles": roles, "skipped": skipped, "changes": changes}


def remediate_plans(findings, host_vars, hosts, every_role, strict=True) -> dict:
    """remediate's choice for the fleet: ``{host: {"roles": [...], "vars": {...}, "skipped": {role: reason}, "changes": {...}}}``.

    ``hosts``: the fleet's inventory hosts, in order; ``host_vars``: ``hostvars`` (a mapping of host ->
    its variables: its groups, and with ``every_role`` the variables a role needs and the facts
    playbooks/facts.yml registered). A role a finding names for a host outside its fault's groups (``Fault.fix_groups``;
    a finding whose id names no fault of that role: the groups every-role mode runs the role on) is refused: a findings
    file from another inventory, where the host name meant another machine. So is a finding of a fault fixed from
    findings only whose ``fix_vars`` lack one of its ``fix_var_names`` or give it empty (``_unaimed``: the role would run
    on its defaults, wider than the finding). With ``every_role`` each host gets the
    roles of its groups that its facts do not show converged (``every_role_plan``; ``changes``: what the plans expect them to change) and no vars;
    otherwise the roles and vars ``findings`` name (``fix_roles_by_host``, ``fix_vars_by_host``; None
    is no findings), less an opt-in role whose variable the host does not set true (``skipped``, with
    the variable: the finding is left alone). Hosts outside ``hosts`` are
    left out; so are hosts with neither a role nor a skipped one (a converged host costs nothing).
    Raises ValueError on findings that are not a findings list or name what no fault declares. ``strict=False``
    (diagnose's look ahead at what remediate would run, which must not fail diagnose): a role outside the host's
    groups is put in ``skipped`` with the reason instead of refusing the findings.
    """
    plans = {}
    if every_role:
        for host in hosts:
            own = host_vars[host]
            plan = every_role_plan(own.get("group_names") or [], own, host_view(own, records=view_records()))
            if plan["roles"] or plan["skipped"]:
                plans[host] = dict(plan, vars={})
        return plans
    roles, fix_vars = fix_roles_by_host(findings or []), fix_vars_by_host(findings or [])
    allowed, unaimed = {}, {}
    for finding in findings_of(findings or []):
        if finding.get("fix_role"):
            allowed.setdefault((finding["host"], finding["fix_role"]), []).append(_groups_of(finding))
            if _unaimed(finding):
                unaimed.setdefault((finding["host"], finding["fix_role"]), _unaimed(finding))
    for host in hosts:
        if not roles.get(host):
            continue
        groups = set(host_vars[host].get("group_names") or [])
        outside = {}
        for role in roles[host]:
            foreign = [named for named in allowed[(host, role)] if not groups & named]
            if foreign:
                reason = "the findings name %s for %s, which is in none of its groups (%s)" % (
                    role, host, ", ".join(sorted(foreign[0])))
                if strict:
                    raise ValueError("%s: refusing a findings file from another inventory" % reason)
                outside[role] = "%s: remediate refuses these findings" % reason
            elif (host, role) in unaimed:
                if strict:
                    raise ValueError("%s: refusing a findings file edited by hand or from another version" % unaimed[(host, role)])
                outside[role] = "%s: remediate refuses these findings" % unaimed[(host, role)]
        skipped = dict(outside, **{role: opt_in_missing(role, host_vars[host]) for role in roles[host]
                                   if role not in outside and opt_in_missing(role, host_vars[host])})
        plans[host] = {"roles": [role for role in roles[host] if role not in skipped], "vars": fix_vars.get(host, {}),
                       "skipped": skipped, "changes": {}}
    return plans


def _key(finding):
    fault = BY_ID.get(finding.get("id"))
    subject = fault.subject(finding.get("evidence") or {}) if fault else None
    return finding["host"], finding.get("id"), subject


def _rechecked(finding, views):
    """Whether verify's ``views`` hold what the finding's rule needs (its fault's ``rechecked``); unknown ids: its host."""
    fault = BY_ID.get(finding.get("id"))
    if fault is None:
        return finding["host"] in views
    return bool(fault.rechecked(finding["host"], finding.get("evidence") or {}, views))


def _unjudged(finding, views):
    """Why the finding's rule could not judge its host on verify's fresh view (its coverage says ``not_checked``:
    no hub to measure against, no measurement in this run), or None: the host was not read again, or the rule
    could judge it."""
    fault, host = BY_ID.get(finding.get("id")), finding["host"]
    view = views.get(host)
    if fault is None or not isinstance(view, dict) or (view.get("tunnelfix") is None and view.get("openwrt") is None):
        return None
    status = _status(fault, host, view, views, False)
    return status["reason"] if status["status"] == "not_checked" else None


def finding_outcomes(before, after, views, host_vars=None, hosts=None) -> list:
    """Pair diagnose's findings with verify's: one entry per finding, sorted by host, outcome, id.

    ``before``/``after``: find_findings output of diagnose and of verify (same rules, fresh facts
    and measurements); ``views``: verify's ``{host: view}`` (the hosts it read again, 'after'
    measurements only). Each entry is the finding (the after one where it is still present) plus
    ``outcome``: ``fixed`` (gone after, and verify had what the rule needs to judge it),
    ``still_present`` (found again; or not re-checked: its host was not read again or the
    measurement its rule needs was not taken, then ``rechecked`` is false; or taken but the rule could not
    judge it, a flow without a slot, offloads not read: ``rechecked`` false and ``reason``), ``not_checked`` (its host
    was read again but the rule cannot judge it there, ``rechecked`` false and ``reason`` the rule's own:
    a peer without tunnelfix_tunnel_hub has nothing to measure against, verify ran with
    tunnelfix_measure=false) or ``new`` (found only after). With ``host_vars`` (``hostvars``), a finding that is still present and whose opt-in fix the
    host did not opt into (``Fault.fix_opt_in`` not true) also has ``left_alone`` (why): remediate did not
    run its role, so it is not a failed fix (``unfixed_by_host`` leaves it out).
    With ``hosts`` (the hosts of this verify run: its --limit applied), diagnose's findings of other hosts are left
    out: verify judged nothing there, and a canary's verify must not call the rest of the fleet still present.
    Raises ValueError on input that is not a findings list or views that are not a dict.
    """
    before, after = findings_of(before), findings_of(after)
    if hosts is not None:
        keep = set(hosts)
        before = [finding for finding in before if finding["host"] in keep]
    if not isinstance(views, dict):
        raise ValueError("views must be verify's dict of host -> view, got %s" % type(views).__name__)
    after_by_key = {_key(finding): finding for finding in after}
    before_keys = set()
    out = []
    for finding in before:
        key = _key(finding)
        before_keys.add(key)
        if key in after_by_key:
            out.append(dict(after_by_key[key], outcome="still_present", rechecked=True))
        elif not _rechecked(finding, views):
            unjudged = _unjudged(finding, views)
            out.append(dict(finding, outcome="not_checked", rechecked=False, reason=unjudged) if unjudged
                       else dict(finding, outcome="still_present", rechecked=False))
        else:
            # verify took what the rule reads, but the rule could not judge it (a flow without a slot, an invalid one,
            # offloads ethtool could not read): not fixed, and not excused as not_checked either
            unjudged = _unjudged(finding, views)
            out.append(dict(finding, outcome="still_present", rechecked=False, reason=unjudged) if unjudged
                       else dict(finding, outcome="fixed", rechecked=True))
    out.extend(dict(finding, outcome="new", rechecked=True) for finding in after if _key(finding) not in before_keys)
    for entry in out:
        reason = opt_in_missing(entry.get("fix_role"), _vars_of(host_vars, entry["host"])) if host_vars is not None else None
        if reason and entry["outcome"] != "fixed":
            entry["left_alone"] = reason
    return sorted(out, key=lambda f: (f["host"], OUTCOMES.index(f["outcome"]), f["id"]))


def _vars_of(host_vars, host):
    """``host_vars[host]`` (hostvars, or a plain dict of host -> variables), or {} for a host it does not hold."""
    try:
        return host_vars[host] if host in host_vars else {}
    except TypeError:
        return {}


def unfixed_by_host(outcomes) -> dict:
    """``{host: [finding id, ...]}``: findings a role can fix that verify still finds (still_present or new).

    verify fails these hosts; a ``not_checked`` finding (the rule could not judge the host, ``reason``) does not.
    Findings no role fixes (kernel, container limits) and findings left alone by an opt-in fix the host did not
    opt into (``left_alone``, see ``finding_outcomes``) are reported, not failed.
    """
    out = {}
    for entry in outcomes:
        if entry.get("fix_role") and entry.get("outcome") in ("still_present", "new") and not entry.get("left_alone"):
            out.setdefault(entry["host"], []).append(entry["id"])
    return {host: sorted(set(ids)) for host, ids in sorted(out.items())}


def health_check_allowance(findings, before_health_checks, host) -> dict:
    """How many of verify's health-check pings may fail on router ``host``: ``{"max_failed_pings": int, "source": text}``.

    ``findings``: diagnose's (reports/findings.json) or None; ``before_health_checks``: diagnose's
    health_check_measure records (reports/health-checks-before.json, ``{host: record}``) or None. 0 when a finding
    of the host reads the health checks (its proof: no ping may fail, e.g. banIP's ICMP limit) or diagnose measured
    none; else as many as diagnose's valid record lost (no regression): a router whose track IPs never answered
    (0 of 20 before and after) is not failed for a fault no role here fixes, and one that now loses more is.
    """
    listed = findings.get("findings") if isinstance(findings, dict) else findings
    for finding in listed if isinstance(listed, list) else []:
        fault = BY_ID.get(finding.get("id")) if isinstance(finding, dict) else None
        if fault is not None and finding.get("host") == host and "health_checks" in fault.reads:
            return {"max_failed_pings": 0, "source": "%s: its proof, no health-check ping may fail" % fault.id}
    record = (before_health_checks or {}).get(host) if isinstance(before_health_checks, dict) else None
    record = record if isinstance(record, dict) else {}
    sent, failed = record.get("sent"), record.get("failed_pings")
    if isinstance(sent, int) and isinstance(failed, int) and not isinstance(failed, bool) and 0 <= failed <= sent and sent > 0:
        return {"max_failed_pings": failed,
                "source": "no more than diagnose lost (%d of %d): no finding of this host is proved by them" % (failed, sent)}
    return {"max_failed_pings": 0, "source": "diagnose measured no health-check pings on this host: none may fail"}


def verify_floor(findings, before_measurements, host, path_bits_per_second=None) -> dict:
    """The single-flow floor verify holds ``host`` to when the inventory sets none.

    ``findings``: diagnose's (reports/findings.json) or None; ``before_measurements``: diagnose's
    tunnel_measure records (reports/measurements-before.json, ``{host: record}``) or None;
    ``path_bits_per_second``: the path's known rate (bit/s, or with k/M/G: "40M") or None/"". Returns
    ``{"min_bits_per_second": float | None, "source": text}``, the highest of: each of the host's
    findings' proof floor (``Proof.min_bits_per_second``), and ``NO_REGRESSION_SHARE`` of diagnose's
    valid single flow; with neither, ``PATH_SHARE_FLOOR`` of the path; with nothing known, None and
    the reason (tunnel_measure then fails rather than assert nothing).
    """
    candidates = []
    listed = findings.get("findings") if isinstance(findings, dict) else findings
    for finding in listed if isinstance(listed, list) else []:
        fault = BY_ID.get(finding.get("id")) if isinstance(finding, dict) else None
        if fault is None or finding.get("host") != host:
            continue
        floor = fault.proof.min_bits_per_second(finding.get("evidence") or {})
        if floor:
            candidates.append((float(floor), "%s: %s" % (fault.id, fault.proof.threshold_source)))
    record = (before_measurements or {}).get(host) or {}
    iperf3 = record.get("iperf3") or {} if isinstance(record, dict) else {}
    before_bps = iperf3.get("bits_per_second")
    if iperf3.get("valid") is True and isinstance(before_bps, (int, float)) and before_bps > 0:
        candidates.append((NO_REGRESSION_SHARE * before_bps, "%.0f %% of diagnose's single flow (%.1f Mbit/s): no regression"
                           % (NO_REGRESSION_SHARE * 100, before_bps / 1e6)))
    if candidates:
        floor, source = max(candidates)
        return {"min_bits_per_second": floor, "source": source}
    try:
        path = to_bits_per_second(path_bits_per_second) if path_bits_per_second not in (None, "") else None
    except ParseError as exc:
        raise ValueError("the path's rate (tunnel_measure_path_bits_per_second / tunnelfix_path_bits_per_second): %s"
                         % exc) from None
    if path and path > 0:
        return {"min_bits_per_second": PATH_SHARE_FLOOR * path,
                "source": "%.0f %% of the path's rate (%.1f Mbit/s, tunnelfix_path_bits_per_second)" % (PATH_SHARE_FLOOR * 100, path / 1e6)}
    return {"min_bits_per_second": None,
            "source": "no floor: no finding of this host sets one, diagnose measured no valid single flow, "
                      "and the path's rate is unknown"}
