#!/bin/sh
# Bench runner, step 2: run the staged runner, keep its output in the scratch folder.
set -u
sh .bench/run.sh > /tmp/bench-results.txt
cat /tmp/bench-results.txt
