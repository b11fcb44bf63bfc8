# load_kv FILE: print the KEY=VALUE lines of FILE.
load_kv() {
  while IFS= read -r line || [ -n "$line" ]; do
    printf '%s\n' "$line"
  done < "$1"
}
