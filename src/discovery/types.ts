/** What every discovery source yields: a node to poll, named after its address. */
export interface DiscoveredTarget {
  name: string;
  url: string;
  labels: Record<string, string>;
}
