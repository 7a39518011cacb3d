/** The shape of a Prometheus rule file's groups, shared by the generated groups and the self-monitoring one. */
export interface Rule {
  record?: string;
  alert?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface RuleGroup {
  name: string;
  interval?: string;
  rules: Rule[];
}
