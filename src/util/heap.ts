/**
 * V8 tuned for a long-running daemon (bench/RESULTS.md, "Memory", has the measurements).
 *
 * Old generation: a poll loop allocates fast, and for a fast allocator V8's default heuristics let
 * the old generation grow to several times what is live between major collections (1,000 nodes ×
 * 3 endpoints a second: 160 MiB of old space for ≈ 65 MiB live, RSS ≈ 330 MiB). Capping the growth
 * factor at 1.5 keeps the heap near its live size at no measurable CPU cost.
 *
 * Young generation: V8 grows each semi-space from 1 MiB up to 16 MiB when many objects survive a
 * scavenge, as they do while the modules load; a one-node sidecar then carries up to 32 MiB of young
 * generation for a few KiB of garbage a poll. A process starts with the semi-space fixed at its
 * initial size (cli.ts, before the modules are parsed); the daemon lets it grow again for a fleet
 * above SMALL_FLEET_TARGETS, where a small young generation would promote the poll loop's
 * short-lived garbage and cost CPU per poll.
 *
 * WebAssembly: undici's HTTP parser (llhttp) is WebAssembly, and V8 re-compiles its hot functions
 * with TurboFan in background threads: ≈ 35 MiB of malloc at the first requests, ≈ 10 MiB of which
 * glibc keeps in those threads' arenas for good. A small fleet parses a few responses a second and
 * runs the parser as first compiled (Liftoff); a large fleet keeps the faster optimised code.
 *
 * JavaScript: a sidecar polls three endpoints a few times a minute, so V8's interpreter (Ignition)
 * is fast enough, and its baseline and optimising compilers (Sparkplug, TurboFan) only cost memory:
 * their machine code, and the pages of the `node` binary their own code occupies (≈ 2 MiB of RSS
 * each way for a one-node sidecar; bench/RESULTS.md). A small fleet runs interpreted from the
 * first module on; a large fleet gets both compilers back, and so does any process that hashes
 * passwords (basic auth: bcryptjs is JavaScript, and a bcrypt check runs ≈ 16× slower interpreted,
 * ≈ 1.1 s instead of 70 ms at cost 10; V8's flags are the process's, its worker threads' too).
 *
 * Flags the operator gave node (on the command line or in NODE_OPTIONS) always win.
 */
import { setFlagsFromString } from 'node:v8';

export const HEAP_GROWING_FLAG = '--heap-growing-percent=50';
/** Fleets of up to this many targets keep the young generation at its initial size and the parser unoptimised. */
export const SMALL_FLEET_TARGETS = 20;
const DEFAULT_SEMI_SPACE_GROWTH = 2;

/** node's own flags: the command line's and NODE_OPTIONS'. */
export function nodeFlags(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): string[] {
  return [...execArgv, ...nodeOptions.split(/\s+/).filter(Boolean)];
}

/** `--no-foo_bar=1` → `--foo-bar`: V8 accepts both spellings and both polarities of a flag. */
const flagName = (flag: string) => flag.replace(/_/g, '-').replace(/^--no-/, '--').split('=')[0]!;
const given = (flags: readonly string[], ...names: string[]) => flags.some((flag) => names.includes(flagName(flag)));

const SEMI_SPACE_FLAGS = ['--semi-space-growth-factor', '--max-semi-space-size', '--min-semi-space-size'];
/** Any of these on node's command line means the operator chose how JavaScript is compiled. */
const COMPILER_FLAGS = ['--opt', '--turbofan', '--sparkplug', '--always-sparkplug', '--maglev', '--jitless', '--lite-mode'];

/** Caps the old generation's growth; false when the operator set it. */
export function tuneHeapForDaemon(flags: readonly string[] = nodeFlags()): boolean {
  if (given(flags, '--heap-growing-percent')) return false;
  setFlagsFromString(HEAP_GROWING_FLAG);
  return true;
}

/** The V8 flags this module set for a fleet (the operator's own are left alone and not listed). */
export interface FleetTuning {
  semiSpaceGrowthFactor?: number;
  liftoffOnly?: boolean;
  /** Sparkplug and TurboFan on (a large fleet) or off (a small one). */
  optimisingCompilers?: boolean;
}

/** Set once something needs compiled JavaScript whatever the fleet (optimisingCompilersNeeded). */
let compilersNeeded = false;

function setCompilers(on: boolean): void {
  setFlagsFromString(on ? '--opt' : '--no-opt');
  setFlagsFromString(on ? '--sparkplug' : '--no-sparkplug');
}

/**
 * Sizes V8 for a fleet of `targets` (at start and whenever the fleet changes). The parser setting
 * applies to WebAssembly compiled afterwards: undici compiles its parser once, at the first request.
 */
export function tuneForFleet(targets: number, flags: readonly string[] = nodeFlags()): FleetTuning {
  const small = targets <= SMALL_FLEET_TARGETS;
  const tuning: FleetTuning = {};
  if (!given(flags, ...SEMI_SPACE_FLAGS)) {
    tuning.semiSpaceGrowthFactor = small ? 1 : DEFAULT_SEMI_SPACE_GROWTH;
    setFlagsFromString(`--semi-space-growth-factor=${tuning.semiSpaceGrowthFactor}`);
  }
  if (!given(flags, '--liftoff-only', '--liftoff', '--wasm-tier-up', '--wasm-dynamic-tiering')) {
    tuning.liftoffOnly = small;
    setFlagsFromString(small ? '--liftoff-only' : '--no-liftoff-only');
  }
  if (!given(flags, ...COMPILER_FLAGS)) {
    tuning.optimisingCompilers = !small || compilersNeeded;
    setCompilers(tuning.optimisingCompilers);
  }
  return tuning;
}

/**
 * Turns Sparkplug and TurboFan on for good, whatever the fleet (unless the operator chose): for
 * CPU-bound JavaScript such as the bcrypt checks of basic auth.
 */
export function optimisingCompilersNeeded(flags: readonly string[] = nodeFlags()): void {
  compilersNeeded = true;
  if (!given(flags, ...COMPILER_FLAGS)) setCompilers(true);
}

/** Before the CLI's modules load: a process is small until its config (or simulated fleet) says otherwise. */
export function startSmall(flags: readonly string[] = nodeFlags()): void {
  if (!given(flags, ...SEMI_SPACE_FLAGS)) setFlagsFromString('--semi-space-growth-factor=1');
  if (!given(flags, ...COMPILER_FLAGS)) setCompilers(false);
}
