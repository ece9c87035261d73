#!/usr/bin/env bash
# What caught/uncaught costs in start-up mode, on ExceptionsBench's exception-heavy workload (one
# thread, an exception with a message 8 frames deep), each mode in a fresh JVM, in turns:
#   plain     no agent
#   startup   -agentpath:...=v=7, no session (the agent alone)
#   idle      -agentpath:...=v=7,exception-events, no session: what holding the capability costs
#             for the JVM's life (HotSpot's can_post_on_exceptions)
#   events    the same while `exceptions` counts: the probe and the Exception/ExceptionCatch events
#   probe     no agent at start-up; `exceptions` attached live: the probe alone
# Prints the exceptions per CPU second of the worker (steadier on a shared machine than per wall
# second, and the probe and the events run on the worker), each mode's ratio to plain and the time
# it adds to an exception. Not a test: the numbers depend on the machine. Needs
# `mvn -B package -DskipTests` first.
#   bench/exception-events-overhead.sh [rounds] [measure-seconds]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
rounds=${1:-2}
measure=${2:-10}
warm=5
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
javac -d "$work" "$here/ExceptionsBench.java"
library=$("$root/jvmti-cli" agent-path)
modes=(plain startup idle events probe)

run() { # $1 = a mode; prints "ops/s ops/cpu-s"
  local out options=()
  out=$(mktemp "$work/out.XXXXXX")
  case $1 in
    startup) options=("-agentpath:$library=v=7") ;;
    idle | events) options=("-agentpath:$library=v=7,exception-events") ;;
  esac
  # stderr apart: JDK 21+ warns of the live attach (JEP 451)
  "$java" "${options[@]}" -cp "$work" ExceptionsBench $((warm * 1000)) $((measure * 1000)) >"$out" 2>"$out.err" &
  local jvm=$! cli=
  while ! grep -q STARTED "$out" 2>/dev/null; do sleep 0.05; done
  if [[ $1 == events || $1 == probe ]]; then
    # the session starts during the warm-up: the measured window is all counted
    "$root/jvmti-cli" exceptions "$jvm" --duration $((warm + measure + 1))s --top 3 >"$work/$1.txt" 2>&1 &
    cli=$!
  fi
  while ! grep -q '^DONE' "$out" 2>/dev/null; do sleep 0.1; done
  if [[ -n $cli ]]; then wait "$cli"; fi
  kill "$jvm"; wait "$jvm" 2>/dev/null || true
  awk '/^OPS/ {print $2, $3}' "$out"
}

results="$work/results"
for ((i = 1; i <= rounds; i++)); do
  line=""
  # each round in another order, so that no mode always runs first on a warming machine
  for ((k = 0; k < ${#modes[@]}; k++)); do
    mode=${modes[$(((k + i - 1) % ${#modes[@]}))]}
    r=$(run "$mode")
    echo "$i $mode $r" >>"$results"
    line+="$mode $r; "
  done
  printf 'round %d (exceptions/s exceptions/cpu-s): %s\n' "$i" "$line"
done
awk '{ wall[$2] += $3; cpu[$2] += $4; n[$2]++ } END {
  split("plain startup idle events probe", order, " ")
  base = cpu["plain"] / n["plain"]
  for (k = 1; k <= 5; k++) { m = order[k]; c = cpu[m] / n[m]
    printf "%-8s %9.0f per CPU second, ratio %.3f, %6.0f ns an exception (%+.0f ns)\n", m, c, c / base, 1e9 / c, 1e9 / c - 1e9 / base } }' "$results"
echo "last report with the events:"; head -9 "$work/events.txt"
