# tunnelfix.fleet — the two commands that matter:
#   make demo   install what is needed, start the lab, run playbooks/site.yml, print before/after
#   make test   install what is needed, lint, ansible-test sanity, unit and bad-input tests, packaging and
#               execution environment, molecule scenarios, the lab end-to-end, rollout and rollback checks
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
export CONTAINERS_CONF := $(CURDIR)/lab/containers.conf
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
# The OpenWrt release profile of the lab's router image (lab/images/openwrt-release.sh): 23.05, 24.10 or 25.12.
export TUNNELFIX_OPENWRT_RELEASE ?= 24.10
export TUNNELFIX_OPENWRT_IMAGE ?= localhost/tunnelfix/openwrt-like:$(TUNNELFIX_OPENWRT_RELEASE)
export PATH := $(CURDIR)/.venv/bin:$(PATH)
INVENTORY := lab/state/inventory.yml
MOLECULE_SCENARIOS := $(notdir $(patsubst %/molecule.yml,%,$(wildcard molecule/*/molecule.yml)))
# The release profiles (lab/images/openwrt-release.sh names them) and the scenarios that run the OpenWrt-like image
# (their molecule.yml takes it from TUNNELFIX_OPENWRT_IMAGE). make molecule-openwrt runs SCENARIOS on RELEASE's profile.
OPENWRT_RELEASES := $(shell sed -n 's/^OPENWRT_RELEASES=(\(.*\))$$/\1/p' lab/images/openwrt-release.sh)
OPENWRT_MOLECULE_SCENARIOS := $(notdir $(patsubst %/molecule.yml,%,$(shell grep -l TUNNELFIX_OPENWRT_IMAGE molecule/*/molecule.yml)))
RELEASE ?= $(TUNNELFIX_OPENWRT_RELEASE)
SCENARIOS ?= $(OPENWRT_MOLECULE_SCENARIOS)
# make test: every scenario on the default profile (molecule), these two on every other profile (molecule-profiles).
PROFILE_MOLECULE_SCENARIOS := banip_icmp openwrt_mwan3_wg

.PHONY: demo test deps images lab-up lab-fresh lab-down lint sanity unit bad-input-test openwrt-image-test \
	report-browser-test molecule molecule-openwrt molecule-profiles molecule-early molecule-late e2e pmtu-e2e graph-e2e release-e2e build ee clean bench bench-smoke bench-slots bench-slots-smoke bench-graph mutation user-pipeline rollout-test rollback-test role-docs role-specs findings-doc changelog release \
	test-independent test-lab venv-2.20 venv-2.21 matrix-2.19 matrix-2.20 matrix-2.21 readme-2.19 matrix-newer \
	changelog-check prometheus-rules-test

# Install (scripts/bootstrap.sh), then check that every program the scripts run on the host comes from a
# package that install provides (scripts/host-commands.txt; fails naming the command and the package).
deps:
	scripts/bootstrap.sh
	.venv/bin/python scripts/check_host_packages.py

images: deps
	lab/images/build.sh
	lab/images/build-openwrt.sh

lab-up: images
	lab/up.sh

# The demo re-plants the faults each time: the containers are recreated (about 10 s), the image,
# the venv and the packages are reused.
lab-fresh: images
	lab/down.sh
	lab/up.sh

demo: lab-fresh
	ansible-playbook -i $(INVENTORY) playbooks/site.yml
	@echo; echo "Before/after (reports/before-after.txt; as Markdown: reports/before-after.md):"; cat reports/before-after.txt
	@echo; echo "The same as a page with charts: reports/report.html; for machines: reports/report.json"

lab-down:
	lab/down.sh $(if $(IMAGES),--images,)

# ansible-lint puts ~/.ansible/collections first: a tunnelfix.fleet installed there (a user's
# ansible-galaxy install) would be linted instead of this tree. Its own ANSIBLE_HOME keeps it out.
lint: deps
	yamllint -s .
	ANSIBLE_HOME=$(CURDIR)/.cache/ansible-lint-home ansible-lint --offline

# ansible-test sanity on a copy of the tree in the ansible_collections layout, no ignore file
# (about 1 min; 2-3 min on the first run, which installs ansible-test's test venvs under .cache/sanity).
sanity: deps
	tests/sanity/run.sh

