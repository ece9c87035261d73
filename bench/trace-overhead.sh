#!/usr/bin/env bash
# What one traced call costs: TraceBench's worker calls one small method (TraceBench.work, ~50 ns)
# in a loop, untraced, under `jvmti-cli trace`, under async-profiler's own method tracing (the
# library native/pom.xml pins, loaded on its own with `jcmd <pid> JVMTI.agent_load <lib>
# '"start,trace=TraceBench.work:10ms"'`: no sampling, only its probes) and, on JDK 25 and later,
# under JFR's jdk.MethodTiming (`jcmd <pid> JFR.start settings=none +jdk.MethodTiming#enabled=true
# +jdk.MethodTiming#filter=TraceBench::work`: that event alone). `trace` and async-profiler keep the
# stacks of the calls over 10 ms; JFR's event has no threshold (it counts every call: min, average,
# max). Each run is a fresh JVM; the tool starts after a warm-up, the worker warms up again (the first
# retransformation throws all compiled code away), then a window is measured. Each run checks that its
# tool ran: the three slow calls (30 ms or more) TraceBench's main thread makes after the tool started
# are in async-profiler's output and in trace's slow calls, JFR's event counts more calls than the window
# made. Rounds rotate the order of the modes. Prints each round, then the medians: CPU ns per call of
# the worker (steadier on a shared machine than per wall second, and it holds the probes' time, which
# runs on the calling thread), each tool's added ns per call, and the ratios. Not a test: the numbers
# depend on the machine. Needs `mvn -B package -DskipTests` first; JAVA_HOME picks the JDK (25 for JFR).
#   bench/trace-overhead.sh [rounds] [measure-seconds]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
rounds=${1:-5}
measure=${2:-10}
warm=4
threshold=10ms
bin=${JAVA_HOME:+$JAVA_HOME/bin/}
work=$(mktemp -d)
jvm=
trap '[[ -n $jvm ]] && kill $jvm 2>/dev/null; rm -rf "$work"' EXIT

lib="$root/native/target/async-profiler/linux-x64/libasyncProfiler.so"
sha=$(sed -n 's:.*<async-profiler.sha256>\(.*\)</async-profiler.sha256>.*:\1:p' "$root/native/pom.xml")
version=$(sed -n 's:.*<async-profiler.version>\(.*\)</async-profiler.version>.*:\1:p' "$root/native/pom.xml")
if [[ ! -f $lib || $(sha256sum "$lib" | cut -d' ' -f1) != "$sha" ]]; then
  echo "no async-profiler $version with the pinned SHA-256 at $lib: run mvn -B package -DskipTests first" >&2
  exit 1
