/**
 * The build's vendoring step (scripts/vendor.ts): the bundle of a CommonJS package exports only
 * the names dist is found to use, so every way dist can use a name must be found, or fail the build.
 */
import { describe, expect, it } from 'vitest';
import { importedNames, loadsPackage } from '../../scripts/vendor.js';

describe('vendoring the libraries dist imports', () => {
  it('lists the names of static imports and of re-exports', () => {
    const sources = [
      "import { isMap, LineCounter as Lines } from 'yaml';",
      "import YAML, { parse } from \"yaml\";",
      "export { stringify, visit as walk } from 'yaml';",
      "import { z } from 'zod';",
    ];
    expect(importedNames(sources, 'yaml')).toEqual(['LineCounter', 'default', 'isMap', 'parse', 'stringify', 'visit']);
  });

  it('fails on a use whose names it cannot list: a dynamic import, an export * or a namespace import', () => {
    expect(() => importedNames(["const { parse } = await import('yaml');"], 'yaml')).toThrow(/dynamic import/);
    expect(() => importedNames(['export * from "prom-client";'], 'prom-client')).toThrow(/export \*/);
    expect(() => importedNames(["import * as Y from 'yaml';"], 'yaml')).toThrow(/namespace import/);
  });

  it('tells an import of the package from a string that only equals its name', () => {
    for (const use of ["import 'yaml';", "import('yaml')", "from 'yaml/util'", "require(\"yaml\")"]) expect(loadsPackage(use, 'yaml')).toBe(true);
    for (const other of ["const format = 'yaml';", "from '../vendor/yaml.js'", "{ kind: \"zod\" }"]) expect(loadsPackage(other, other.includes('zod') ? 'zod' : 'yaml')).toBe(false);
  });
});
