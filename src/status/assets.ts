/**
 * The status page's stylesheet and script, served from /static/ so the Content-Security-Policy can
 * forbid every inline style and script. The script only re-fetches the page's <main> (rendered and
 * escaped by the server) every few seconds and swaps it in: no client-side templating.
 */
export const STYLESHEET = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1f2328; --muted: #656d76; --line: #d0d7de; --card: #f6f8fa;
  --ok: #1a7f37; --warn: #9a6700; --bad: #cf222e; --pending: #656d76; --link: #0969da; --focus: #0969da; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --muted: #8d96a0; --line: #30363d; --card: #161b22;
    --ok: #3fb950; --warn: #d29922; --bad: #f85149; --pending: #8d96a0; --link: #4493f8; --focus: #4493f8; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }
a { color: var(--link); }
a:focus-visible, button:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 1rem; top: 1rem; background: var(--bg); padding: .5rem; }
header, main, footer { max-width: 80rem; margin: 0 auto; padding: 1rem; }
header { display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; align-items: baseline; border-bottom: 1px solid var(--line); }
header h1 { font-size: 1.3rem; margin: 0; }
.summary { color: var(--muted); }
.paging { font-size: .9rem; color: var(--muted); margin: -.5rem 0 1rem; }
.paging.nobody { color: var(--fg); border: 2px solid var(--bad); border-radius: .4rem; padding: .6rem .8rem; margin: 0 0 1rem; }
.paging.nobody strong { color: var(--bad); }
h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: .45rem .6rem; border-bottom: 1px solid var(--line); }
th { font-size: .85rem; color: var(--muted); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.badge { display: inline-block; white-space: nowrap; font-weight: 600; padding: .05rem .45rem; border-radius: 1rem; border: 1px solid currentColor; font-size: .85rem; }
.badge.healthy, .badge.up, .good { color: var(--ok); } .badge.warning, .warn { color: var(--warn); }
.badge.unhealthy, .badge.unreachable, .badge.down, .badge.critical, .bad { color: var(--bad); } .badge.pending { color: var(--pending); } .badge.silenced, .badge.held { color: var(--muted); border-style: dotted; } .badge.flapping { color: var(--warn); border-style: dashed; }
.chain, td.target a, td.when { white-space: nowrap; }
.error { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .85rem; white-space: pre-wrap; word-break: break-word; }
.muted { color: var(--muted); }
.why { font-size: .85rem; margin-top: .2rem; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .85rem; }
pre { background: var(--card); border: 1px solid var(--line); border-radius: .4rem; padding: .75rem; overflow: auto; max-height: 30rem; white-space: pre-wrap; word-break: break-word; }
ul.checks { margin: 0; padding-left: 1.1rem; }
ul.history { list-style: none; padding: 0; margin: 0; }
ul.history li { padding: .2rem 0; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 0 0 1rem; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; }
details summary { cursor: pointer; }
.empty { color: var(--muted); font-style: italic; }
@media (max-width: 46rem) {
  table.cards thead { display: none; }
  table.cards, table.cards tbody, table.cards tr, table.cards td { display: block; width: 100%; }
  table.cards tr { border: 1px solid var(--line); border-radius: .5rem; margin-bottom: .75rem; padding: .25rem .5rem; }
  table.cards td { border: 0; padding: .25rem 0; }
  table.cards td[data-label]::before { content: attr(data-label) ": "; color: var(--muted); font-size: .8rem; }
  td.num { text-align: left; }
  td.target a { white-space: normal; overflow-wrap: anywhere; }
}
`;

export const SCRIPT = `
(() => {
  const main = document.querySelector('main');
  const status = document.getElementById('refresh-status');
  const every = Number(document.body.dataset.refreshSeconds || '5') * 1000;
  async function refresh() {
    try {
      const url = new URL(location.href);
      url.searchParams.set('fragment', 'main');
      const res = await fetch(url, { headers: { accept: 'text/html' }, credentials: 'same-origin' });
      if (!res.ok) throw new Error('HTTP ' + res.status);
      const html = await res.text();
      if (html !== main.innerHTML) main.innerHTML = html;
      if (status) status.textContent = 'updated ' + new Date().toLocaleTimeString();
    } catch (err) {
      if (status) status.textContent = 'refresh failed: ' + err.message;
    }
  }
  setInterval(refresh, every);
})();
`;

/** A red-triangle mark (Avalanche's colour) with a pulse line. */
export const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><path d="M16 3 30 28H2z" fill="#e84142"/><path d="M7 22h6l2-5 3 8 2-3h5" fill="none" stroke="#fff" stroke-width="2.2" stroke-linejoin="round"/></svg>`;
