/**
 * The daemon's own components (buildComponents) for one node, `n1`, with one `alertmanager`
 * receiver on a local stand-in of Alertmanager's v2 API (every silence made is `am-1`), re-sending
 * once an hour: the silence mirror's own passes (at most 5 s apart) are what a test sees.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildComponents, type Components } from '../../src/app/components.js';
import { parseConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { startCapture } from './capture.js';

export interface MirrorRig {
  am: Awaited<ReturnType<typeof startCapture>>;
  parts: Components;
  stop(): Promise<void>;
}

/** `alerts` is YAML under `alerts:` besides for_polls and resolve_polls of 1 and the receiver (indented two spaces). */
export async function startMirrorRig(alerts: string): Promise<MirrorRig> {
  const am = await startCapture((req) =>
    !req.path.startsWith('/api/v2/silences') ? { status: 200 } : req.method === 'GET' ? { status: 200, body: '[]' } : { status: 200, body: JSON.stringify({ silenceID: 'am-1' }) },
  );
  const dir = mkdtempSync(join(tmpdir(), 'avahealth-mirror-'));
  const config = parseConfig(
    `state_dir: ${dir}
nodes:
  - {name: n1, url: "http://127.0.0.1:1", validator: false}
alerts:
  for_polls: 1
  resolve_polls: 1
${alerts}  receivers:
    - {name: am, alertmanager: {url: "${am.url}", resend_interval: 1h}}
`,
    join(dir, 'c.yaml'),
    {},
  );
  const parts = buildComponents(config, createLogger({ level: 'silent', format: 'json' }));
  parts.notifier.start();
  parts.alerts.start();
  parts.silenceMirrors.start();
  return {
    am,
    parts,
    stop: async () => {
      parts.silenceMirrors.stop();
      parts.alerts.stop();
      await parts.notifier.stop();
      await am.close();
    },
  };
}
