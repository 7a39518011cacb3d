/** The targets of a configuration, nodes first: the one list every component polls, shows and alerts on. */
export function targetsOf<N, S>(config: { readonly nodes: readonly N[]; readonly services: readonly S[] }): (N | S)[] {
  return [...config.nodes, ...config.services];
}
