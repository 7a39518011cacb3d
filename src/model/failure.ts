/** Why a probe failed: the `reason` label of avahealth_probe_failures_total. */
export const FAILURE_REASONS = [
  'timeout',
  'connect',
  'dns',
  'tls',
  'http_status',
  'too_large',
  'bad_json',
  'bad_shape',
  'rpc_error',
  'rate_limited',
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];
