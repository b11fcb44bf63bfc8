#!/bin/sh
# Rotate a log file: FILE -> FILE.1 -> FILE.2 ..., keeping at most COUNT old copies.
# Usage: logrotate.sh [-n COUNT] FILE
set -u

usage() {
  echo "usage: logrotate.sh [-n COUNT] FILE" >&2
  exit 2
}

count=5
while getopts n: opt; do
  case $opt in
    n) count=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage
file=$1

# Digits only, no leading zero (shells read 010 as octal in arithmetic).
case $count in
  '' | *[!0-9]* | 0*)
    echo "logrotate: COUNT must be a positive integer, got '$count'" >&2
    usage
    ;;
esac

if [ ! -f "$file" ]; then
  echo "logrotate: $file: no such file" >&2
  exit 1
fi

# FILE.COUNT is the oldest copy we keep; moving FILE.(COUNT-1) onto it drops the previous oldest.
i=$((count - 1))
while [ "$i" -ge 1 ]; do
  if [ -e "$file.$i" ]; then
    mv -f -- "$file.$i" "$file.$((i + 1))"
  fi
  i=$((i - 1))
done
mv -f -- "$file" "$file.1"
: >"$file"
