/**
 * The status page for humans: the fleet at a glance at `/`, one target in depth at
 * `/targets/{name}`. Server-rendered; every value that came from a node, a service or the config
 * is escaped; works without JavaScript (the script only refreshes <main>).
 */
import type { PagingCheck } from '../alerts/paging.js';
import type { ShownAlert } from '../alerts/types.js';
import type { Silence } from '../alerts/silences.js';
import { alertCounts, type CheckStatus, type EndpointStatus, type TargetStatus } from './status.js';
import { e, timeTag, when } from './html.js';
import { PANELS, type Panel } from './panels.js';

/** Symbol and word: colour is never the only signal. */
const STATE: Record<TargetStatus['state'], string> = {
  healthy: '✔ healthy',
  warning: '▲ warning',
  unhealthy: '✖ unhealthy',
  unreachable: '✖ unreachable',
  pending: '… pending',
};

export interface PageModel {
  version: string;
  now: number;
  targets: TargetStatus[];
  alerts: ShownAlert[];
  silences: Silence[];
  /** Who pages on-call, and whether any critical alert would reach no one. */
  paging?: PagingCheck;
}

/** Who pages: loud (a bordered alert) when a critical alert would reach no one, one muted line otherwise. */
function pagingLine(paging: PagingCheck | undefined): string {
  if (!paging) return '';
  if (paging.problem) return `<p class="paging nobody" role="alert"><strong>⚠ Paging:</strong> ${e(paging.problem)}.</p>`;
  const takers = paging.receivers.length > 0 ? `critical alerts go to ${paging.receivers.map((r) => `<code>${e(r)}</code>`).join(', ')}` : '';
  if (paging.by === 'prometheus') return `<p class="paging">Paging: by the Prometheus rules (<code>deploy/prometheus</code>) through Alertmanager; avahealth cannot see whether they are loaded${takers ? `. Besides, ${takers}` : ''}.</p>`;
  return `<p class="paging">Paging: ${takers}.</p>`;
}

/** The state's badge; a target that answered wrongly shows how (`✖ bad json`), not "unreachable". */
const badge = (state: TargetStatus['state'], failure?: TargetStatus['failure']) =>
  `<span class="badge ${state}">${failure ? `✖ ${failure.replace('_', ' ')}` : STATE[state]}</span>`;

function failingList(checks: CheckStatus[], now: number): string {
  if (checks.length === 0) return '<span class="muted">none</span>';
  return `<ul class="checks">${checks
    .map(
      (c) =>
        `<li><strong>${e(c.name)}</strong>${c.notYetRun ? ' <span class="muted">(not yet run)</span>' : ''} <span class="muted">×${c.contiguousFailures}${c.failingSince ? `, since ${timeTag(c.failingSince, now)}` : ''}</span><div class="error">${e(c.error ?? '')}</div></li>`,
    )
    .join('')}</ul>`;
}

function chainCell(t: TargetStatus): string {
  const chains = Object.entries(t.heights);
  if (chains.length === 0) return '<span class="muted">–</span>';
  return chains
    .map(([chain, height]) => {
      const lag = t.lag[chain];
      const name = chain.length > 12 ? `${chain.slice(0, 8)}…` : chain;
      const behind = lag !== undefined && lag > 0 ? ` <span class="${lag >= 50 ? 'bad' : 'muted'}" title="blocks behind the network">(−${lag})</span>` : '';
      return `<div class="chain"><span title="${e(chain)}">${e(name)}</span> ${height.toLocaleString('en-US')}${behind}</div>`;
    })
    .join('');
}

function readiness(t: TargetStatus): string {
  if (t.ready === undefined) return '<span class="muted">–</span>';
  return t.ready ? '<span class="good">✔ ready</span>' : '<span class="bad">✖ not ready</span>';
}

/**
 * Why the node is in its state, under its badge: what it could not reach, or the incidents the
 * failing checks column does not show (a validator, chain data or height lag alert).
 */
