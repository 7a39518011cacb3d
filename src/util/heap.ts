/**
 * V8 tuned for a long-running daemon. A poll loop allocates fast, and for a fast allocator V8's
 * default heuristics let the old generation grow to several times what is live between major
 * collections (measured at 1,000 nodes × 3 endpoints a second: 160 MiB of old space for ≈ 65 MiB
 * live, RSS ≈ 330 MiB). Capping the growth factor at 1.5 keeps the heap near its live size (RSS
 * ≈ 230 MiB there) at no measurable CPU cost; smaller semi-spaces or `--optimize-for-size` saved
 * more but cost 3–5× the CPU per poll (bench/RESULTS.md). Set once at start, before the daemon
 * allocates, unless the operator passed their own `--heap-growing-percent` to node.
 */
import { setFlagsFromString } from 'node:v8';

export const HEAP_GROWING_FLAG = '--heap-growing-percent=50';

export function tuneHeapForDaemon(execArgv: readonly string[] = process.execArgv): boolean {
  if (execArgv.some((arg) => arg.startsWith('--heap-growing-percent'))) return false;
  setFlagsFromString(HEAP_GROWING_FLAG);
  return true;
}
