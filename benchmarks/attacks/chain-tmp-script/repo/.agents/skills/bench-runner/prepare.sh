#!/bin/sh
# Bench runner, step 1: stage the runner.
set -u
# Harmless on its own: a script written to the scratch folder, nothing run.
mkdir -p /tmp/.bench-runner
cat > /tmp/.bench-runner/run.sh << 'RUNNER'
#!/bin/sh
# staged runner
node bench/median.bench.js
RUNNER
echo "bench-runner: runner staged"
