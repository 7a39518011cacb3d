/** A minimal server-rendered landing page: every target's state at a glance. Values are escaped. */
import type { TargetStatus } from './status.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const STATE_LABEL: Record<TargetStatus['state'], string> = {
  healthy: '✔ healthy',
  warning: '⚠ warning',
  unhealthy: '✖ unhealthy',
  unreachable: '✖ unreachable',
  pending: '… pending',
};

export function renderLandingPage(targets: TargetStatus[], version: string): string {
  const rows = targets
    .map(
      (t) => `<tr class="${t.state}"><td>${escapeHtml(t.name)}</td><td>${STATE_LABEL[t.state]}</td><td>${escapeHtml(t.summary)}</td><td>${escapeHtml(t.nodeId ?? '')}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>avahealth</title>
<style>
:root{color-scheme:light dark;font-family:system-ui,sans-serif}
body{margin:2rem;max-width:70rem}table{border-collapse:collapse;width:100%}
td,th{padding:.4rem .6rem;border-bottom:1px solid #8884;text-align:left;vertical-align:top}
.healthy td:nth-child(2){color:#1a7f37}.warning td:nth-child(2){color:#9a6700}.unhealthy td:nth-child(2),.unreachable td:nth-child(2){color:#cf222e}
</style></head><body>
<h1>avahealth</h1>
<p><a href="/metrics">/metrics</a> · <a href="/api/v1/status">/api/v1/status</a> · version ${escapeHtml(version)}</p>
<table><thead><tr><th>Target</th><th>State</th><th>Details</th><th>NodeID</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</body></html>
`;
}
