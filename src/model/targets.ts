/** The targets of a configuration, nodes first: the one list every component polls, shows and alerts on. */
export function targetsOf<N, S>(config: { readonly nodes: readonly N[]; readonly services: readonly S[] }): (N | S)[] {
  return [...config.nodes, ...config.services];
}

const indexes = new WeakMap<object, Map<string, unknown>>();

/** The target called `name`, by a map built once per config object (a lookup per store update, not a scan of the fleet). */
export function targetNamed<N extends { name: string }, S extends { name: string }>(
  config: { readonly nodes: readonly N[]; readonly services: readonly S[] },
  name: string,
): N | S | undefined {
  let index = indexes.get(config);
  if (!index) indexes.set(config, (index = new Map(targetsOf(config).map((t) => [t.name, t]))));
  return index.get(name) as N | S | undefined;
}
