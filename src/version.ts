import { createRequire } from 'node:module';

const pkg = createRequire(import.meta.url)('../package.json') as { version: string };

export const VERSION = pkg.version;
/** Set at image build time (`--build-arg REVISION=$(git rev-parse HEAD)`). */
export const REVISION = process.env.AVAHEALTH_REVISION ?? 'unknown';
