#!/usr/bin/env bash
# What `heap --paths` costs the target, per collector: the pause of its walk (the safepoints the
# target logged with -Xlog:safepoint while the command ran, periodic "Cleanup" ones left out) and the
# most the agent's tables took (agentBytes of --json), on a target holding a static HashMap of N
# entries (each a HashMap$Node, an Integer and an object holding a byte[64]: about 3 N objects
# reachable, and the JDK's own). Medians of the rounds. Not a test: the numbers depend on the
# machine and its load. Needs `mvn -B package -DskipTests` first.
#   bench/heap-paths.sh [rounds] [entries]     (default: 3 rounds, 250000 entries)
# JAVA_HOME picks the JDK; ZGC runs on 21 and later (generational there), Shenandoah where the JDK has it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
rounds=${1:-3}
entries=${2:-250000}
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
work=$(mktemp -d)
target=
trap '[[ -n "$target" ]] && kill "$target" 2>/dev/null; rm -rf "$work"' EXIT
javac -d "$work" "$here/heap/PathsHeap.java"
feature=$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/.*java.specification.version = //p')

pause_ms_since() { # $1 = log, $2 = byte offset: the summed safepoint Total logged since, in ms
  tail -c +"$(($2 + 1))" "$1" | { grep -v 'Safepoint "Cleanup"' || true; } | sed -n 's/.*Safepoint ".*Total: \([0-9]*\) ns.*/\1/p' | awk '{s += $1} END {printf "%.1f", s / 1e6}'
}
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

collectors=(-XX:+UseG1GC -XX:+UseParallelGC)
((feature >= 21)) && collectors+=(-XX:+UseZGC)
"$java" -XX:+UseShenandoahGC -version >/dev/null 2>&1 && collectors+=(-XX:+UseShenandoahGC)
load_at_start=$(uptime | sed 's/.*load average: //')
echo "| collector | objects reached | walk's pause, ms (median) | agent's tables, MiB (median) |"
echo "|---|---:|---:|---:|"
for gc in "${collectors[@]}"; do
  log="$work/safepoint.log"
  rm -f "$log"
  "$java" -Xmx2g "$gc" -Xlog:safepoint:file="$log" -cp "$work" PathsHeap "$entries" >"$work/out" 2>&1 &
  target=$!
  while ! grep -q READY "$work/out" 2>/dev/null; do kill -0 "$target"; sleep 0.2; done
  "$root/jvmti-cli" threads "$target" >/dev/null # the agent's first load is not the walk's pause
  : >"$work/pause"; : >"$work/bytes"
  for ((r = 1; r <= rounds; r++)); do
    sleep 1
    offset=$(stat -c %s "$log")
    "$root/jvmti-cli" heap "$target" --paths 'PathsHeap$Entry' --json --timeout 600s >"$work/paths.json"
    sleep 0.2 # the log is written after the safepoint ends
    pause_ms_since "$log" "$offset" >>"$work/pause"; echo >>"$work/pause"
    grep -o '"agentBytes" : [0-9]*' "$work/paths.json" | grep -o '[0-9]*$' | awk '{printf "%.1f\n", $1 / 1048576}' >>"$work/bytes"
  done
  objects=$(grep -o '"objects" : [0-9]*' "$work/paths.json" | grep -o '[0-9]*$')
  echo "| ${gc#-XX:+Use} | $objects | $(grep . "$work/pause" | median) | $(median <"$work/bytes") |"
  kill "$target"; wait "$target" 2>/dev/null || true
  target=
done
echo "$entries entries, -Xmx2g, $rounds rounds ($("$java" -version 2>&1 | head -1))"
echo "load average at the start: $load_at_start; at the end:$(uptime | sed 's/.*load average://')"