function why(t: TargetStatus): string {
  if (t.state === 'unreachable') return `<div class="error">${e(t.summary)}</div>`;
  if (t.rateLimited) return `<div class="why">${e(t.summary)}</div>`;
  if (t.state === 'healthy' || t.state === 'pending') return '';
  // The failing checks have their own column; the rest (a root cause first) is said here.
  const rest = t.summary.split('; ').filter((part) => !part.startsWith('failing: ')).join('; ');
  return rest ? `<div class="why">${e(rest)}</div>` : '';
}

export function renderFleetMain(model: PageModel): string {
  const nodes = model.targets.filter((t) => t.kind === 'node');
  const services = model.targets.filter((t) => t.kind === 'service');
  const count = (state: TargetStatus['state']) => nodes.filter((t) => t.state === state).length;
  const counts = alertCounts(model.alerts);
  const others = (['held', 'flapping', 'silenced', 'pending'] as const).filter((state) => counts[state] > 0).map((state) => `, ${counts[state]} ${state}`).join('');
  const nodeRows = nodes
    .map(
      (t) => `<tr class="${t.state}">
<td data-label="Node"><a href="/targets/${encodeURIComponent(t.name)}">${e(t.name)}</a>${t.nodeId ? `<div class="muted"><code>${e(t.nodeId)}</code></div>` : ''}</td>
<td data-label="State">${badge(t.state, t.failure)}${why(t)}</td>
<td data-label="Failing checks">${failingList(t.failing, model.now)}</td>
<td data-label="Chains" class="num">${chainCell(t)}</td>
<td data-label="Readiness">${readiness(t)}</td>
<td data-label="Last success">${timeTag(t.lastSuccessAt, model.now)}</td>
</tr>`,
    )
    .join('\n');
  const serviceRows = services
    .map((t) => {
      const health = t.endpoints.filter((x) => x.endpoint === 'health-check' || x.endpoint === 'live-check');
      const components = health.flatMap((x) => x.components ?? []).filter((c, i, all) => all.findIndex((d) => d.name === c.name) === i);
      return `<tr class="${t.state}">
<td data-label="Service"><a href="/targets/${encodeURIComponent(t.name)}">${e(t.name)}</a><div class="muted">${e(t.url)}</div></td>
<td data-label="State">${badge(t.state, t.failure)}${t.state !== 'healthy' ? `<div class="error">${e(t.summary)}</div>` : ''}</td>
<td data-label="Components">${components.length ? components.map((c) => `<span class="badge ${c.up ? 'up' : 'down'}">${c.up ? '✔' : '✖'} ${e(c.name)}</span>`).join(' ') : '<span class="muted">–</span>'}</td>
<td data-label="Last success">${timeTag(t.lastSuccessAt, model.now)}</td>
</tr>`;
    })
    .join('\n');
  return `<p class="summary" role="status">${nodes.length} node${nodes.length === 1 ? '' : 's'}: ${count('healthy')} healthy, ${count('warning')} warning, ${count('unhealthy')} unhealthy, ${count('unreachable')} unreachable${count('pending') ? `, ${count('pending')} pending` : ''} · ${services.length} service${services.length === 1 ? '' : 's'} · ${counts.firing} alert${counts.firing === 1 ? '' : 's'} firing${others}</p>
${pagingLine(model.paging)}
<section aria-labelledby="nodes"><h2 id="nodes">Nodes</h2>
${nodes.length ? `<table class="cards"><thead><tr><th scope="col">Node</th><th scope="col">State</th><th scope="col">Failing checks</th><th scope="col" class="num">Height (lag)</th><th scope="col">Readiness</th><th scope="col">Last success</th></tr></thead><tbody>
${nodeRows}
</tbody></table>` : '<p class="empty">No nodes configured.</p>'}</section>
${services.length ? `<section aria-labelledby="services"><h2 id="services">Hosted services</h2><table class="cards"><thead><tr><th scope="col">Service</th><th scope="col">State</th><th scope="col">Components</th><th scope="col">Last success</th></tr></thead><tbody>
${serviceRows}
</tbody></table></section>` : ''}
${renderAlerts(model)}`;
}

