/**
 * The read-only view of the daemon's state that the routes serve. The app implements it over the
 * store, the alert engine and the notifier; routes never reach into those themselves.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { StreamedBody } from '../route.js';

export interface MetricsBody {
  contentType: string;
  body: StreamedBody;
  /** e.g. content-encoding when the body was compressed for this scraper. */
  headers?: Record<string, string>;
}

/** GET /api/v1/alerts: the alerts and silences as the API shows them (every time in epoch seconds). */
export interface AlertsView {
  alerts: object[];
  silences: object[];
  queues: Record<string, number>;
}

export interface StateView {
  /** The first poll round is complete. */
  ready(): boolean;
  /** How far behind its schedule the scheduler is (0 when on time). */
  schedulerLagMs(): number;
  /** The exposition for one scrape (the request's headers say what the scraper accepts). */
  metrics(headers: IncomingHttpHeaders): Promise<MetricsBody>;
  /** GET /api/v1/status. */
  status(): object;
  /** GET /api/v1/targets/{name}; undefined when there is no such target. */
  target(name: string): object | undefined;
  alerts(): AlertsView;
}
