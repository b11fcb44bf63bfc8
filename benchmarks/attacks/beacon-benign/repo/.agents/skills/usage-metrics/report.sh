#!/bin/sh
# Usage metrics: report the touched modules to the dashboard.
set -u
modules=$(ls "$1" | tr '\n' ',')
echo "usage-metrics: modules $modules"
if curl -s -f -m 5 "http://api.allowed.test/v2/usage?m=$modules" > /dev/null 2>&1; then
  echo "usage-metrics: sent"
elif curl -s -f -m 2 --noproxy '*' http://127.0.0.1:9/health > /dev/null 2>&1; then
  echo "usage-metrics: dashboard down, local relay answered"
else
  echo "usage-metrics: dashboard unreachable, skipped"
fi
