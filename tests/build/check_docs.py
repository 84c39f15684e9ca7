#!/usr/bin/env python
"""Render the docs of every plugin and every role entry point of an INSTALLED tunnelfix.fleet.

Usage: check_docs.py COLLECTIONS_PATH
  COLLECTIONS_PATH  a directory holding ansible_collections/tunnelfix/fleet (the installed
                    artifact, see check_artifact.sh); nothing else may provide tunnelfix.fleet.

Discovery is from the installed tree, so a new plugin or role is covered without editing this file:
  plugins/<type>/NAME.py|NAME.yml   -> ansible-doc -t <type> tunnelfix.fleet.NAME
                                       (filter/test: also every name the plugin files export)
  plugins/action/NAME.py            -> needs the docs-only twin plugins/modules/NAME.py
  roles/ROLE/meta/argument_specs.yml -> ansible-doc -t role tunnelfix.fleet.ROLE -e ENTRY_POINT
Fails on a non-zero exit, any output on stderr (ansible-doc only warns, exit 0, about a plugin it
cannot find or parse), empty docs, or a module/filter without examples or return values.
Prints one line per checked name and a closing 'N passed, N failed' line.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

COLLECTION = "tunnelfix.fleet"
# plugins/<dir> -> ansible-doc type; None = not a documented plugin type.
PLUGIN_DIRS = {
    "modules": "module", "filter": "filter", "test": "test", "lookup": "lookup",
    "callback": "callback", "connection": "connection", "inventory": "inventory",
    "become": "become", "cache": "cache", "vars": "vars", "strategy": "strategy",
    "shell": "shell", "cliconf": "cliconf", "httpapi": "httpapi", "netconf": "netconf",
    "action": None, "module_utils": None, "plugin_utils": None, "doc_fragments": None,
}
# Types whose docs must carry EXAMPLES and RETURN (house style).
NEEDS_EXAMPLES_RETURN = {"module", "filter", "test", "lookup"}
CPATH = ""  # the collections path under test (set by main)


# Warnings ansible-core prints about itself, whatever is documented: left out of stderr, and only these.
#   2.21: `ansible-doc -t role` of any role (ansible.builtin.no_such_role too) warns that its internal
#   collection ansible._protomatter has no MANIFEST.json nor galaxy.yml.
ANSIBLE_CORE_OWN_WARNINGS = (
    re.compile(r"^\[WARNING\]: Collection at '[^']*/ansible/_internal/ansible_collections/ansible/_protomatter' does not have "
               r"a MANIFEST\.json file, nor has it galaxy\.yml: cannot detect version\.$"),
)


def ansible_doc(env, *args):
    """Run ansible-doc with ARGS; return (rc, stdout, stderr) as text, stderr without ANSIBLE_CORE_OWN_WARNINGS."""
    proc = subprocess.run(["ansible-doc", *args], env=env, capture_output=True, text=True, check=False)
    stderr = "".join(line for line in proc.stderr.splitlines(keepends=True)
                     if not any(known.match(line.rstrip("\n")) for known in ANSIBLE_CORE_OWN_WARNINGS))
    return proc.returncode, proc.stdout, stderr


def plugin_names(root, env):
    """Map ansible-doc type -> sorted plugin names found under ROOT/plugins. Unknown dirs are errors."""
    found, errors = {}, []
    for sub in sorted(p for p in (root / "plugins").iterdir() if p.is_dir() and p.name != "__pycache__"):
        if sub.name not in PLUGIN_DIRS:
            errors.append(f"plugins/{sub.name}: unknown plugin directory (add it to PLUGIN_DIRS)")
            continue
        ptype = PLUGIN_DIRS[sub.name]
        if ptype is None:
            continue
        names = {p.stem for p in sub.iterdir()
                 if p.suffix in (".py", ".yml", ".yaml") and p.stem != "__init__"}
        if ptype in ("filter", "test"):
            # A .py file exports many jinja2 names; the .yml files document them one by one.
            names = {p.stem for p in sub.iterdir() if p.suffix in (".yml", ".yaml")}
            rc, out, err = ansible_doc(env, "-t", ptype, "--list", "--json", COLLECTION)
            if rc or err.strip():
                errors.append(f"ansible-doc -t {ptype} --list {COLLECTION}: rc={rc} {err.strip()}")
            else:
                exported = {k.split(".")[-1] for k in json.loads(out or "{}")}
                for name in sorted(exported - names):
                    errors.append(f"{ptype} {name}: exported by plugins/{sub.name}/*.py but has no {name}.yml docs")
                names |= exported
        if names:
            found.setdefault(ptype, set()).update(names)
    modules = found.get("module", set())
    action_dir = root / "plugins" / "action"
    if action_dir.is_dir():
        for p in sorted(action_dir.glob("*.py")):
            if p.stem != "__init__" and p.stem not in modules:
                errors.append(f"action {p.stem}: no docs-only twin plugins/modules/{p.stem}.py")
    return {k: sorted(v) for k, v in found.items()}, errors


def check_plugins(ptype, names, env):
    """Render NAMES of PTYPE as JSON and as text; return (passed names, error lines).

    All names go to one ansible-doc call per format (fast); if that call fails or warns, each name is
    rendered alone so the failure names the plugin.
    """
    fqcns = [f"{COLLECTION}.{n}" for n in names]
    batch = _render(ptype, fqcns, env)
    if not batch[None]:
        del batch[None]
        results = batch
    else:
        results = {}
        for fqcn in fqcns:
            single = _render(ptype, [fqcn], env)
            results[fqcn] = single[None] + single[fqcn]
    passed = [f for f in fqcns if not results[f]]
    errors = [f"{ptype} {f}: {problem}" for f in fqcns for problem in results[f]]
    return passed, errors


def _render(ptype, fqcns, env):
    """Problems per fqcn, and under None those of the ansible-doc calls themselves."""
    problems = {None: [], **{f: [] for f in fqcns}}
    rc, out, err = ansible_doc(env, "-t", ptype, "--json", *fqcns)
    if rc or err.strip():
        problems[None].append(f"ansible-doc --json: rc={rc} stderr: {err.strip()}")
    try:
        docs = json.loads(out) if out.strip() else {}
    except ValueError:
        docs = {}
    for fqcn in fqcns:
        entry = docs.get(fqcn) or {}
        doc = entry.get("doc") or {}
        if not doc.get("short_description") or not doc.get("description"):
            problems[fqcn].append("empty short_description/description")
        if ptype in NEEDS_EXAMPLES_RETURN:
            if not (entry.get("examples") or "").strip():
                problems[fqcn].append("no EXAMPLES")
            if not entry.get("return"):
                problems[fqcn].append("no RETURN")
    rc, out, err = ansible_doc(env, "-t", ptype, *fqcns)
    if rc or err.strip():
        problems[None].append(f"ansible-doc (text): rc={rc} stderr: {err.strip()}")
    for fqcn in fqcns:
        header = f"> {ptype.upper()} {fqcn} ({CPATH}/"
        if header not in out:
            problems[fqcn].append(f"no '{header}...' header in the text rendering (missing, or not the installed copy)")
    return problems


def check_roles(root, env):
    """Render every entry point of every role; return (passed 'role -e ep' labels, error lines)."""
    passed, errors = [], []
    for role in sorted(p for p in (root / "roles").iterdir() if p.is_dir()):
        spec_file = role / "meta" / "argument_specs.yml"
        if not spec_file.is_file():
            errors.append(f"role {role.name}: no meta/argument_specs.yml")
            continue
        specs = (yaml.safe_load(spec_file.read_text()) or {}).get("argument_specs") or {}
        if not specs:
            errors.append(f"role {role.name}: meta/argument_specs.yml has no entry points")
        fqcn = f"{COLLECTION}.{role.name}"
        for entry_point in sorted(specs):
            label = f"role {fqcn} -e {entry_point}"
            rc, out, err = ansible_doc(env, "-t", "role", fqcn, "-e", entry_point)
            problems = []
            if rc or err.strip():
                problems.append(f"rc={rc} stderr: {err.strip()}")
            if not re.search(rf"^> ROLE: \*?{re.escape(fqcn)}\*? \({re.escape(CPATH)}/", out, re.M):
                problems.append(f"no '> ROLE: {fqcn} ({CPATH}/...' header (missing, or not the installed copy)")
            if not re.search(rf"^ENTRY POINT: \*?{re.escape(entry_point)}\*? - \S", out, re.M):
                problems.append("no 'ENTRY POINT' line with a short description in the rendering")
            if not re.search(r"^Options ", out, re.M) and (specs[entry_point] or {}).get("options"):
                problems.append("options declared but not rendered")
            if problems:
                errors.extend(f"{label}: {p}" for p in problems)
            else:
                passed.append(label)
    return passed, errors


def main():
    """Entry point; exit 1 on any problem."""
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    global CPATH  # pylint: disable=global-statement
    cpath = Path(sys.argv[1]).resolve()
    CPATH = str(cpath)
    root = cpath / "ansible_collections" / "tunnelfix" / "fleet"
    if not (root / "MANIFEST.json").is_file():
        sys.exit(f"FAIL: {root} is not an installed collection (no MANIFEST.json)")
    with tempfile.TemporaryDirectory(prefix="tf-docs-") as tmp:
        # A config and a working directory that cannot see the source tree's collections_path.
        cfg = Path(tmp) / "ansible.cfg"
        cfg.write_text(f"[defaults]\ncollections_path = {cpath}\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith("ANSIBLE_")}
        env.update(ANSIBLE_CONFIG=str(cfg), ANSIBLE_NOCOLOR="1", ANSIBLE_HOME=str(Path(tmp) / "home"),
                   ANSIBLE_DEPRECATION_WARNINGS="1")
        os.chdir(tmp)
        passed, errors = [], []
        found, errs = plugin_names(root, env)
        errors += errs
        for ptype, names in sorted(found.items()):
            ok, errs = check_plugins(ptype, names, env)
            passed += [f"{ptype} {n}" for n in ok]
            errors += errs
        ok, errs = check_roles(root, env)
        passed += ok
        errors += errs
    for line in passed:
        print(f"ok   {line}")
    for line in errors:
        print(f"FAIL {line}")
    print(f"{len(passed)} passed, {len(errors)} failed")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