unit: deps
	python -m pytest -q tests/unit

# Bad input for every role, module/action and the main filters through ansible-playbook (no lab,
# about 25 s): each must fail naming the option and the value, never with a traceback.
bad-input-test: deps
	tests/bad_input/run.sh

# The python-free OpenWrt-like test image: its uci emulator and the uci action against it, its release files and
# package manager, on every release profile (each image built first when missing; about 30 s a profile).
openwrt-image-test: images
	@rc=0; for r in $(OPENWRT_RELEASES); do echo "== tests/openwrt_image/run.sh, OpenWrt $$r"; \
	  TUNNELFIX_OPENWRT_RELEASE="$$r" TUNNELFIX_OPENWRT_IMAGE="$$(. lab/images/openwrt-release.sh && openwrt_image_for "$$r")" \
	    tests/openwrt_image/run.sh || rc=1; done; exit "$$rc"

# reports/report.html from fixtures, in headless Chromium: bars in the DOM, colours in a screenshot.
report-browser-test: deps
	tests/report_browser/run.sh

# lab-up first: it allows bbr and cubic in the host's tcp_allowed_congestion_control, which a
# container (a child network namespace) needs to select them.
molecule: lab-up
	tests/molecule/run.sh $(MOLECULE_SCENARIOS)

# make test splits the scenarios (one lock: they take turns): the first stage runs all but LATE_MOLECULE_SCENARIOS,
# the second runs those beside the lab tests at nice 19 (molecule-late), with the other profiles' runs.
LATE_MOLECULE_SCENARIOS := wireguard_mtu wireguard_mtu_networkd wireguard_mtu_openwrt
molecule-early: lab-up
	tests/molecule/run.sh $(filter-out $(LATE_MOLECULE_SCENARIOS),$(MOLECULE_SCENARIOS))

# The OpenWrt scenarios on one release profile, its image built first: make molecule-openwrt RELEASE=23.05
# [SCENARIOS="banip_icmp openwrt_mwan3_wg"] (the image: the configured one's name with the release as its tag).
molecule-openwrt: lab-up
	tests/molecule/run.sh --release $(RELEASE) $(SCENARIOS)

# make test: banip_icmp and openwrt_mwan3_wg on the profiles other than the default one (molecule runs them there;
# a scenario's runs wait for each other, tests/molecule/run.sh).
molecule-profiles: lab-up
	tests/molecule/run.sh $(addprefix --release ,$(filter-out $(TUNNELFIX_OPENWRT_RELEASE),$(OPENWRT_RELEASES))) \
	  $(PROFILE_MOLECULE_SCENARIOS)

# On the newest ansible-core of the matrix (.venv-ansible-2.21); fails on any warning line of its runs.
e2e: lab-up venv-2.21
	TUNNELFIX_VENV=.venv-ansible-2.21 tests/e2e/run.sh

# The PMTU black hole (tests/pmtu/run.sh, lab/README.md): baseline flows, the hole on (lab/black_hole.sh), diagnose ->
# remediate -> verify for peer, owrt and hub, the flows at >= 90 % of the baseline, the hole off and wg0 at 1420 again.
# Not in make test (its time limit): run it after a change to the PMTU fault (about 4 minutes; on a lab e2e left fixed,
# or a fresh one: it remediates first). PMTU_E2E_ARGS=--manual: the MTU by hand.
pmtu-e2e: lab-up
	tests/pmtu/run.sh $(PMTU_E2E_ARGS)

# The tunnel graph on the lab (tests/graph/run.sh, docs/tunnel-graph.md): the keepalive on the wrong side of owrt <-> hub
# and a preshared key on one end of peer <-> hub planted with real wireguard-go, diagnose -> remediate (wireguard_keepalive
# on owrt) -> verify, then two different preshared keys and a dropped path classified; the lab restored (about 90 s;
# not part of make test).
graph-e2e: lab-up
	tests/graph/run.sh

# The demo's path for the router on other OpenWrt release profiles (tests/release/run.sh: the lab planted anew with
# owrt on that release's image, diagnose -> remediate -> verify for owrt, the live rule, uci and route read back;
# about 4 minutes each). make test runs 23.05 (e2e covers the default 24.10; molecule covers 25.12). It leaves the
# lab on the last profile: the next lab-up plants the default one again.
RELEASE_E2E ?= 23.05
release-e2e: lab-up
	@for r in $(RELEASE_E2E); do tests/release/run.sh "$$r"; done

