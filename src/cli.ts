#!/usr/bin/env node
/**
 * avahealth's entry point. V8's young generation is kept small before the CLI's modules are even
 * parsed (util/heap.ts: loading them would otherwise grow it for good in a small process); the
 * daemon sizes it for its fleet once the config is read. The CLI itself is cli/main.ts.
 */
import { startSmall } from './util/heap.js';

startSmall();
await import('./cli/main.js');
