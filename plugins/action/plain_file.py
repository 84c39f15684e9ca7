# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Write a whole text file, or a marked block in one, with no Python on the target.

Documentation: plugins/modules/plain_file.py (``ansible-doc tunnelfix.fleet.plain_file``).
Reading and block editing are the pure ``_text_file`` functions; this file only runs and reports.
"""

from __future__ import annotations

import posixpath

from ansible.errors import AnsibleActionFail

from ansible_collections.tunnelfix.fleet.plugins.module_utils._errors import ParseError
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.text_file import (
    EOF_MARK, READ_SCRIPT, marked_block, normalize_mode, parse_file_probe)
from ansible_collections.tunnelfix.fleet.plugins.plugin_utils.remote.openwrt_action import OpenWrtActionBase

NEW_FILE_MODE = "0644"
# $1 path, $2 mode; content on stdin; written next to the file, then renamed over it
WRITE_SCRIPT = ('mkdir -p "$(dirname "$1")" && cat > "$1.tunnelfix-new" && chmod "$2" "$1.tunnelfix-new" '
                '&& mv -f "$1.tunnelfix-new" "$1"')
# the same for empty content: no standard input to read (some connections send none for b"")
EMPTY_SCRIPT = WRITE_SCRIPT.replace("cat >", ": >")
# state=absent: READ_SCRIPT's output, then the file is removed in the same round trip once read
REMOVE_SCRIPT = ('if [ -f "$1" ]; then echo present; stat -c %a "$1" && cat "$1" && printf %s '
                 + EOF_MARK + ' && rm -f "$1"; elif [ -e "$1" ]; then echo "not a regular file"; exit 3; '
                 'else echo absent; fi')


class ActionModule(OpenWrtActionBase):
    """The ``tunnelfix.fleet.plain_file`` action."""

    ARGUMENT_SPEC = {
        "path": {"type": "str", "required": True},
        "content": {"type": "str"},
        "block": {"type": "str"},
        "marker": {"type": "str", "default": "tunnelfix.fleet"},
        "insert_before": {"type": "str"},
        "mode": {"type": "str"},
        "state": {"type": "str", "choices": ["present", "absent"], "default": "present"},
    }
    MUTUALLY_EXCLUSIVE = [("content", "block")]
    REQUIRED_IF = [("state", "present", ("content", "block"), True)]

    def run_openwrt(self, args, task_vars):
        path = args["path"]
        if not posixpath.isabs(path) or path.endswith("/"):
            raise AnsibleActionFail("path: must be an absolute file path, got %r" % path)
        try:
            wanted_mode = normalize_mode(args["mode"]) if args["mode"] is not None else None
        except ParseError as exc:
            raise AnsibleActionFail("mode: %s" % exc) from None
        if args["state"] == "absent":
            if args["content"] is not None or args["block"] is not None or wanted_mode is not None:
                raise AnsibleActionFail("state=absent removes %s: content, block and mode must not be set" % path)
            return self.remove(path)

        probe = self.run_command(["sh", "-c", READ_SCRIPT, "sh", path], ok_rcs=(0, 3))
        if probe["rc"] == 3:
            raise AnsibleActionFail("path: %r exists and is not a regular file" % path,
                                    result={"cmd": probe["cmd"], "rc": probe["rc"]})
        current = self.parse_output(probe, parse_file_probe)
        before = current["content"] if current["exists"] else ""
        if args["content"] is not None:
            after = args["content"]
        else:
            try:
                after = marked_block(before, args["block"], args["marker"], args["insert_before"])
            except ParseError as exc:
                raise AnsibleActionFail("%s: %s" % (path, exc)) from None
        mode = wanted_mode or current["mode"] or NEW_FILE_MODE

        changed = (not current["exists"]) or after != before or mode != current["mode"]
        result = {"changed": changed, "path": path, "mode": mode, "created": not current["exists"]}
        if self.diff_mode:
            result["diff"] = {"before": before, "after": after,
                              "before_header": "%s (mode %s)" % (path, current["mode"] or "absent"),
                              "after_header": "%s (mode %s)" % (path, mode)}
        if changed and not self.check_mode:
            if after:
                self.run_command(["sh", "-c", WRITE_SCRIPT, "sh", path, mode], stdin=after,
                                 shown="write %s (mode %s)" % (path, mode))
            else:
                self.run_command(["sh", "-c", EMPTY_SCRIPT, "sh", path, mode], shown="empty %s (mode %s)" % (path, mode))
            # Read back: a connection that does not pass stdin (podman exec without -i) would
            # otherwise leave an empty file behind a task that reports success.
            written = self.parse_output(self.run_command(["sh", "-c", READ_SCRIPT, "sh", path]), parse_file_probe)
            if written["content"] != after or written["mode"] != mode:
                raise AnsibleActionFail(
                    "path: %s does not hold the new content (mode %s) after writing it; the content goes on "
                    "stdin, so use a connection that passes stdin, such as ssh" % (path, written["mode"]),
                    result={"path": path})
        return result

    def remove(self, path):
        """state=absent: one round trip, the read alone in check mode, read and ``rm -f`` otherwise."""
        script = READ_SCRIPT if self.check_mode else REMOVE_SCRIPT
        probe = self.run_command(["sh", "-c", script, "sh", path], ok_rcs=(0, 3),
                                 shown=None if self.check_mode else "remove %s" % path)
        if probe["rc"] == 3:
            raise AnsibleActionFail("path: %r exists and is not a regular file" % path,
                                    result={"cmd": probe["cmd"], "rc": probe["rc"]})
        current = self.parse_output(probe, parse_file_probe)
        result = {"changed": current["exists"], "path": path, "mode": None, "created": False,
                  "removed": current["exists"]}
        if self.diff_mode and current["exists"]:
            result["diff"] = {"before": current["content"], "after": "",
                              "before_header": "%s (mode %s)" % (path, current["mode"]),
                              "after_header": "%s (absent)" % path}
        return result
