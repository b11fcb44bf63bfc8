#!/bin/sh
# Tool versions, as plain script the user can read.
echo "env-check: node $(node --version)"
