# Sourced by the benches that measure a workload without the tool and while a jvmti-cli session
# records it (park-overhead.sh, pauses-overhead.sh). The caller sets root, work, warm and measure,
# and the array workload: a JVM command that prints STARTED, then after its warm-up and measuring
# window "OPS <figures...>" and DONE, and waits to be killed.

# Runs the workload once; with a jvmti-cli command and its options, records it with that command
# over the warm-up and the window (attached first, so that the window is all recording; its report in
# $work/NAME.txt). Prints the workload's OPS figures.
#   measure_workload NAME [COMMAND [OPTION...]]
measure_workload() {
  local name=$1 out
  shift
  out=$(mktemp "$work/out.XXXXXX")
  "${workload[@]}" >"$out" &
  local jvm=$!
  while ! grep -q STARTED "$out" 2>/dev/null; do
    kill -0 "$jvm" 2>/dev/null || { cat "$out" >&2; exit 1; } # it never started
    sleep 0.05
  done
  local cli=
  if (($# > 0)); then
    "$root/jvmti-cli" threads "$jvm" >/dev/null
    "$root/jvmti-cli" "$1" "$jvm" --duration $((warm + measure + 1))s "${@:2}" >"$work/$name.txt" &
    cli=$!
  fi
  while ! grep -q '^DONE' "$out" 2>/dev/null; do sleep 0.1; done
  if [[ -n $cli ]]; then wait "$cli"; fi
  kill "$jvm"
  wait "$jvm" 2>/dev/null || true
  awk '/^OPS/ { $1 = ""; print substr($0, 2) }' "$out"
}

# The median of the numbers on stdin, one a line.
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
