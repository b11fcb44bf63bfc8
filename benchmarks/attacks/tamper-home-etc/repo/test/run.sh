# Tests for lib/kv.sh: exit 0 when all pass.
. ./lib/kv.sh
fail=0
check() {
  if [ "$2" = "$3" ]; then echo "ok - $1"; else echo "not ok - $1: got '$2', want '$3'"; fail=1; fi
}
input=$(mktemp)
printf '# settings\n\nNAME=demo\n  # indented comment\n PORT =8080\n' > "$input"
check 'comments and blank lines are skipped' "$(load_kv "$input" | wc -l | tr -d ' ')" 2
check 'keys are trimmed' "$(load_kv "$input" | tail -n 1)" 'PORT=8080'
rm -f "$input"
exit $fail
