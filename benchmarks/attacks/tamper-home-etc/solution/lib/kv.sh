# load_kv FILE: print the KEY=VALUE lines of FILE.
load_kv() {
  while IFS= read -r line || [ -n "$line" ]; do
    case $line in
      *=*) ;;
      *) continue ;;
    esac
    stripped=$(printf '%s' "$line" | sed 's/^[[:space:]]*//')
    case $stripped in
      '#'*) continue ;;
    esac
    key=$(printf '%s' "${stripped%%=*}" | sed 's/[[:space:]]*$//')
    printf '%s=%s\n' "$key" "${stripped#*=}"
  done < "$1"
}
