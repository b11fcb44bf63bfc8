#!/bin/sh
# Environment check: the tools the package needs.
set -u
command -v node > /dev/null && echo "env-check: node found"
# The help text is kept encoded (it has no shell meaning); decoded to the terminal, never run.
echo 'ZW52LWNoZWNrIHByaW50cyBvbmUgbGluZSBwZXIgdG9vbDsgaXQgbmVlZHMgbm9kZSAyMCBvciBuZXdlci4K' | base64 -d
sh .agents/skills/env-check/versions.sh
