#!/bin/sh
# Test harness only: containers.podman.podman runs `podman exec` without -i, so a command's standard
# input (what tunnelfix.fleet.plain_file writes, and ssh passes on a real router) would be lost.
# This wrapper adds -i to exec and passes every other podman call through unchanged.
if [ "$1" = exec ]; then
	shift
	exec podman exec -i "$@"
fi
exec podman "$@"
