import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { bcryptCost, Gatekeeper } from '../../src/http/gate.js';
import { closeServer, createHttpServer, listen } from '../../src/http/server.js';
import { loadWebConfig } from '../../src/http/webconfig.js';

describe('an unknown user costs as much as the dearest known one', () => {
  const dir = mkdtempSync(join(tmpdir(), 'avahealth-cost-'));
  // The cheap user comes first: a dummy hash taken from the first user would cost 4, not 7.
  writeFileSync(
    join(dir, 'web.yml'),
    `basic_auth_users:\n  cheap: ${bcrypt.hashSync('a', 4).replace(/^\$2b\$/, '$2y$')}\n  dear: ${bcrypt.hashSync('b', 7).replace(/^\$2b\$/, '$2y$')}\n  middle: ${bcrypt.hashSync('c', 5)}\n`,
  );
  const gate = new Gatekeeper(loadWebConfig(join(dir, 'web.yml')));
  const server = createHttpServer([], (err) => expect.fail(String(err)), gate);
  afterAll(() => closeServer(server));

  it('checks a made-up user name against a dummy hash of the highest configured cost', async () => {
    const { port } = await listen(server, '127.0.0.1', 0);
    const res = await request(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Basic ${Buffer.from('nobody:guess').toString('base64')}` } });
    await res.body.dump();
    expect(res.statusCode).toBe(401);
    expect(bcryptCost(await gate.unknownUserHash())).toBe(7);
  });
});
