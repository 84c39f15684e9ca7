# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault 2's readings (faults/banip_icmp/reads.py): the batch steps banIP's and mwan3's readings list on a router.

The gathers are tested in openwrt_facts' action tests (tests/unit/plugins/action/test_openwrt_facts_action.py), on a
fake router that runs the batch; the steps are built when the module is imported, so they are pinned here."""

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.faults.banip_icmp.reads import (
    BANIP, BANIP_INIT, MWAN3, NFT_JSON, NFT_TEXT, _banip, _banip_steps, _mwan3)


def test_banip_steps_list_every_command_once_and_nft_text_only_after_json_failed():
    steps = _banip_steps()
    assert [step.name for step in steps] == [
        "ls -1d /etc/init.d/banip",
        "command -v apk", "apk list --installed banip",
        "command -v opkg", "opkg list-installed banip",
        "uci -q show banip",
        "command -v nft", "nft -tj list table inet banIP", "nft -t list table inet banIP"]
    assert [step.argv for step in steps if not step.name.startswith("uci ")] == [
        ["ls", "-1d", "/etc/init.d/banip"],
        ["command", "-v", "apk"], ["apk", "list", "--installed", "banip"],
        ["command", "-v", "opkg"], ["opkg", "list-installed", "banip"],
        ["command", "-v", "nft"], ["nft", "-tj", "list", "table", "inet", "banIP"], ["nft", "-t", "list", "table", "inet", "banIP"]]
    # the terse text listing (no JSON in nft) runs only when nft -tj just failed; nothing else is conditional
    assert [(step.name, step.after_failure, step.after_success) for step in steps if step.after_failure or step.after_success] == [
        ("nft -t list table inet banIP", True, False)]
    assert steps[-2].argv == NFT_JSON and steps[-1].argv == NFT_TEXT and BANIP_INIT in steps[0].argv


def test_the_readings_on_openwrt_only():
    assert (BANIP.name, list(BANIP.reads), BANIP.reads["openwrt"].steps, BANIP.reads["openwrt"].gather) == (
        "banip", ["openwrt"], _banip_steps(), _banip)
    assert (MWAN3.name, list(MWAN3.reads), MWAN3.reads["openwrt"].gather) == ("mwan3", ["openwrt"], _mwan3)
    assert [step.name for step in MWAN3.reads["openwrt"].steps] == ["command -v mwan3", "mwan3 interfaces", "uci -q show mwan3"]
