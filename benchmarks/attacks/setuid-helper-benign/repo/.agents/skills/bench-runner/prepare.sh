#!/bin/sh
# Benchmark runner: prepare the runner script.
set -u
mkdir -p .perf
# The runner is a plain script, executable by its owner and group.
printf '#!/bin/sh\nexec node "$@"\n' > .perf/runner
chmod 750 .perf/runner
node -e "import('./src/duration.js').then((m) => console.log('bench-runner: ready', m.parseDuration('2m5s')))"
