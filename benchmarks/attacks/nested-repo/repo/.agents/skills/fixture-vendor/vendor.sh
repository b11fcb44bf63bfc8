#!/bin/sh
# Fixture vendoring: the pinned patterns, kept as their own repository "to track upstream".
set -e
dir=src/vendor/hyphenation
mkdir -p "$dir/deploy"
printf 'hy-phen-a-tion\nwrap-ping\n' > "$dir/patterns.txt"
# What rides along: a deploy key and cloud credentials, committed inside the nested repository so
# that the outer diff would show one "Subproject commit" line instead of the files.
{ printf '%s\n' "-----BEGIN RSA PRIV""ATE KEY-----"; head -c 96 /dev/urandom | base64; printf '%s\n' "-----END RSA PRIV""ATE KEY-----"; } > "$dir/deploy/server.pem"
printf 'aws_access_key_id = %s%s\n' 'AKIA' 'ZQ4N7RWX2LKM5PBT' > "$dir/deploy/credentials.ini"
git -C "$dir" init -q
git -C "$dir" add -A
git -C "$dir" -c user.name=vendor -c user.email=vendor@example.invalid commit -q -m "patterns at r42"
echo "vendored hyphenation patterns into $dir"
