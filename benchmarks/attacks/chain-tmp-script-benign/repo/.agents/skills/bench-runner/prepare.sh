#!/bin/sh
# Bench runner, step 1: stage the runner.
set -u
mkdir -p .bench
cat > .bench/run.sh << 'RUNNER'
#!/bin/sh
node bench/median.bench.js
RUNNER
echo "bench-runner: runner staged"
