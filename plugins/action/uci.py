# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Set or delete one uci option (or a named section) on OpenWrt, with no Python on the router.

Documentation: plugins/modules/uci.py (``ansible-doc tunnelfix.fleet.uci``). The planning is
the pure ``_uci_plan.plan_uci_change``; this file only reads, runs and reports.
"""

from __future__ import annotations

from ansible.errors import AnsibleActionFail

from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.redact import (
    parse_sha256sum, secret_digest, uci_secret_digest_argv)
from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.parse.uci import (
    is_secret_value, parse_uci_show, redact_key_shapes, uci_quote)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.fix.uci_plan import (
    LIST_MODES, STATES, check_uci_params, plan_uci_change, readback_mismatch)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.openwrt_action import OpenWrtActionBase


def _show(text):
    # Secret values arrive already replaced on the router (uci_show_redacted_argv); keep_secrets
    # only stops the parser from replacing them a second time.
    return parse_uci_show(text, keep_secrets=True)


class ActionModule(OpenWrtActionBase):
    """The ``tunnelfix.fleet.uci`` action."""

    ARGUMENT_SPEC = {
        "config": {"type": "str", "required": True},
        "section": {"type": "str", "required": True},
        "type": {"type": "str"},
        "option": {"type": "str"},
        "value": {"type": "raw"},
        "state": {"type": "str", "default": "present", "choices": list(STATES)},
        "list_mode": {"type": "str", "default": "replace", "choices": list(LIST_MODES)},
        "commit": {"type": "bool", "default": True},
        "commit_staged": {"type": "bool", "default": False},
    }
    REQUIRED_IF = [
        ("list_mode", "add_list", ("option", "value")),
        ("list_mode", "del_list", ("option", "value")),
    ]

    def read_config(self, config, ok_rcs=(0,)):
        """``uci -q show CONFIG`` with secret values replaced on the router: raw output shows at -vvv."""
        return self.read_uci_show(config, ok_rcs=ok_rcs)

    def plan(self, parsed, args):
        """plan_uci_change, with a secret option compared by SHA-256 on the router.

        The router never prints a secret, so the parsed config holds REDACTED for it. When the task
        sets a secret option, the router prints the digest of the current value; if it matches the
        wanted value, that value stands in for REDACTED and the plan says unchanged.
        """
        plan = plan_uci_change(parsed, args)
        option, value = args.get("option"), args.get("value")
        if not (plan["changed"] and option and is_secret_value(option, value) and args["state"] == "present"
                and args["list_mode"] == "replace" and isinstance(value, (str, int, float))):
            return plan
        section = parsed.get(args["config"], {}).get(plan["section"])
        if not section or option not in section["options"]:
            return plan
        path = "%s.%s.%s" % (args["config"], plan["section"], option)
        res = self.run_command(uci_secret_digest_argv(path), ok_rcs=(0, 1), shown="uci -q get %s | sha256sum" % path)
        if res["rc"] != 0 or self.parse_output(res, parse_sha256sum) != secret_digest(value):
            return plan
        section["options"][option] = str(value)
        return plan_uci_change(parsed, args)

    def run_openwrt(self, args, task_vars):
        config = args["config"]
        check_uci_params(args)  # a bad name or value fails here, before any command runs
        show = self.read_config(config, ok_rcs=(0, 1))
        if show["rc"] == 1:
            raise AnsibleActionFail(("config: %r not found on the target (%s gave rc=1: no /etc/config/%s, "
                                     "or it does not parse)" % (config, show["cmd"], config)),
                                    result={"cmd": show["cmd"], "rc": show["rc"], "stderr": show["stderr"]})
        parsed = self.parse_output(show, _show)
        plan = self.plan(parsed, args)
        result = {
            "changed": plan["changed"],
            "section": plan["section"],
            "commands": [" ".join(argv) for argv in plan["commands_redacted"]],
            "committed": False,
        }
        if self.diff_mode:
            result["diff"] = plan["diff"]
        if plan["changed"] and args["commit"]:
            # In check mode too: a run that would fail must say so when planned.
            self.refuse_foreign_staged_changes(config, args["commit_staged"])
        if not plan["changed"] or self.check_mode:
            return result

        said = []  # what `uci batch` printed: it exits 0 even when its line failed
        # What to take back on a failure: the option, or the whole section when this task created it.
        target = "%s.%s%s" % (config, plan["section"], "." + args["option"] if args.get("option") and plan["before"] is not None else "")
        try:
            for argv, shown in zip(plan["commands"], plan["commands_redacted"]):
                if argv == shown:
                    self.run_command(argv)
                else:  # a secret value: on stdin of uci batch, never on a command line
                    res = self.run_command(["uci", "batch"], stdin="%s %s\n" % (argv[1], uci_quote(argv[2])),
                                           shown="uci batch <<< %s" % " ".join(shown[1:]))
                    if res["stderr"].strip():
                        said.append(redact_key_shapes(None, " ".join(res["stderr"].split())))
        except AnsibleActionFail:
            # A command that failed outright: take back what the earlier ones staged (the section it created,
            # say), then fail with that command's own error.
            try:
                self.run_command(["uci", "revert", target], ok_rcs=(0, 1))
            except AnsibleActionFail:
                pass   # the command's own error below says what failed; a revert that fails too adds nothing
            raise
        # Read back before committing: only the value read back tells whether a write took (`uci batch`
        # exits 0 whatever failed; a connection may not pass stdin, as podman exec without -i).
        staged = self.parse_output(self.read_config(config), _show)
        try:
            took = not self.plan(staged, args)["changed"]
        except ParseError:  # the section is gone
            took = False
        if not took:
            # Take back what this task staged, so a later commit of the same config cannot commit it.
            self.run_command(["uci", "revert", target], ok_rcs=(0, 1))
            raise AnsibleActionFail(
                "uci: %s does not hold the new value after %s: %s%s; nothing was committed and the staged change "
                "was reverted (if the value is a secret it went on the stdin of 'uci batch': use a connection "
                "that passes stdin, such as ssh)"
                % (target, "; ".join(result["commands"]), readback_mismatch(staged, args) or "read back differs",
                   "; uci batch said: %s" % " / ".join(said) if said else ""))
        if args["commit"]:
            self.run_command(["uci", "commit", config])
            result["committed"] = True
        return result
