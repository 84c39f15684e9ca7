# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What one fault definition holds, and the helpers every fault file shares.

A fault file (one per field fault, next to this one) defines one or more ``Fault`` values; the
registry (``registry.py``) lists them in fix order and everything else iterates it: what the facts
actions read (``Fault.facts``: its readings, ``reading.py``), diagnose's findings, remediate's role
choice, verify's outcomes and throughput floor, the report, the docs.

A rule is ``rule(host, view, views) -> [(evidence dict, explanation str), ...]``: the host's view
(the shape is in ``registry.py``), every view of the run (a hub's rule reads its peers'), and one
pair per thing found. The registry turns each pair into a finding; a rule never builds one.

A rule that finds nothing may not have been able to look: ``coverage(host, view, views)`` says
which. It returns None when the rule judged the host on everything it reads (no finding: ``clear``),
``does_not_apply(reason)`` (``clear``: the fault cannot occur on this host, e.g. banIP on a host
without it), ``partly(reason)`` (``clear`` from part of what the rule reads, the reason names the
missing part) or ``not_checked(reason)`` (the rule could not judge: no measurement, no hub in the
run, a fact not read). A finding is ``found`` whatever coverage says.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

SEVERITIES = ("critical", "high", "medium", "low", "info")


def _no_vars(evidence):
    """The default ``Fault.fix_vars``: the role needs nothing beyond "run"."""
    return None


def _no_threshold(evidence):
    """The default ``Proof.min_bits_per_second``: the proof sets no throughput floor."""
    return None


def _no_subject(evidence):
    """The default ``Fault.subject``: one finding of this id per host."""
    return None


def _always_fixable(evidence):
    """The default ``Fault.fixable``: the fixing role (if any) can fix every finding of the fault."""
    return True


def _plan_unknown(view, role_vars):
    """The default ``Fault.plan``: the facts cannot tell whether the fix would change the host (the role runs)."""
    return None


def _always_judged(host, view, views):
    """The default ``Fault.coverage``: the rule judges every host from what it has."""
    return None


def does_not_apply(reason):
    """``Fault.coverage``'s answer for a host the fault cannot occur on: ``clear``, with the reason."""
    return ("clear", "does not apply: %s" % reason)


def partly(reason):
    """``Fault.coverage``'s answer for a rule that judged the host on part of what it reads: ``clear`` unless found."""
    return ("clear", "judged without %s" % reason)


def not_checked(reason):
    """``Fault.coverage``'s answer for a rule that could not judge the host: ``not_checked``, with the reason."""
    return ("not_checked", reason)


NO_HUB = "no tunnelfix_tunnel_hub: a peer without a hub in the inventory has nothing to measure its tunnel against"


def unmeasured(view, reason):
    """Why a measurement of the host is missing: ``NO_HUB`` for a peer whose inventory names no hub (diagnose and verify
    measure no flow there), else ``reason`` (text: what was not measured in this run)."""
    if "tunnelfix_wireguard_peers" in (view.get("groups") or []) and not view.get("tunnel_hub"):
        return NO_HUB
    return reason


def is_router(view):
    """Whether the host is an OpenWrt router: in ``tunnelfix_openwrt``, or openwrt_facts read it."""
    return "tunnelfix_openwrt" in (view.get("groups") or []) or view.get("openwrt") is not None


def _facts_only(host, evidence, views):
    """The default ``Fault.rechecked``: the rule reads facts only, so a host verify read again is re-checked."""
    return host in views


def needs_own(*keys):
    """A ``Fault.rechecked`` for a rule that also reads these view keys of its own host (its measurements)."""
    def rechecked(host, evidence, views):
        return host in views and all(views[host].get(key) is not None for key in keys)
    rechecked.__doc__ = "Re-checked when verify read the host again and took its %s." % ", ".join(keys)
    return rechecked


@dataclass(frozen=True)
class Proof:
    """How verify shows the fix worked.

    ``how`` (text): which measurement passes and why that is enough; every proof also re-runs the
    fault's rule on verify's fresh facts and measurements. ``min_bits_per_second(evidence)``: the
    single-flow floor (bit/s) this finding sets for its host's verify, or None;
    ``threshold_source`` says how that floor is derived (shown next to it in the report).
    """

    how: str
    min_bits_per_second: Callable[[dict], Optional[float]] = _no_threshold
    threshold_source: str = ""


