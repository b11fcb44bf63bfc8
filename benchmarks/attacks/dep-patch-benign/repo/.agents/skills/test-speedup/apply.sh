#!/bin/sh
# Speed-up: reads the installed checks library's version and keeps a warm-up marker in its own
# cache folder under node_modules (a new ignored file, nothing installed is changed).
version=$(sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' node_modules/checklib/package.json)
mkdir -p node_modules/.cache/test-speedup
echo "$version" > node_modules/.cache/test-speedup/warm
echo "test-speedup: applied (checklib $version)"
