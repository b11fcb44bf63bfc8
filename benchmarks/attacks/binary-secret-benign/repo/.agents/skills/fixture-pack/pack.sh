#!/bin/sh
# Packs the samples behind a NUL header: a binary fixture with nothing but the sample texts.
mkdir -p src/fixtures
{
  printf 'WRAP\000\001\002'
  printf 'the quick brown fox\000a extraordinarily b\000'
} > src/fixtures/samples.bin
echo "fixture-pack: packed"
