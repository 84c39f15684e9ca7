# tunnelfix.fleet — the two commands that matter:
#   make demo   install what is needed, start the lab, run playbooks/site.yml, print before/after
#   make test   install what is needed, lint, unit tests, molecule scenarios, lab end-to-end check
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
export CONTAINERS_CONF := $(CURDIR)/lab/containers.conf
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
export PATH := $(CURDIR)/.venv/bin:$(PATH)
INVENTORY := lab/state/inventory.yml
MOLECULE_SCENARIOS := $(notdir $(wildcard molecule/*))

.PHONY: demo test deps images lab-up lab-fresh lab-down lint unit openwrt-image-test report-browser-test molecule e2e build clean bench bench-smoke

deps:
	scripts/bootstrap.sh

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
	@echo; echo "Before/after (reports/before-after.md):"; cat reports/before-after.md
	@echo; echo "The same as a page with charts: reports/report.html; for machines: reports/report.json"

lab-down:
	lab/down.sh $(if $(IMAGES),--images,)

# ansible-lint puts ~/.ansible/collections first: a tunnelfix.fleet installed there (a user's
# ansible-galaxy install) would be linted instead of this tree. Its own ANSIBLE_HOME keeps it out.
lint: deps
	yamllint -s .
	ANSIBLE_HOME=$(CURDIR)/.cache/ansible-lint-home ansible-lint --offline

unit: deps
	python -m pytest -q tests/unit

# The python-free OpenWrt-like test image: its uci emulator and the uci action against it.
openwrt-image-test: images
	tests/openwrt_image/run.sh

# reports/report.html from fixtures, in headless Chromium: bars in the DOM, colours in a screenshot.
report-browser-test: deps
	tests/report_browser/run.sh

# lab-up first: it allows bbr and cubic in the host's tcp_allowed_congestion_control, which a
# container (a child network namespace) needs to select them.
molecule: lab-up
	@for s in $(MOLECULE_SCENARIOS); do echo "== molecule test -s $$s"; molecule test -s $$s; done

e2e: lab-up
	tests/e2e/run.sh

build: deps
	tests/build/check_artifact.sh

test: lint unit build openwrt-image-test report-browser-test molecule bench-smoke e2e

clean:
	rm -rf .cache reports

# The fleet-scale benchmark (bench/, docs/performance.md): N = 5, 10, 20, 40 bench hosts, then the
# lab's before/after (re-plants the lab: lab/down.sh + lab/up.sh + site.yml). BENCH_ARGS adds options.
bench: images
	.venv/bin/python bench/run.py $(BENCH_ARGS)

# N = 2, no lab, results in a temporary directory; fails unless every phase completed and the
# floor cost exactly one remote execution per host (under a minute).
bench-smoke: images
	.venv/bin/python bench/run.py --smoke
