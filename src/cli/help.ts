/** The command line's help: one overview, and one text per subcommand (`avahealth CMD --help`). */
import { VERSION } from '../version.js';

/** Every option's description starts in one column per help text: the log options follow it. */
function logOptions(column: number, levelDefault = 'info'): string {
  const option = (name: string, text: string) => `  ${name.padEnd(column - 2)}${text}`;
  return [
    option('--log.level LEVEL', `trace|debug|info|warn|error|fatal|silent (default ${levelDefault});`),
    `${' '.repeat(column)}debug also prints the stack of an unexpected error`,
    option('--log.format FORMAT', 'json|pretty (default json)'),
  ].join('\n');
}

/** The daemon's options: in `run --help` and in the overview. */
const RUN_OPTIONS = `  --config FILE                   config file (or set AVAHEALTH_CONFIG)
  --listen HOST:PORT              override listen: from the config
  --web.listen-address HOST:PORT  the same, under the Prometheus exporters' name
${logOptions(34)}
  --web.enable-lifecycle          allow POST /-/reload
  --web.enable-admin-api          allow POST /api/v1/silences and DELETE /api/v1/silences/{id}
  --web.config.file FILE          TLS, basic auth and headers (Prometheus exporter-toolkit format)
  --config.watch                  reload the config when the file changes (SIGHUP and /-/reload always work)
  --shard I/N|auto/N|auto         poll only shard I (0-based) of N, by a stable hash of the target name;
                                  auto/N takes I from the hostname's -<ordinal> (a StatefulSet pod);
                                  auto also reads N from the pod's StatefulSet and restarts on a rescale`;

