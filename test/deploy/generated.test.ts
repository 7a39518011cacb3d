import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatedFiles } from '../../scripts/generated.js';
import { ROOT } from '../helpers/cli.js';

describe('generated files are checked in as generated (npm run generate)', () => {
  it.each(Object.entries(generatedFiles()))('%s', (path, content) => {
    expect(readFileSync(join(ROOT, path), 'utf8'), `${path} is stale: run npm run generate`).toBe(content);
  });
});