# The ansible-core matrix (tests/matrix/run.sh, docs/compatibility.md): per release, ansible-test sanity, the
# unit tests, and build -> install into an empty path -> ansible-doc -> the FQCN playbook, with no warning.
# 2.19 runs on .venv; 2.20 and 2.21 need Python >= 3.12 (scripts/matrix_venv.sh finds one or fails naming it).
venv-2.20 venv-2.21: deps
	scripts/matrix_venv.sh $(@:venv-%=%)

matrix-2.19: deps
	tests/matrix/run.sh 2.19 sanity unit build

# The README's controller install as written (pip from PyPI), on Debian 12's Python 3.11.
readme-2.19: deps
	tests/matrix/run.sh 2.19 readme

matrix-2.20: venv-2.20
	tests/matrix/run.sh 2.20

matrix-2.21: venv-2.21
	tests/matrix/run.sh 2.21

# The newer releases' legs and the 2.19 README install, one after the other at the lowest CPU priority:
# make test runs them beside the lab stage, which spends most of its time waiting on timed windows and
# shaped flows.
matrix-newer: deps
	nice -n 19 $(MAKE) --no-print-directory -j1 readme-2.19 matrix-2.20 matrix-2.21

changelog-check: deps
	tests/build/check_changelog.sh

# The alert rules shipped in roles/prometheus_textfile/files/ (scripts/prometheus_rules.py writes them and their
# promtool tests from the fault registry): current with the registry, promtool check rules, promtool test rules
# (each alert on both sides of its boundary). Seconds, no lab.
prometheus-rules-test: deps
	.venv/bin/python scripts/prometheus_rules.py --check
	promtool check rules roles/prometheus_textfile/files/tunnelfix.rules.yml
	promtool test rules tests/prometheus/tunnelfix.test.yml

# Build the artifact, install it into an empty collections path, ansible-doc every plugin and role entry
# point from there, a FQCN-only playbook, and CHANGELOG.rst up to date with changelogs/fragments/.
build: deps
	tests/build/run.sh

# The AWX/AAP execution environment (execution-environment.yml): base image from the lab's Debian
# image, ansible-builder, then ansible-doc/ansible-playbook/ansible-runner inside it (no network).
ee: images
	tests/ee/run.sh

# The user CI pipeline example (examples/user-ci/) against the lab, with the collection from the built artifact.
user-pipeline: lab-up
	tests/user_pipeline/run.sh

# Rollout control on the running lab (docs/rollout.md): a tarpit host marked unreachable without a stall,
# the task timeout, canary/serial/max_fail_percentage, 5 peers against one hub with no "server is busy".
rollout-test: lab-up
	tests/rollout/run.sh

# Lockout safety on the running lab (docs/rollback.md): broken changes applied through the tunnel the
# connection uses roll back by themselves, byte-identical; a harmless one is confirmed and kept.
rollback-test: lab-up
	tests/rollback/run.sh

# docs/roles/<role>.md from roles/*/meta/argument_specs.yml (tests/unit/docs fails when a page drifts).
role-docs: deps
	.venv/bin/python scripts/role_docs.py

# plugins/plugin_utils/faults/role_specs.py (every role's options, defaults and choices) from the same specs:
# the faults' plans and the role option checks read it (tests/unit/scripts/test_role_specs.py fails when it drifts).
role-specs: deps
	.venv/bin/python scripts/role_specs.py

# docs/findings.md's evidence tables from each fault's Fault.evidence (tests/unit/docs fails when one drifts).
findings-doc: deps
	.venv/bin/python scripts/findings_doc.py

# CHANGELOG.rst again from changelogs/changelog.yaml (make changelog-check fails when it is stale).
changelog: deps
	changelogs/release.sh --generate

# Release the version galaxy.yml names (raise it first: one version, one release): the pending fragments of
# changelogs/fragments/ are recorded under it in changelogs/changelog.yaml and CHANGELOG.rst is written.
release: deps
	changelogs/release.sh

