# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every fault test also checks that each finding's evidence keys are ones its fault describes (``Fault.evidence``,
the rows of docs/findings.md): whatever a rule returns in any test here, however the test calls it."""

import sys

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.registry import FAULTS

# by the rule's code object; a code object several faults share identifies none of them (mutmut's trampoline wrapper, in
# make mutation, wrap every function in one shared code object): those are not checked
_CODES = [fault.rule.__code__ for fault in FAULTS]
RULES = {code: fault for code, fault in zip(_CODES, FAULTS) if _CODES.count(code) == 1}


def described_keys(fault) -> set:
    """The evidence keys ``fault`` describes (one key or a tuple of keys per row)."""
    return {key for keys, _meaning in fault.evidence for key in ((keys,) if isinstance(keys, str) else keys)}


def undescribed(code, returned) -> list:
    """``(fault id, key)`` for each evidence key a rule (by its code object) returned that its fault does not describe."""
    fault = RULES.get(code)
    if fault is None or not isinstance(returned, list):
        return []
    known = described_keys(fault)
    return [(fault.id, key) for item in returned if isinstance(item, tuple) and item and isinstance(item[0], dict)
            for key in item[0] if key not in known]


@pytest.fixture(autouse=True)
def evidence_is_described():
    """Watches every rule's return (sys.setprofile sees each call however the rule was imported); fails the test naming the key."""
    found = []

    def profile(frame, event, arg):
        if event == "return" and frame.f_code in RULES:
            found.extend(undescribed(frame.f_code, arg))

    before = sys.getprofile()
    sys.setprofile(profile)
    try:
        yield
    finally:
        sys.setprofile(before)
    assert not found, "evidence keys no Fault.evidence row describes (add them there): %s" % sorted(set(found))


@pytest.fixture
def tcp_stack_view():
    """A host view with the TCP facts the kernel and container limits read (tests of kernel_without_bbr/, cc_in_container/,
    sch_fq_missing/): ``tcp_stack_view(available=("cubic", "bbr"), child=True)``."""
    def view(available=("reno", "cubic"), allowed=("reno", "cubic"), loadable=False, bbr_available=False,
             fq=True, child=False, qdisc="pfifo_fast"):
        return {"tunnelfix": {"tcp": {"congestion_control_available": list(available), "congestion_control_allowed": list(allowed),
                                      "tcp_bbr_loadable_module": loadable, "tcp_bbr_available": bbr_available,
                                      "sch_fq_available": fq, "default_qdisc": qdisc},
                              "netns": {"child_netns": child, "container": "ct101" if child else None}}}
    return view
