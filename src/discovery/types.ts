/** What every discovery source yields: a node to poll, named after its address. */
export interface DiscoveredTarget {
  name: string;
  url: string;
  labels: Record<string, string>;
}

/** One read of a source: its targets, problems worth a log line, and what it left out. */
export interface SourceAnswer {
  targets: DiscoveredTarget[];
  problems: string[];
  /** Label names left out because avahealth sets them itself (or they are not label names). */
  droppedLabels: string[];
  /** Addresses that are not `host[:port]`, left out (each is also among the problems). */
  invalidAddresses: number;
}
