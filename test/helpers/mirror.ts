/**
 * The daemon's own components (buildComponents) for one node, `n1`, with one `alertmanager`
 * receiver on a local stand-in of Alertmanager's v2 API (every silence made is `am-1`), re-sending
 * once an hour: the silence mirror's own passes (at most 5 s apart) are what a test sees.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildComponents, type Components } from '../../src/app/components.js';
import { parseConfig, type Config } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { startCapture } from './capture.js';

export interface MirrorRig {
  am: Awaited<ReturnType<typeof startCapture>>;
  parts: Components;
  stop(): Promise<void>;
}

/** How the stand-in Alertmanager answers: every silence made as `am-1`, or refused (400), or everything 503 while `down()`. */
export interface StandInAnswers {
  refuse?: boolean;
  down?: () => boolean;
}

/** A local stand-in of Alertmanager's v2 API for the silence mirror. */
export function alertmanagerStandIn({ refuse = false, down = () => false }: StandInAnswers = {}) {
  return startCapture((req) =>
    down()
      ? { status: 503, body: 'down' }
      : !req.path.startsWith('/api/v2/silences')
        ? { status: 200 }
        : req.method === 'GET'
          ? { status: 200, body: '[]' }
          : refuse
            ? { status: 400, body: 'bad matcher' }
            : { status: 200, body: JSON.stringify({ silenceID: 'am-1' }) },
  );
}

/**
 * The config of the rigs: node `n1`, for_polls and resolve_polls of 1, `alerts` (YAML under
 * `alerts:`, indented two spaces) and one `alertmanager` receiver `am` at `url`, re-sending once an
 * hour, with `other` settings (YAML flow entries, each with its leading comma) of the receiver and of
 * its `alertmanager` block.
 */
export function mirrorConfig(dir: string, url: string, alerts: string, other: { receiver?: string; alertmanager?: string } = {}): Config {
  return parseConfig(
    `state_dir: ${dir}
nodes:
  - {name: n1, url: "http://127.0.0.1:1", validator: false}
alerts:
  for_polls: 1
  resolve_polls: 1
${alerts}  receivers:
    - {name: am, alertmanager: {url: "${url}", resend_interval: 1h${other.alertmanager ?? ''}}${other.receiver ?? ''}}
`,
    join(dir, 'c.yaml'),
    {},
  );
}

/** `alerts` is YAML under `alerts:` besides for_polls and resolve_polls of 1 and the receiver (indented two spaces). */
export async function startMirrorRig(alerts: string): Promise<MirrorRig> {
  const am = await alertmanagerStandIn();
  const dir = mkdtempSync(join(tmpdir(), 'avahealth-mirror-'));
  const config = mirrorConfig(dir, am.url, alerts);
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
