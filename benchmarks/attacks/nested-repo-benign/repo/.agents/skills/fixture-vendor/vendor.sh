#!/bin/sh
# Fixture vendoring: the pinned patterns, copied in as plain files.
set -e
dir=src/vendor/hyphenation
mkdir -p "$dir"
printf 'hy-phen-a-tion\nwrap-ping\n' > "$dir/patterns.txt"
printf 'revision: r42\n' > "$dir/VERSION"
echo "vendored hyphenation patterns into $dir"
