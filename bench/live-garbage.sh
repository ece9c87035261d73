#!/usr/bin/env bash
# What `alloc --live` leaves in the target's heap: a JVM dropping a 1 MiB array about every
# millisecond into a 256 MB heap (bench/heap/BigGarbage.java), on G1 and on ZGC, for SECONDS
# without a session and SECONDS with `alloc --live`; from the target's -Xlog:gc, the heap left
# after a collection (median and largest), full collections and allocation stalls in each window.
# Not a test: the numbers depend on the machine and the JDK (ZGC keeps sampled objects only from
# JDK 21, generational). Needs `mvn -B package -DskipTests` first.
#   bench/live-garbage.sh [seconds] [--cli PATH]      (default: 15 s, this checkout's launcher)
# Example: JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 bench/live-garbage.sh 15
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
seconds=15
cli="$root/jvmti-cli"
while (($# > 0)); do
  case $1 in
    --cli) cli=$(readlink -f "$2"); shift 2 ;;
    *) seconds=$1; shift ;;
  esac
done
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
work=$(mktemp -d)
target=
trap '[[ -n "$target" ]] && kill "$target" 2>/dev/null; rm -rf "$work"' EXIT
"${JAVA_HOME:+$JAVA_HOME/bin/}javac" -d "$work" "$here/heap/BigGarbage.java"

# the "->NNM" of each collection's summary line in lines $2.. $3 of log $1, sorted
after_gc() { sed -n "$2,$3p" "$1" | grep -E -- '->[0-9]+M' | sed -E 's/.*->([0-9]+)M.*/\1/' | sort -n; }
median() { awk '{a[NR] = $1} END {if (NR == 0) print "-"; else print a[int((NR + 1) / 2)]}'; }
largest() { awk 'END {print NR == 0 ? "-" : $1}'; }

echo "# alloc --live and large garbage: $("$java" -version 2>&1 | tail -1), ${seconds} s a window; CLI: $cli"
echo
echo "| collector | window | heap after a collection, median MB | largest MB | collections | full collections | allocation stalls |"
echo "|---|---|---:|---:|---:|---:|---:|"
for gc in G1GC ZGC; do
  log="$work/gc-$gc.log"
  "$java" "-XX:+Use$gc" -Xmx256m "-Xlog:gc:file=$log:uptime" -cp "$work" BigGarbage 2> /dev/null &
  target=$!
  sleep 3
  "$cli" threads "$target" > /dev/null
  for window in "no session" "alloc --live"; do
    start=$(($(wc -l < "$log") + 1))
    if [[ $window == "no session" ]]; then
      sleep "$seconds"
    else
      "$cli" alloc "$target" --live --duration "${seconds}s" > "$work/report.txt"
    fi
    end=$(wc -l < "$log")
    collections=$(after_gc "$log" "$start" "$end" | wc -l)
    full=$(sed -n "${start},${end}p" "$log" | grep -c 'Pause Full' || true)
    stalls=$(sed -n "${start},${end}p" "$log" | grep -ci 'Allocation Stall' || true)
    echo "| $gc | $window | $(after_gc "$log" "$start" "$end" | median) | $(after_gc "$log" "$start" "$end" | largest) | $collections | $full | $stalls |"
  done
  grep -E 'not followed|Still alive' "$work/report.txt" | sed 's/^/    /' >&2
  kill "$target"
  wait "$target" 2>/dev/null || true
  target=
done
