/** What the service rules share about one poll of a hosted API. */
import type { EndpointObservation, TargetObservation } from '../../model/observation.js';

export function serviceHealth(observation: TargetObservation): EndpointObservation[] {
  return observation.endpoints.filter((e) => e.endpoint === 'health-check' || e.endpoint === 'live-check');
}

/** Our own back-off is not the service's fault: while rate limited, nothing changes. */
export function rateLimited(observation: TargetObservation): boolean {
  return serviceHealth(observation).some((e) => e.reason === 'rate_limited');
}
