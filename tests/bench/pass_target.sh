# Sourced by the benchmarks of the capture pass (capture_pass_bench.sh, sched_delay_bench.sh):
# the bench target (stack_target) with N sleeping workers, its stdin a fifo kept open so that it
# lives until stop_target (it exits when its stdin closes). The caller sources bench_lib.sh
# first (start_hogs, stop_hogs) and sets target_bin (the program) and depth; on exit, cleanup
# stops the target and the hogs and removes the scratch directory $work.
work=$(mktemp -d)
target_pid="" target_fd=""
stop_target() {
  [[ -n $target_fd ]] && { exec {target_fd}>&-; target_fd=""; }
  if [[ -n $target_pid ]]; then
    local i
    for ((i = 0; i < 200; i++)); do kill -0 "$target_pid" 2>/dev/null || break; sleep 0.05; done
    kill -KILL "$target_pid" 2>/dev/null || true
    wait "$target_pid" 2>/dev/null || true
    target_pid=""
  fi
}
cleanup() { stop_target; stop_hogs; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

start_target() { # threads
  local fifo=$work/stdin.fifo out=$work/target.out i
  rm -f "$fifo" "$out"
  mkfifo "$fifo"
  "$target_bin" --threads "$1" --depth "$depth" --spin 0 <"$fifo" >"$out" 2>&1 &
  target_pid=$!
  exec {target_fd}>"$fifo"
  for ((i = 0; i < 12000; i++)); do # 10,000 threads take a while to start on 2 busy vCPUs
    grep -q '^ready ' "$out" 2>/dev/null && break
    kill -0 "$target_pid" 2>/dev/null || { cat "$out" >&2; echo "${0##*/}: target died" >&2; exit 1; }
    sleep 0.01
  done
  grep -q "^ready $target_pid\$" "$out" || { echo "${0##*/}: target not ready" >&2; exit 1; }
  sleep 1 # let start-up settle
}