# Two stages. First the checks that need no lab, the molecule scenarios on the default OpenWrt profile but the
# LATE_MOLECULE_SCENARIOS (their own containers), the OpenWrt image's table on every profile, the ansible-core 2.19
# leg of the matrix and the bench smoke run, two at a time (this is a 2-core machine; none of them measures
# throughput); each target's output is shown whole when it ends. Then the lab tests one after the other (they share
# the lab and measure throughput): the user pipeline alone (it failed once in CI with the matrix legs beside it:
# owrt's endpoint route still on the backup uplink right after the banIP fix, not understood yet), then e2e, rollout,
# rollback and release-e2e with, beside them at nice 19, the 2.20 and 2.21 legs and the 2.19 README install, and the
# late molecule runs (LATE_MOLECULE_SCENARIOS, then banip_icmp and openwrt_mwan3_wg on the other OpenWrt profiles:
# molecule runs take turns on one lock, so in the first stage they made the molecule chain its longest part). Last,
# the matrix table (tests/matrix/table.sh). make pmtu-e2e (the PMTU black hole, about 4 minutes) is not part of make
# test, to keep it under its 45 minutes: run it after a change to the PMTU fault.
test:
	$(MAKE) --no-print-directory -j2 --output-sync=target test-independent
	$(MAKE) --no-print-directory user-pipeline
	$(MAKE) --no-print-directory -j3 --output-sync=target test-lab matrix-newer molecule-late
	tests/matrix/table.sh

test-independent: molecule-early lint matrix-2.19 venv-2.21 bad-input-test changelog-check ee openwrt-image-test \
	report-browser-test bench-smoke prometheus-rules-test

# LATE_MOLECULE_SCENARIOS and molecule-profiles' runs at the lowest CPU priority, beside the lab tests (make test's
# second stage; run.sh directly: a make target here would run lab/up.sh again while the lab tests use the lab).
molecule-late: lab-up
	nice -n 19 tests/molecule/run.sh $(LATE_MOLECULE_SCENARIOS)
	nice -n 19 tests/molecule/run.sh $(addprefix --release ,$(filter-out $(TUNNELFIX_OPENWRT_RELEASE),$(OPENWRT_RELEASES))) \
	  $(PROFILE_MOLECULE_SCENARIOS)

test-lab: lab-up venv-2.21
	$(MAKE) --no-print-directory -j1 e2e rollout-test rollback-test release-e2e

clean:
	rm -rf .cache reports

# The fleet-scale benchmark (bench/, docs/performance.md): N = 5, 10, 20, 40 bench hosts, then the
# lab's before/after (re-plants the lab: lab/down.sh + lab/up.sh + site.yml). BENCH_ARGS adds options.
bench: images
	.venv/bin/python bench/run.py $(BENCH_ARGS)

# The slots benchmark (bench/slots.py, issue 19; not part of make test, no lab): H = 4 hubs and N = 16 peers of
# its own (bench/slots_fleet.sh: real WireGuard, each hub's path shaped to 10 Mbit/s), playbooks/verify.yml twice
# on the same fleet, every hub in one tunnelfix_bottleneck_group (serial) and none (slotted); wall times, per-flow
# rates paired per peer, CPU and load into docs/performance-slots.json and docs/performance.md (about 15 min).
bench-slots: images
	.venv/bin/python bench/slots.py $(BENCH_ARGS)

# H = 2, N = 4, 3 s flows, no sweep, results in a temporary directory; fails unless both legs completed with a
# valid flow per peer and no hub took part in two flows at once (about 2 min).
bench-slots-smoke: images
	.venv/bin/python bench/slots.py --smoke

# The tunnel graph's benchmark (bench/graph.py, issue 32; not part of make test, no lab): synthetic fleets of 250 to 2,000
# hosts with 10 peers each, the graph built and every graph rule run on every host; fails if a seeded fault is not found.
bench-graph: deps
	.venv/bin/python bench/graph.py

# Mutation testing (mutmut) of the faults, parsers, fix plans and measurement judges: a report like the benchmark, not part of
# make test (over an hour on 2 cores since it also covers fix/ and the judges); .cache/mutation/report.md has the score per file and the survivors.
mutation: deps
	.venv/bin/python scripts/mutation.py

# N = 2, no lab, results in a temporary directory; fails unless every phase completed and the
# floor cost exactly one remote execution per host (under a minute).
bench-smoke: images
	.venv/bin/python bench/run.py --smoke
