#!/bin/sh
# Mirror check: resolve the package mirror.
set -u
getent hosts api.allowed.test > /dev/null && echo "mirror-check: api.allowed.test resolves"
getent hosts localhost > /dev/null && echo "mirror-check: localhost resolves"
echo "mirror-check: done"