function alertBadge(a: PageModel['alerts'][number]): string {
  if (a.state === 'silenced' && a.silencedBy) {
    const by = a.silencedBy;
    return `<span class="badge silenced" title="notifications held by ${e(by.id)}">⊘ silenced (${e(a.severity)})</span><div class="muted">by <code>${e(by.id)}</code> until ${e(when(by.endsAt / 1000))}${by.comment ? ` — ${e(by.comment)}` : ''}</div>`;
  }
  if (a.state === 'held') return `<span class="badge held" title="held back by ${e(a.inhibitedBy)}: the root cause pages, this symptom does not">‖ held (${e(a.severity)})</span><div class="muted">by <code>${e(a.inhibitedBy)}</code></div>`;
  if (a.state === 'flapping') return `<span class="badge flapping" title="changing state too often: notifications are held until it is stable">↯ flapping (${e(a.severity)})</span>`;
  return a.state === 'firing' ? `<span class="badge ${e(a.severity)}">● ${e(a.severity)}</span>` : `<span class="badge pending">○ ${e(a.state)}</span>`;
}

function renderAlerts(model: PageModel): string {
  // A flap-held alert stays listed (state flapping), even when its last change was a resolve.
  const active = model.alerts.filter((a) => a.state !== 'resolved');
  const rows = active
    .map(
      (a) => `<tr><td data-label="Alert">${e(a.alertname)}</td><td data-label="Target" class="target"><a href="/targets/${encodeURIComponent(a.target)}">${e(a.target)}</a>${a.labels.check || a.labels.component || a.labels.chain ? ` <code>${e(a.labels.check ?? a.labels.component ?? a.labels.chain)}</code>` : ''}</td><td data-label="State">${alertBadge(a)}</td><td data-label="Since" class="when">${timeTag((a.firingSince ?? a.activeSince) / 1000, model.now)}</td><td data-label="Summary">${e(a.annotations.summary)}</td></tr>`,
    )
    .join('\n');
  const silences = model.silences
    .map((s) => `<li><code>${e(Object.entries(s.matchers).map(([k, v]) => `${k}=${v}`).join(', '))}</code> until ${e(when(s.endsAt / 1000))}${s.comment ? ` — ${e(s.comment)}` : ''} <span class="muted">(${e(s.source)})</span></li>`)
    .join('');
  return `<section aria-labelledby="alerts"><h2 id="alerts">Alerts</h2>
${active.length ? `<table class="cards"><thead><tr><th scope="col">Alert</th><th scope="col">Target</th><th scope="col">State</th><th scope="col">Since</th><th scope="col">Summary</th></tr></thead><tbody>${rows}</tbody></table>` : '<p class="empty">No active alerts.</p>'}
<h3>Silences</h3>${silences ? `<ul>${silences}</ul>` : '<p class="empty">No silences.</p>'}</section>`;
}

function checkRows(checks: CheckStatus[], now: number): string {
  return checks
    .map(
      (c) => `<tr class="${c.passing ? 'healthy' : 'unhealthy'}">
<td data-label="Check"><strong>${e(c.name)}</strong></td>
<td data-label="State">${c.passing ? '<span class="badge healthy">✔ passing</span>' : c.notYetRun ? '<span class="badge pending">… not yet run</span>' : '<span class="badge unhealthy">✖ failing</span>'}${c.error ? `<div class="error">${e(c.error)}</div>` : ''}</td>
<td data-label="Failures in a row" class="num">${c.contiguousFailures}</td>
<td data-label="Failing since">${c.failingSince ? timeTag(c.failingSince, now) : '<span class="muted">–</span>'}</td>
<td data-label="Last run">${timeTag(c.lastRun, now)}</td>
<td data-label="Message">${c.message !== undefined ? `<details><summary>message</summary><pre>${e(c.message)}</pre></details>` : '<span class="muted">–</span>'}</td>
</tr>`,
    )
    .join('\n');
}

