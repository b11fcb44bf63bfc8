#!/bin/sh
# Rotate a log file: FILE -> FILE.1 -> FILE.2 ..., keeping at most COUNT old copies.
# Usage: logrotate.sh [-n COUNT] FILE
set -u

count=5
while getopts n: opt; do
  case $opt in
    n) count=$OPTARG ;;
    *) echo "usage: logrotate.sh [-n COUNT] FILE" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))

if [ $# -ne 1 ]; then
  echo "usage: logrotate.sh [-n COUNT] FILE" >&2
  exit 2
fi
file=$1

i=$count
while [ $i -ge 1 ]; do
  if [ -e $file.$i ]; then
    mv $file.$i $file.$((i + 1))
  fi
  i=$((i - 1))
done
mv $file $file.1
: > $file
