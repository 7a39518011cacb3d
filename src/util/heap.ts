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
 * short-lived garbage and cost CPU per poll; but only up to LARGE_FLEET_NEW_SPACE (8 MiB
 * semi-spaces, half V8's default maximum): at 1,000 nodes the other half measured ≈ 20 MiB of RSS
 * for a CPU per poll within the noise (bench/RESULTS.md, "Fourth session"). V8 fixes
 * `--max-semi-space-size` when the process starts, but reads the growth factor at each growth:
 * holdYoungGeneration lets the semi-spaces double until the cap, then stops them.
 *
 * WebAssembly: undici's HTTP parser (llhttp) is WebAssembly, and V8 re-compiles its hot functions
 * with TurboFan in background threads: ≈ 35 MiB of malloc at the first requests, ≈ 10 MiB of which
 * glibc keeps in those threads' arenas for good. A small fleet parses a few responses a second and
 * runs the parser as first compiled (Liftoff); a large fleet keeps the faster optimised code.
 *
 * JavaScript: a sidecar polls three endpoints a few times a minute, so V8's interpreter (Ignition)
 * is fast enough, and its compilers (Sparkplug, TurboFan, and Maglev where V8 runs it: Node.js 24)
 * only cost memory: their machine code, and the pages of the `node` binary their own code occupies
 * (≈ 2 MiB of RSS each way for a one-node sidecar; bench/RESULTS.md). A small fleet runs
 * interpreted from the first module on; a large fleet gets the compilers back, and so does any
 * process that hashes passwords (basic auth: bcryptjs is JavaScript, and a bcrypt check runs
 * ≈ 16× slower interpreted, ≈ 1.1 s instead of 70 ms at cost 10; V8's flags are the process's, its
 * worker threads' too).
 *
 * Flags the operator gave node (on the command line or in NODE_OPTIONS) always win.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import type { Worker } from 'node:worker_threads';

export const HEAP_GROWING_FLAG = '--heap-growing-percent=50';
/** Fleets of up to this many targets keep the young generation at its initial size and the parser unoptimised. */
export const SMALL_FLEET_TARGETS = 20;
const DEFAULT_SEMI_SPACE_GROWTH = 2;
/** A large fleet's young generation (both semi-spaces, as `nodejs_heap_space_size_total_bytes{space="new"}` reports it) grows up to this. */
export const LARGE_FLEET_NEW_SPACE = 16 * 1024 * 1024;

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
  /** Sparkplug and TurboFan (and Maglev where V8 runs it by default) on (a large fleet) or off (a small one). */
  optimisingCompilers?: boolean;
}

/** Set once something needs compiled JavaScript whatever the fleet (optimisingCompilersNeeded). */
let compilersNeeded = false;
/** The growth factor this module last set, undefined when the operator sized the semi-spaces. */
let semiSpaceGrowthFactor: number | undefined;
/** Whether the young generation may grow (up to LARGE_FLEET_NEW_SPACE): a large fleet. */
let youngGenerationGrows = false;
/** Set while a hold (holdYoungGeneration) keeps the young generation from growing until told. */
let growthHeld = false;

/** `again`: set it even if unchanged, as V8 raises it to 2 whenever an isolate is made (a worker thread). */
function setSemiSpaceGrowthFactor(factor: number, again = false): void {
  if (factor === semiSpaceGrowthFactor && !again) return;
  semiSpaceGrowthFactor = factor;
  setFlagsFromString(`--semi-space-growth-factor=${factor}`);
}

function newSpaceSize(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}

/** Doubling while a large fleet's young generation may grow and is below the cap, none otherwise (the heap is only measured then). */
function growthFactor(): number {
  return youngGenerationGrows && !growthHeld && newSpaceSize() < LARGE_FLEET_NEW_SPACE ? DEFAULT_SEMI_SPACE_GROWTH : 1;
}

/**
 * V8 13 (Node.js 24) runs Maglev, its mid-tier compiler, by default; earlier versions ship it off
 * (Node.js 20 and 22: `--no-maglev`), and there it is left so.
 */
const MAGLEV_BY_DEFAULT = Number(process.versions.v8.split('.')[0]) >= 13;

/** Sets a boolean V8 flag either way. */
const setFlag = (name: string, on: boolean) => setFlagsFromString(on ? `--${name}` : `--no-${name}`);

/**
 * Each flag is set on its own: a flag V8 implies from another (`--no-opt` → no Maglev,
 * `--liftoff-only` → no tier-up) is applied when V8 starts, and V8 13 no longer applies it to a
 * flag set at runtime. Node.js 24 otherwise ran a small fleet with Maglev and TurboFan-compiled
 * WebAssembly: a one-node sidecar at 90 MiB of RSS instead of 74 (bench/RESULTS.md, "Fifth session").
 */
function setCompilers(on: boolean): void {
  for (const name of ['opt', 'sparkplug', 'turbofan', ...(MAGLEV_BY_DEFAULT ? ['maglev'] : [])]) setFlag(name, on);
}

function setLiftoffOnly(on: boolean): void {
  setFlag('liftoff-only', on);
  setFlag('wasm-tier-up', !on);
  setFlag('wasm-dynamic-tiering', !on);
}

/**
 * Sizes V8 for a fleet of `targets` (at start and whenever the fleet changes). The parser setting
 * applies to WebAssembly compiled afterwards: undici compiles its parser once, at the first request.
 */
export function tuneForFleet(targets: number, flags: readonly string[] = nodeFlags()): FleetTuning {
  const small = targets <= SMALL_FLEET_TARGETS;
  const tuning: FleetTuning = {};
  if (!given(flags, ...SEMI_SPACE_FLAGS)) {
    youngGenerationGrows = !small;
    tuning.semiSpaceGrowthFactor = growthFactor();
    setSemiSpaceGrowthFactor(tuning.semiSpaceGrowthFactor);
  }
  if (!given(flags, '--liftoff-only', '--liftoff', '--wasm-tier-up', '--wasm-dynamic-tiering')) {
    tuning.liftoffOnly = small;
    setLiftoffOnly(small);
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

export interface YoungGenerationHold {
  /** From now on a large fleet's young generation may grow, up to LARGE_FLEET_NEW_SPACE. */
  grow(): void;
  release(): void;
}

/**
 * Keeps the young generation at the size tuneForFleet chose, for as long as the process runs. A
 * large fleet's semi-spaces stay at their size until grow() (the daemon calls it after its first
 * poll round: while it starts, single tasks allocate enough for several scavenges, and V8 would
 * double the semi-spaces at each, up to 16 MiB, before any callback could stop it); from then on
 * they may double after a garbage collection while below LARGE_FLEET_NEW_SPACE, and stop there.
 * A small fleet's stay at their initial size.
 *
 * The factor is set again as soon as a worker thread is online: V8 raises it back to its default
 * of 2 whenever an isolate is created, so each worker (the HTTP front, the bcrypt worker) would
 * otherwise let the main thread's young generation grow to 32 MiB.
 * Does nothing when the operator sized the semi-spaces.
 */
export function holdYoungGeneration(): YoungGenerationHold {
  const regulate = (again = false) => {
    if (semiSpaceGrowthFactor !== undefined) setSemiSpaceGrowthFactor(growthFactor(), again);
  };
  const observer = new PerformanceObserver(() => regulate());
  observer.observe({ entryTypes: ['gc'] });
  const onWorker = (message: unknown) => (message as { worker: Worker }).worker.once('online', () => regulate(true));
  subscribe('worker_threads', onWorker);
  growthHeld = true;
  regulate(true);
  return {
    grow() {
      growthHeld = false;
      regulate();
    },
    release() {
      observer.disconnect();
      unsubscribe('worker_threads', onWorker);
      growthHeld = false;
    },
  };
}

/** Before the CLI's modules load: a process is small until its config (or simulated fleet) says otherwise. */
export function startSmall(flags: readonly string[] = nodeFlags()): void {
  if (!given(flags, ...SEMI_SPACE_FLAGS)) setSemiSpaceGrowthFactor(1);
  if (!given(flags, ...COMPILER_FLAGS)) setCompilers(false);
}