@dataclass(frozen=True)
class Alert:
    """A Prometheus alert of the fault's own, in the rules file scripts/prometheus_rules.py writes from the registry
    (roles/prometheus_textfile/files/tunnelfix.rules.yml); the other faults' findings share one generic alert.

    ``name``: the alert's name. ``expr``: PromQL over the metrics prometheus_textfile writes, where
    ``{finding}`` stands for this fault's finding series (``tunnelfix_findings{id="<the fault's id>"}``),
    so the id is written in one place. ``summary``: the annotation, Prometheus template text
    (``{{ $labels.instance }}``). ``why``: one line on what the expression joins, kept as a comment
    above the rule.
    """

    name: str
    expr: str
    summary: str
    why: str = ""


@dataclass(frozen=True)
class Fault:
    """One fault: facts read -> rule -> fix role and vars -> proof -> doc text.

    ``id``: the finding id (stable: alert rules key on it). ``number``: the field fault (the
    brief's 1-5; 6 the PMTU black hole, issue 31), None for the kernel/container limits. ``reads``: the view keys the fault reads
    (``"openwrt.endpoint_routes"``: view["openwrt"]["endpoint_routes"]): its rule's, and the facts its
    measuring step reads (the PMTU ladders' pacing reads banIP's). ``fix_role``: FQCN of the
    role remediate runs, None when no role can fix it. ``fix_groups``: the inventory groups whose
    hosts that role may run on. ``fix_vars(evidence)``: the role's variables from one finding, or
    None; ``fix_var_names`` the variables it may set (remediate takes no other from a findings
    file). ``fix_needs``: a role variable the role needs; remediate's every-role mode skips the role
    (and says so) when none of its faults' ``fix_needs`` is set. ``fix_opt_in``: a role variable the
    operator must set true (inventory or ``-e``, never a findings file) before remediate runs the role
    in either mode: an opt-in fix; without it remediate leaves the finding alone and says which
    variable, and verify reports the finding ``still_present`` with ``left_alone`` instead of failing
    the host. ``fix_persist``: the role variable (default true) that, set false, leaves the fix runtime only, lost at
    reboot (no hook or unit re-applies it); remediate says so for the hosts that set it false.
    ``subject(evidence)``: what distinguishes two findings of this id on one host
    (a bridge, an interface), for pairing diagnose's finding with verify's. ``rechecked(host,
    evidence, views)``: whether verify's views (``{host: view}``, 'after' measurements only) hold
    what the rule needs to judge this finding again; without it a finding cannot be called fixed
    (the rule finds nothing in what was not measured). ``files``: the files a
    reader opens to follow the fault: this definition, the role's task file that applies the fix,
    the proof (at most three). ``symptom``/``fix``: doc text, in the operator's words.
    ``coverage(host, view, views)``: whether the rule could judge this host (module doc).

    ``plan(view, role_vars)``: pure (it runs nothing on the host), from the host's view: its facts and,
    for a fault found by measurement, that measurement's record (``records``: the PMTU fault's plan,
    faults/path_mtu/plan.py ``pmtu_plan``, takes the tunnels to change and their MTU from it). It returns
    the changes the fixing role would make on this host, one line each (``[]``: it would change nothing,
    the host is converged for this fault), or None when it cannot tell (a fact or the record missing,
    or a state the facts do not read, such as a file the role writes); remediate's every-role mode skips
    a role only when every plan of its faults is ``[]``. ``role_vars``: the host's variables (a mapping);
    a role variable it does not set takes the value in ``fix_defaults`` (the role's defaults/main.yml,
    pinned by a test).

    ``fixable(evidence)``: whether ``fix_role`` can fix this finding (default: every one). A finding it cannot fix
    names no role (``fix_role`` None, no ``fix_vars``) and is reported, not failed, like a fault no role fixes: an entry
    no configuration keeps (keepalive_on_wrong_side's "live only") gives the role nothing to write. ``fix_every_role``
    (default true): whether remediate's every-role mode runs the role for this fault. False for a fix that only a
    finding can aim (its ``fix_vars`` name the one entry to change): every-role mode has no findings and gives no
    vars, so the role would run on its defaults, which change more than any finding named; such a fault's
    ``fix_groups`` then widen only where remediate takes the role from one of its findings (``registry.remediate_plans``:
    each finding is checked against its own fault's groups), never where every-role mode runs it.

    ``alert``: the fault's own Prometheus alert (``Alert``), or None: its finding then raises the generic
    "finding present" alert of the rules file.

    ``evidence``: what the finding's ``evidence`` holds, one ``(keys, meaning)`` per row (``keys``: one key, or a tuple of
    keys explained together); docs/findings.md's evidence table of the fault is generated from it
    (scripts/findings_doc.py), and a test fails when a rule returns a key its fault does not describe.

    ``facts``: the readings (``reading.Reading``) the fault reads, one per ``tunnelfix.X``/``openwrt.X`` key of
    ``reads`` (a test pins that); the facts actions gather what the registry's faults declare (``registry.readings``).
    ``records``: the measuring steps' records the rule reads (``view.Record``: view key and host variable), one per
    measurement key of ``reads`` (a test pins that); the host's view holds what the registry's faults declare
    (``view.records_of``), so a fault with a measuring role of its own declares its record here and no view code changes.
    ``measure_role``: FQCN of that measuring role (the one that sets the record's host variable), or None: diagnose and
    verify run every such role of the registry (``registry.measuring_roles``, lookup ``tunnelfix.fleet.measuring_roles``)
    on every fleet host of the run, in batches, unless ``tunnelfix_measure`` is false, and give each its phase in the one
    variable ``tunnelfix_measure_phase`` (``before`` in diagnose, ``after`` in verify), which the role takes over its own
    ``<role>_phase`` option (that option stays for a play that runs the role directly); a fault that adds a measuring
    role so changes no playbook. The general measuring roles (tunnel_measure, health_check_measure, tunnel_sweep) are
    not declared here: the playbooks run them in plays of their own (their hosts, floors and enforcement differ).

    ``option_checks``: ``{role: check}`` for the roles this fault owns (its fixing role, a measuring role of its own;
    the role's short name): ``check(options)`` -> one message per bad option (``fix/role_options.option_errors``, which
    builds its table from its general roles' checks and these, ``role_options.role_checks``), in the fault's folder.
    """

    id: str
    number: Optional[int]
    title: str
    severity: str
    reads: tuple
    rule: Callable
    symptom: str
    fix: str
    proof: Proof
    files: tuple
    fix_role: Optional[str] = None
    fix_groups: tuple = ()
    fix_vars: Callable[[dict], Optional[dict]] = _no_vars
    fix_needs: Optional[str] = None
    fix_opt_in: Optional[str] = None
    fix_persist: Optional[str] = None
    fix_var_names: tuple = ()
    subject: Callable[[dict], Optional[str]] = _no_subject
    rechecked: Callable[[str, dict, dict], bool] = _facts_only
    hosts: str = "any"
    fires_when: str = ""
    plan: Callable[[dict, dict], Optional[list]] = _plan_unknown
    fix_defaults: dict = field(default_factory=dict)
    coverage: Callable[[str, dict, dict], Optional[tuple]] = _always_judged
    alert: Optional[Alert] = None
    facts: tuple = ()
    evidence: tuple = ()
    records: tuple = ()
    option_checks: dict = field(default_factory=dict)
    measure_role: Optional[str] = None
    fixable: Callable[[dict], bool] = _always_fixable
    fix_every_role: bool = True


def is_true(value) -> bool:
    """Whether a role variable is set true the way Ansible's ``bool`` filter reads it (``true``, ``"yes"``, ``-e x=1``)."""
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in ("true", "yes", "on", "1", "y", "t")


def role_setting(role_vars, name, defaults):
    """``role_vars[name]`` (the host's variables: inventory, extra vars), else ``defaults[name]`` (the role's default)."""
    value = (role_vars or {}).get(name)
    return defaults[name] if value is None else value


def name_list(value):
    """A list option as the roles take it: a list, or a comma-separated string (``-e``); blanks dropped."""
    if isinstance(value, str):
        return [item.strip() for item in value.split(",") if item.strip()]
    return [str(item) for item in value or []]


def whole_number(value):
    """``value`` as an int when it is one (``25``, ``"25"``), else None (the role then fails naming it: no plan)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def one_paragraph(text):
    """``text`` with its line breaks and indentation folded into single spaces."""
    return " ".join(text.split())


def wireguard_interfaces(facts):
    """``facts["wireguard"]["interfaces"]`` (tunnel_facts or openwrt_facts), or {} when missing."""
    return ((facts or {}).get("wireguard") or {}).get("interfaces") or {}
