/** The one request every receiver's send.ts is handed (SendContext.post and .request): the outcome classified for retries. */
import { ProbeError, type HttpClient } from '../../transport/client.js';
import { backoffSeconds } from '../../transport/rate-limit.js';
import { snippet } from '../../util/text.js';
import { DeliveryError, type OutgoingRequest } from './receiver.js';

const DELIVERY_TIMEOUT_MS = 10_000;

/** Sends a request (POST unless it says otherwise) and classifies the outcome: 2xx done; 408, 429, 5xx and network errors retryable. */
export function poster(http: HttpClient): (request: OutgoingRequest) => Promise<string> {
  return async (request) => {
    let response;
    try {
      response = await http.request({ url: request.url, method: request.method ?? 'POST', headers: request.headers, ...(request.body !== undefined ? { body: request.body } : {}), timeoutMs: DELIVERY_TIMEOUT_MS, ...(request.secrets ? { secrets: request.secrets } : {}) });
    } catch (err) {
      const reason = err instanceof ProbeError && err.reason === 'timeout' ? 'timeout' : 'network';
      throw new DeliveryError(err instanceof Error ? err.message : String(err), true, reason);
    }
    const status = response.status;
    if (status >= 200 && status < 300) return response.body;
    const message = `HTTP ${status}: ${snippet(response.body, request.secrets)}`;
    const body = response.body.slice(0, 4096);
    if (status === 429) throw new DeliveryError(message, true, 'rate_limited', backoffSeconds(response.headers, Date.now()) * 1000, body, status);
    if (status === 408 || status >= 500) {
      const retryAfter = response.headers['retry-after'] !== undefined ? backoffSeconds(response.headers, Date.now()) * 1000 : undefined;
      throw new DeliveryError(message, true, status === 408 ? 'timeout' : 'http_5xx', retryAfter, body, status);
    }
    throw new DeliveryError(message, false, 'http_4xx', undefined, body, status);
  };
}

