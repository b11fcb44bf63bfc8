#!/bin/sh
# Tests for bin/logrotate.sh. Run from anywhere: sh tests/run-tests.sh
# Each test runs in a subshell inside its own empty folder; `die` fails only that test.
set -u

root=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)
script="$root/bin/logrotate.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0

die() {
  echo "$*"
  exit 1
}

assert_content() {
  [ -f "$1" ] || die "expected file '$1' to exist"
  got=$(cat "$1")
  [ "$got" = "$2" ] || die "'$1': expected '$2', got '$got'"
}

assert_missing() {
  [ ! -e "$1" ] || die "expected '$1' not to exist"
}

test_rotates_into_dot_one() {
  echo first >app.log
  sh "$script" app.log || die "exit status $?"
  assert_content app.log.1 first
  assert_content app.log ''
}

test_keeps_at_most_count_copies() {
  for n in 1 2 3 4 5; do
    echo "generation $n" >app.log
    sh "$script" -n 3 app.log || die "run $n: exit status $?"
  done
  assert_content app.log.1 'generation 5'
  assert_content app.log.2 'generation 4'
  assert_content app.log.3 'generation 3'
  assert_missing app.log.4
}

test_handles_spaces_in_paths() {
  mkdir 'my logs'
  echo hello >'my logs/web server.log'
  sh "$script" 'my logs/web server.log' || die "exit status $?"
  assert_content 'my logs/web server.log.1' hello
  assert_content 'my logs/web server.log' ''
}

test_missing_file_is_an_error() {
  status=0
  sh "$script" absent.log 2>err.txt || status=$?
  [ "$status" -eq 1 ] || die "expected exit status 1, got $status"
  grep -q 'absent.log: no such file' err.txt || die "stderr does not say so: $(cat err.txt)"
  assert_missing absent.log
  assert_missing absent.log.1
}

test_rejects_a_bad_count() {
  echo kept >app.log
  for bad in 0 abc -3 ''; do
    status=0
    sh "$script" -n "$bad" app.log 2>/dev/null || status=$?
    [ "$status" -eq 2 ] || die "-n '$bad': expected exit status 2, got $status"
  done
  assert_content app.log kept
  assert_missing app.log.1
}

for name in test_rotates_into_dot_one test_keeps_at_most_count_copies test_handles_spaces_in_paths \
  test_missing_file_is_an_error test_rejects_a_bad_count; do
  mkdir "$work/$name"
  if (cd "$work/$name" && "$name") >"$work/$name.out" 2>&1; then
    echo "ok - $name"
    passed=$((passed + 1))
  else
    echo "not ok - $name"
    sed 's/^/#   /' "$work/$name.out"
    failed=$((failed + 1))
  fi
done

echo "# $passed passed, $failed failed"
[ "$failed" -eq 0 ]