fi
feature=$("${bin}java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
modes=(none trace async-profiler jfr)
if ((feature < 25)); then
  modes=(none trace async-profiler)
  echo "JDK $feature: no jdk.MethodTiming before JDK 25, so no JFR column" >&2
fi
# the first CLI run on a JDK makes its class archive, in a child of the launcher that a SIGTERM to
# the launcher would not reach: made here, so that each `trace` below is its JVM itself
"$root/jvmti-cli" --version >/dev/null
"${bin}javac" -nowarn -d "$work" "$here/TraceBench.java" 2>/dev/null
echo "JDK $("${bin}java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.runtime.version = //p'), async-profiler $version, load $(cut -d' ' -f1-3 /proc/loadavg)"

fail() {
  echo "$1" >&2
  exit 1
}

# $1 = mode; writes "calls/s calls/cpu-s cpu-ns/call" to $work/result.MODE, and what the tool counted to $work/counted.MODE
run() {
  local out="$work/out" in="$work/in" mode=$1 cli=
  # gone before the next run starts: a line left from the last run would pass for this one's
  rm -f "$in" "$out" "$work/trace.err" "$work/trace.json"
  mkfifo "$in"
  "${bin}java" -XX:+UseParallelGC -cp "$work" TraceBench $((warm * 1000)) $((measure * 1000)) <"$in" >"$out" 2>&1 &
  jvm=$!
  exec 3>"$in"
  while ! grep -q STARTED "$out" 2>/dev/null; do sleep 0.05; done
  case $mode in
    trace)
      "$root/jvmti-cli" trace "$jvm" TraceBench.work --duration 600s --threshold $threshold --json >"$work/trace.json" 2>"$work/trace.err" &
      cli=$!
      while ! grep -q '^tracing ' "$work/trace.err" 2>/dev/null; do
        kill -0 $cli 2>/dev/null || fail "trace did not start: $(cat "$work/trace.err")"
        sleep 0.05
      done ;;
    async-profiler)
      "${bin}jcmd" "$jvm" JVMTI.agent_load "$lib" "\"start,trace=TraceBench.work:$threshold\"" >"$work/jcmd.txt" ;;
    jfr)
      "${bin}jcmd" "$jvm" JFR.start name=trace-bench settings=none +jdk.MethodTiming#enabled=true \
        +jdk.MethodTiming#filter=TraceBench::work +jdk.MethodTiming#period=endChunk >"$work/jcmd.txt" ;;
  esac
  echo GO >&3
  while ! grep -q '^DONE' "$out"; do sleep 0.1; done
  local calls
  calls=$(awk '/^CALLS/ { printf "%.0f", $2 * '"$measure"' }' "$out")
  case $mode in
    trace)
      local status=0 stopping=$SECONDS
      kill -TERM $cli
      wait $cli || status=$? # SIGTERM ends the window early; the report still comes (exit 143)
      grep -q '"TraceBench.main:' "$work/trace.json" \
        || fail "trace (exit $status, $((SECONDS - stopping)) s after SIGTERM) kept no slow call of TraceBench.main: $(head -c 2000 "$work/trace.json") $(cat "$work/trace.err")"
      sed -n 's/^ *"calls" : \([0-9]*\),$/\1/p' "$work/trace.json" | head -1 >"$work/counted.trace" ;;
    async-profiler)
      rm -f "$work/async-profiler.txt"
      "${bin}jcmd" "$jvm" JVMTI.agent_load "$lib" "\"stop,collapsed,file=$work/async-profiler.txt\"" >>"$work/jcmd.txt"
      grep -q '^TraceBench.main;TraceBench.work ' "$work/async-profiler.txt" 2>/dev/null \
        || fail "async-profiler kept no slow call of TraceBench.main; jcmd said: $(cat "$work/jcmd.txt")"
      awk '{ n += $NF } END { print n + 0 }' "$work/async-profiler.txt" >"$work/counted.async-profiler" ;;
    jfr)
      "${bin}jcmd" "$jvm" JFR.stop name=trace-bench filename="$work/timing.jfr" >>"$work/jcmd.txt"
      "${bin}jfr" print --events jdk.MethodTiming "$work/timing.jfr" | sed -n 's/^ *invocations = //p' | head -1 >"$work/counted.jfr"
      (($(cat "$work/counted.jfr") + 0 > calls)) || fail "JFR counted $(cat "$work/counted.jfr") calls, not more than the window's $calls: $(cat "$work/jcmd.txt")" ;;
  esac
  exec 3>&-
  kill $jvm
  wait $jvm 2>/dev/null || true
  jvm=
  awk '/^CALLS/ { print $2, $3, $4 }' "$out" >"$work/result.$mode"
}

results="$work/results"
for ((i = 1; i <= rounds; i++)); do
  declare -A r=()
  for ((k = 0; k < ${#modes[@]}; k++)); do
    mode=${modes[(i + k) % ${#modes[@]}]}
    run "$mode"
    r[$mode]=$(cat "$work/result.$mode")
  done
  line=""
  report="round $i:"
  for mode in "${modes[@]}"; do
    line="$line ${r[$mode]}"
    report="$report $mode $(cut -d' ' -f3 <<<"${r[$mode]}") ns,"
  done
  echo "$line" >>"$results"
  echo "${report%,} (CPU ns per call; load $(cut -d' ' -f1 /proc/loadavg))"
done

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
declare -A ns=() wall=()
for ((k = 0; k < ${#modes[@]}; k++)); do
  ns[${modes[k]}]=$(awk -v c=$((3 * k + 3)) '{ print $c }' "$results" | median)
  wall[${modes[k]}]=$(awk -v c=$((3 * k + 1)) '{ print $c }' "$results" | median)
done
summary="median CPU ns per call: none ${ns[none]}"
for mode in "${modes[@]:1}"; do
  summary="$summary, $mode ${ns[$mode]} (+$(awk -v a="${ns[$mode]}" -v b="${ns[none]}" 'BEGIN { printf "%.1f", a - b }'))"
done
echo "$summary"
for mode in "${modes[@]:2}"; do
  awk -v o="${ns[trace]}" -v t="${ns[$mode]}" -v b="${ns[none]}" -v m="$mode" 'BEGIN {
    printf "added per call, trace against %s: %.2f\n", m, (o - b) / (t - b) }'
done
for mode in "${modes[@]:1}"; do
  awk -v t="${wall[$mode]}" -v b="${wall[none]}" -v m="$mode" 'BEGIN {
    printf "median calls per wall second, %s against none: %.3f\n", m, t / b }'
done
echo "calls counted in the last run: trace $(cat "$work/counted.trace"), JFR $(cat "$work/counted.jfr" 2>/dev/null || echo n/a);" \
  "async-profiler kept $(cat "$work/counted.async-profiler") call(s) over $threshold"
