#!/usr/bin/env bash
# The soak run: a target under mixed load (threads starting and ending, allocation, contention,
# class loading) and every command against it in a loop, one-shot and in one shell session, with
# alloc and contention sessions finished and abandoned (the CLI killed mid-way) and a detach every
# fourth cycle; a second target, the control, runs the same load alongside, untouched. Each minute
# it prints both targets' RSS, descriptors and threads and the bytes the agent holds on the C heap;
# at the end, the largest change after the first minute against the bounds in bench/soak/Soak.java.
# Exit 0: no failure and every figure within its bound. SOAK_TARGET_FLAGS: more JVM flags for both
# targets (-XX:NativeMemoryTracking=summary, say); the environment reaches them too.
#   bench/soak.sh [MINUTES]     (default 30; run after mvn -B package -DskipTests)
set -euo pipefail
if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
minutes=${1:-30}
[[ "$minutes" =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [MINUTES]" >&2; exit 2; }
root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
[[ -f "$root/cli/target/jvmti-cli.jar" ]] || { echo "soak: build first: mvn -B package -DskipTests" >&2; exit 1; }
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
javac="${JAVA_HOME:+$JAVA_HOME/bin/}javac"
classes="$root/bench/target/soak-classes"
mkdir -p "$classes"
"$javac" -d "$classes" "$root"/bench/soak/*.java
exec "$java" -cp "$classes" Soak "$root" "$minutes" "$classes"
