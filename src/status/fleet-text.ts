/**
 * The fleet in a few lines of plain text, for a chat (Telegram's /status): how many targets in
 * each state and how many alerts, then the targets that are not healthy, worst first, each with
 * its summary (the page's words), and the page to open.
 */
import { cutText, wellFormed } from '../util/text.js';
import { oneLine } from '../util/visible.js';
import type { PageModel } from './page.js';
import { alertCounts, type TargetStatus } from './status.js';

const ORDER: Record<TargetStatus['state'], number> = { unreachable: 0, unhealthy: 1, warning: 2, pending: 3, healthy: 4 };
const ICON: Record<TargetStatus['state'], string> = { unreachable: '🔴', unhealthy: '🔴', warning: '🟠', pending: '⚪', healthy: '🟢' };
const MAX_SUMMARY = 200;

export function fleetText(model: Pick<PageModel, 'targets' | 'alerts'>, link: string, options: { scope?: string; maxLines?: number } = {}): string {
  const { targets } = model;
  const count = (state: TargetStatus['state']) => targets.filter((t) => t.state === state).length;
  const states = (['healthy', 'warning', 'unhealthy', 'unreachable', 'pending'] as const).filter((s) => s === 'healthy' || count(s) > 0).map((s) => `${count(s)} ${s}`);
  const alerts = alertCounts(model.alerts.filter((a) => a.state !== 'resolved'));
  const held = [alerts.silenced ? `${alerts.silenced} silenced` : '', alerts.flapping ? `${alerts.flapping} flapping` : ''].filter(Boolean);
  const head = `${targets.length} target${targets.length === 1 ? '' : 's'}: ${states.join(', ')} · ${alerts.firing} alert${alerts.firing === 1 ? '' : 's'} firing${held.length ? `, ${held.join(', ')}` : ''}`;
  const bad = targets.filter((t) => t.state !== 'healthy').sort((a, b) => ORDER[a.state] - ORDER[b.state] || a.name.localeCompare(b.name));
  const max = options.maxLines ?? 10;
  const lines = bad.slice(0, max).map((t) => `${ICON[t.state]} ${t.name}: ${cutText(oneLine(wellFormed(t.summary)), MAX_SUMMARY)}`);
  if (bad.length > max) lines.push(`… ${bad.length - max} more not shown here`);
  return [head, ...lines, ...(options.scope ? [options.scope] : []), link].join('\n');
}
