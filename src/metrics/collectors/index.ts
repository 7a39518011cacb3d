/**
 * The metric collectors, one per source. Adding one = a module in this folder (its families and
 * how it renders them from the store: see collector.ts) and one line below. The order is the order
 * of the families in /metrics.
 */
import type { Family } from '../exposition.js';
import chain from './chain.js';
import checks from './checks.js';
import type { Collector } from './collector.js';
import node from './node.js';
import observed from './observed.js';
import nodeDetails from './node-details.js';
import peers from './peers.js';
import periods from './periods.js';
import probe from './probe.js';
import scheduler from './scheduler.js';
import service from './service.js';
import validator from './validator.js';

export const COLLECTORS: readonly Collector<unknown>[] = [probe, node, checks, nodeDetails, chain, validator, periods, observed, peers, service, scheduler];

/** Every pre-rendered family, in exposition order, and where each collector's start. */
export const FAMILIES: Family[] = COLLECTORS.flatMap((c) => c.families);
export const OFFSETS: number[] = COLLECTORS.map((_, i) => COLLECTORS.slice(0, i).reduce((n, c) => n + c.families.length, 0));
