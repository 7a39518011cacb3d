/**
 * `npm ci` from a fresh clone prints no "install scripts not yet covered by allowScripts" warning
 * (npm 11.16 and later; npm 12 skips such scripts): every package of the lock file that has an
 * install script is reviewed in package.json's `allowScripts`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

it('every dependency with an install script is named in allowScripts', () => {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean }> };
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> };
  const withScripts = Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && entry.hasInstallScript === true)
    .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
  expect(withScripts.length).toBeGreaterThan(0);
  const reviewed = Object.keys(pkg.allowScripts ?? {}).map((key) => key.replace(/(.)@.*$/, '$1'));
  for (const name of withScripts) expect(reviewed, name).toContain(name);
});