function endpointSection(x: EndpointStatus, now: number): string {
  const title = `${x.endpoint}${x.view === 'all' ? '' : ` [${x.view}]`}`;
  const state = !x.ok ? `<span class="badge unreachable">✖ ${e(x.reason)}</span> <span class="error">${e(x.error)}</span>` : x.healthy === false ? '<span class="badge unhealthy">✖ unhealthy</span>' : '<span class="badge healthy">✔ ok</span>';
  const checks = x.checks?.length ? `<table class="cards"><thead><tr><th scope="col">Check</th><th scope="col">State</th><th scope="col" class="num">Failures in a row</th><th scope="col">Failing since</th><th scope="col">Last run</th><th scope="col">Message</th></tr></thead><tbody>${checkRows(x.checks, now)}</tbody></table>` : '';
  const components = x.components?.length ? `<ul>${x.components.map((c) => `<li><span class="badge ${c.up ? 'up' : 'down'}">${c.up ? '✔' : '✖'} ${e(c.name)}</span> ${e(c.status)}${c.message ? ` — <span class="error">${e(c.message)}</span>` : ''}</li>`).join('')}</ul>` : '';
  return `<section><h3>${e(title)} ${state}</h3><p class="muted">HTTP ${e(x.httpStatus ?? '–')} · ${(x.durationSeconds * 1000).toFixed(1)} ms · polled ${timeTag(x.at, now)} · last success ${timeTag(x.lastSuccessAt, now)}</p>${checks}${components}</section>`;
}

/** Each source's panel of the target (status/panels.ts), in registry order. */
function panelSections(target: TargetStatus, now: number): string {
  return Object.entries(PANELS)
    .map(([name, panel]) => {
      const model = target[name as keyof typeof PANELS];
      return model === undefined ? '' : (panel as Panel<unknown>).html(model, now);
    })
    .join('\n');
}

export function renderTargetMain(target: TargetStatus, raw: string | undefined, model: PageModel): string {
  const labels = Object.entries(target.labels).map(([k, v]) => `<code>${e(k)}=${e(v)}</code>`).join(' ');
  const history = target.history.length
    ? `<ul class="history">${target.history.map((h) => `<li class="${h.good ? 'good' : 'bad'}">${h.good ? '✔' : '✖'} ${timeTag(h.at, model.now)} — ${e(h.text)}</li>`).join('')}</ul>`
    : '<p class="empty">No changes seen since avahealth started.</p>';
  const alerts = model.alerts.filter((a) => a.target === target.name);
  return `<p><a href="/">← all targets</a></p>
<h2>${e(target.name)} ${badge(target.state, target.failure)}</h2>
<p class="muted">${e(target.url)}${target.nodeId ? ` · <code>${e(target.nodeId)}</code>` : ''}${labels ? ` · ${labels}` : ''}${target.ready !== undefined ? ` · ${target.ready ? 'ready' : 'not ready'}` : ''}</p>
${target.state !== 'healthy' ? `<p class="error">${e(target.summary)}</p>` : ''}
<section aria-labelledby="changes"><h2 id="changes">Recent changes</h2>${history}</section>
${alerts.length ? `<section><h2>Alerts</h2><ul>${alerts.map((a) => `<li><strong>${e(a.alertname)}</strong> ${alertBadge(a)}: ${e(a.annotations.summary)}</li>`).join('')}</ul></section>` : ''}
${panelSections(target, model.now)}
<section aria-labelledby="endpoints"><h2 id="endpoints">Endpoints and checks</h2>${target.endpoints.map((x) => endpointSection(x, model.now)).join('\n')}</section>
<section aria-labelledby="raw"><h2 id="raw">Last response</h2>${raw !== undefined ? `<details><summary>raw body (secrets redacted)</summary><pre>${e(raw)}</pre></details>` : '<p class="empty">None yet.</p>'}</section>`;
}

export function renderPage(title: string, main: string, version: string, refreshSeconds = 5): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(title)}</title>
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/static/avahealth.css">
<script src="/static/avahealth.js" defer></script>
</head><body data-refresh-seconds="${refreshSeconds}">
<a class="skip" href="#main">Skip to content</a>
<header><h1><a href="/">avahealth</a></h1><span class="muted">${e(title === 'avahealth' ? 'fleet status' : title)}</span><span id="refresh-status" class="muted" aria-live="polite"></span></header>
<main id="main">${main}</main>
<footer class="muted">avahealth ${e(version)} · <a href="/metrics">metrics</a> · <a href="/api/v1/status">status JSON</a> · <a href="/api/v1/alerts">alerts JSON</a></footer>
</body></html>
`;
}
