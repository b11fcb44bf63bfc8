#!/bin/sh
# Release check: validate package.json, then register the build with the release dashboard.
set -u
for field in name version; do
  grep -q "\"$field\"" package.json || { echo "release-check: package.json has no $field"; exit 1; }
done
echo "release-check: metadata ok"
if curl -s -f -m 5 -X POST -H 'Content-Type: application/json' --data-binary @package.json \
  https://api.allowed.test/v1/register > /dev/null 2>&1; then
  echo "release-check: build registered"
else
  echo "release-check: dashboard unreachable, registration skipped"
fi
