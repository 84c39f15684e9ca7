# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""sch_fq_missing: the rule on both sides, with its exact evidence."""

import pytest

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.sch_fq_missing.rule import no_fq


@pytest.mark.parametrize("fq, child, fires", [(False, False, True), (True, False, False), (None, False, False),
                                              (False, True, False)])
def test_fq_missing_only_when_known_missing_outside_a_container(fq, child, fires, tcp_stack_view):
    found = no_fq("h", tcp_stack_view(fq=fq, child=child), {})
    assert found == ([({"default_qdisc": "pfifo_fast"}, found[0][1])] if fires else [])
