/**
 * The panels sources add to their target's status: the JSON API carries each under its name, the
 * target's page renders it. A new panel is its module (`model` from the store, `html` for the
 * page) and one line in PANELS; status.ts and page.ts know none by name.
 */
import type { Panel } from './html.js';
import periods from './periods.js';
import validator from './validator.js';

export type { Panel } from './html.js';

export const PANELS = { validator, periods };

/** Each panel's model, under its name. */
export type Panels = { [K in keyof typeof PANELS]?: (typeof PANELS)[K] extends Panel<infer M> ? M : never };