export const COMMAND_HELP: Record<string, string> = {
  run: `Usage: avahealth [run] --config FILE [options]

Runs the daemon: polls every target, serves /metrics, /-/healthy, /-/ready, the status page on /
and the JSON API under /api/v1/. Stops cleanly on SIGTERM/SIGINT, reloads the config on SIGHUP.

Options:
${RUN_OPTIONS}

Exit: 0 on a clean stop, 1 when it cannot start (config error, address in use, state_dir in use), 2 usage.
`,
  check: `Usage: avahealth check --config FILE [--format text|json|prometheus] [--target NAME]

Every target's verdict, printed as a Nagios/Icinga plugin line (text), JSON or the Prometheus
exposition. When an avahealth daemon runs on the config's state_dir, its verdicts are printed (its
open incidents are what on-call was told), and the output says so; for targets that daemon does
not watch (another shard's), the open incidents their shard told Alertmanager, signed with the
fleet's alerts.handover_key; otherwise one round of check's own: every target polled once and judged
by the same alert rules and incident stages as the daemon's. Receivers' secrets are not needed:
check sends nothing.

Options:
  --config FILE            config file (or set AVAHEALTH_CONFIG)
  --format FORMAT          text (default), json or prometheus (always the round's observations)
  --target NAME            print only this target; every target is still polled and judged (the
                           height lag and a validator's scope depend on the others)
${logOptions(27, 'error').split('\n').slice(0, 2).join('\n')}

Exit: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN (also an invalid config: --format json still
prints a JSON document, state UNKNOWN with the error).
`,
  validate: `Usage: avahealth validate --config FILE

Checks a config without running anything; errors as FILE:LINE:COL: message.

Exit: 0 valid, 1 invalid, 2 usage.
`,
  schema: `Usage: avahealth schema

Prints the JSON Schema of the config (for editor completion and validation).
`,
  simulate: `Usage: avahealth simulate [--nodes N] [--port P] [--scenario NAME] [--fleet demo] [--config-out FILE] [--listen HOST:PORT] [--period DURATION]

Serves simulated AvalancheGo nodes and hosted APIs on loopback, with a control API under /sim/.

Options:
  --nodes N                how many nodes (default 3)
  --port P                 port (default 9650, 9651 with --fleet demo, as in demo;
                           0 picks a free one)
  --scenario NAME          the nodes' scenario (default healthy)
  --fleet demo             the demo fleet instead of --nodes/--scenario
  --config-out FILE        write an avahealth config that polls the simulated fleet, and
                           avahealth.schema.json beside it (the config names it for editors)
  --listen HOST:PORT       the daemon's listen: in that config (default 127.0.0.1:9660)
  --period DURATION        the nodes' health-check period (default 3s)

Control API (on the simulator's port):
  GET  /sim/nodes                          the nodes, their scenario, NodeID and URL
  POST /sim/nodes/NAME/scenario            {"scenario":"network-down"} (or any scenario)
                                           {"scenario":"network-down","also":["disk-low"]}:
                                           conditions that hold at the same time
  POST /sim/scenario                       the same body, for every node
                                           validator scenarios also take rewardingStakePercent,
                                           weightedAveragePercent, l1BalanceNAvax, networkId (1),
                                           nextPeriodSeconds (auto-renewing), delegators
                                           (popular-validator), validationStartedAgo,
                                           uptimeRequirement: docs/validators.md, "Try it";
                                           {"validationEndsIn":60} ends the node's validation
                                           period in 60 s (then "was it paid?" is answered);
                                           {"publicIp":"198.51.100.23:9651"} moves the IP
                                           info.getNodeIP answers;
                                           {"version":"avalanchego/1.14.2"}: a build from before
                                           Helicon (its peers drop it), null: the scenario's
                                           build again. Unknown fields are refused
  POST /sim/network                        {"dip":{"connectedPercent":70}}: every node loses its
                                           connection to 30 % of the stake (a network-wide dip);
                                           {"dip":null} ends it; {"uptimeClockFactor":1}:
                                           validation time per real second (1 = real time,
                                           the default; 3600 an hour a second)
                                           {"bootstrapping":{"stakePercent":30}}: upgrade day,
                                           other validators holding 30 % of the stake
                                           bootstrap and ping 0 % for everyone; null ends it
  POST /sim/nodes/NAME/restart             {"l1":true} restarts the node tracking an L1 chain
                                           (a health check named after its blockchain ID);
                                           {"l1":false} drops it; {} restarts it as it was
                                           {"snapshotSeconds":30}: info.uptime reads the
                                           restart's snapshot that long (own stake share)
                                           {"ingressGraceSeconds":600}: the ingress grace it
                                           restarts with (its staking port checked after it)
                                           {"downSeconds":600}: it was stopped that long first
  POST /sim/services/data-api/scenario     {"scenario":"degraded"} (or metrics-api)
An L1 node from the start: --fleet demo has l1-node, l1-validator and l1-only.
`,
  demo: `Usage: avahealth demo [--port P] [--listen HOST:PORT] [--period DURATION] [--web.enable-admin-api]

Starts a simulated fleet and the daemon together, and prints the URLs to open.

Options:
  --port P                        the simulator's port (default 9651; 0 picks a free one)
  --listen, --web.listen-address  the daemon's address (default 127.0.0.1:9660)
  --period DURATION               the nodes' health-check period (default 3s)
  --web.enable-admin-api          allow POST /api/v1/silences and DELETE /api/v1/silences/{id},
                                  to try a silence on the status page
${logOptions(34)}
`,
  'notify-test': `Usage: avahealth notify-test --config FILE --receiver NAME

Sends one test notification to the named receiver of the config.

Exit: 0 delivered, 1 failed, 2 usage.
`,
};

export const HELP = `avahealth ${VERSION}: health monitoring for Avalanche nodes

Usage:
  avahealth [run] --config FILE        run the daemon (metrics on /metrics, status on /)
  avahealth check --config FILE [--format text|json|prometheus] [--target NAME]
                                       every target's verdict (the running daemon's, or one
                                       round); exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN
  avahealth validate --config FILE     check a config; errors as FILE:LINE:COL: message
  avahealth schema                     print the config's JSON Schema
  avahealth simulate [--nodes N] [--port P] [--scenario NAME] [--fleet demo] [--config-out FILE]
                     [--listen HOST:PORT] [--period DURATION]
                                       serve simulated AvalancheGo nodes on loopback
  avahealth demo [--port P] [--listen HOST:PORT] [--period DURATION] [--web.enable-admin-api]
                                       simulated fleet + daemon together; prints the URLs to open
  avahealth notify-test --config FILE --receiver NAME
                                       send a test notification to one receiver

Run avahealth COMMAND --help for the options of one command.

Options of run:
${RUN_OPTIONS}
  --version, --help
`;
