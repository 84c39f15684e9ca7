# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""banip_icmp's raw command that rewrites the live ICMP flood rule in place, as the role composes it
(tasks/icmplimit.yml, vars/main.yml, the banip_icmp_replace_script filter on the recorded 24.10 chain), run
with BusyBox sh and ``nft`` stood in for by a shell function that records its script.

banIP's lock (a directory: /var/run/banip.lock on 23.05/24.10, /var/run/banIP/banIP.lock on 25.12; banip.init
of openwrt/packages openwrt-23.05@16c320b7fd, openwrt-24.10@42525d32c4, openwrt-25.12@57654a9f48) is held while
a start, restart, reload or feed update runs; banip-service.sh reads uci first and builds the table (f_nftinit,
with the ICMP rule) afterwards, so a rule rewritten while it runs can be rebuilt with the old limit.
"""

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from ansible_collections.tunnelfix.fleet.plugins.filter.role_support import banip_icmp_live, banip_icmp_replace_script
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp import limiter, reads

ROLE = Path(__file__).resolve().parents[3] / "roles" / "banip_icmp"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
# The host programs this file runs by name (scripts/check_host_packages.py).
HOST_COMMANDS = ("busybox",)
LOCKS = ("/var/run/banIP/banIP.lock", "/var/run/banip.lock")


def replace_command(tmp_path):
    """The task's raw command with its Jinja parts filled in as the role fills them, lock paths moved under tmp_path."""
    tasks = yaml.safe_load((ROLE / "tasks" / "icmplimit.yml").read_text(encoding="utf-8"))
    task = next(t for t in tasks if t["name"].startswith("Rewrite the live ICMP flood rule"))
    role_vars = yaml.safe_load((ROLE / "vars" / "main.yml").read_text(encoding="utf-8"))
    chain = (FIXTURES / "nft_a_list_chain" / "24.10_banip_default.txt").read_text(encoding="utf-8")
    script = banip_icmp_replace_script(banip_icmp_live({"rc": 0, "stdout": chain}), 250)

    def fill(match):
        expr = match.group(1).strip()
        if "banip_icmp_replace_script" in expr:
            return script
        return re.sub(r"\{\{(.*?)\}\}", fill, role_vars[expr])   # a role var may name another
    command = re.sub(r"\{\{(.*?)\}\}", fill, task["ansible.builtin.raw"])
    for lock in LOCKS:
        command = command.replace(lock, str(tmp_path / lock.lstrip("/")))
    return command


@pytest.mark.parametrize("held", [None, LOCKS[0], LOCKS[1]])
def test_the_rule_is_not_rewritten_while_a_banip_run_holds_its_lock(tmp_path, held):
    if held:
        (tmp_path / held.lstrip("/")).mkdir(parents=True)
    log = tmp_path / "nft.log"
    runner = 'nft() { cat >> "%s"; }\n%s\n' % (log, replace_command(tmp_path))
    result = subprocess.run([shutil.which("busybox"), "sh", "-c", runner], capture_output=True, text=True, timeout=10, check=False)
    if held:
        assert result.returncode != 0
        assert "banIP lock held: %s" % (tmp_path / held.lstrip("/")) in result.stdout
        assert not log.exists()          # nft never ran: nothing for the running banIP to overwrite
    else:
        assert result.returncode == 0, result.stderr
        assert log.read_text(encoding="utf-8").splitlines() == [
            'replace rule inet banIP pre-routing handle 20 meta nfproto . meta l4proto { ipv4 . icmp, ipv6 . ipv6-icmp } '
            'limit rate over 250/second counter name "cnt_icmpflood" drop']


def test_the_init_script_is_written_once_per_side():
    """banIP's init script: the facts' reading names it (faults/banip_icmp/reads.py BANIP_INIT, which the fault's reasons use), the role its var;
    the role's tasks use the var, never the path itself."""
    variables = yaml.safe_load((ROLE / "vars" / "main.yml").read_text(encoding="utf-8"))
    assert variables["__banip_icmp_init_script"] == reads.BANIP_INIT == "/etc/init.d/banip"
    assert reads.BANIP_INIT in limiter.AUTOSTART_OFF_REASON
    for path in sorted((ROLE / "tasks").glob("*.yml")):
        assert reads.BANIP_INIT not in path.read_text(encoding="utf-8"), path.name
    plugin_utils = ROLE.parents[1] / "plugins" / "plugin_utils"
    for path in sorted(plugin_utils.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert text.count('"%s"' % reads.BANIP_INIT) == (1 if path.relative_to(plugin_utils).as_posix() == "faults/banip_icmp/reads.py" else 0), path


def test_the_role_takes_the_live_decision_from_the_filter():
    """No second planner: the role's stale flag is the filter's answer, given the wanted limit."""
    role_vars = yaml.safe_load((ROLE / "vars" / "main.yml").read_text(encoding="utf-8"))
    assert role_vars["__banip_icmp_live_before"] == (
        "{{ __banip_icmp_chain_before | tunnelfix.fleet.banip_icmp_live(__banip_icmp_wanted) }}")
    assert role_vars["__banip_icmp_live_stale"] == "{{ __banip_icmp_live_before.stale }}"
