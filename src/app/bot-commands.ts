/**
 * The Telegram receivers' bot commands (alerts/receivers/telegram/commands.ts), kept in step with
 * the config: one poller per receiver with `commands`, on one replica only (no `--shard`, or
 * shard 0), which says in /status whose targets it sees. What a command does is the daemon's:
 * the page's view for /status, the admin API's silence, the engine's acknowledgement.
 */
import type { AlertEngine } from '../alerts/engine.js';
import { TelegramCommands, type CommandActions } from '../alerts/receivers/telegram/commands.js';
import type { ReceiverOf } from '../alerts/receivers/schemas.js';
import type { Config } from '../config/load.js';
import type { Logger } from '../log.js';
import type { HttpClient } from '../transport/client.js';

/** One incident as an answer names it: "validator-1 AvalancheCheckFailing C (critical)". */
const named = (s: { target: string; alertname: string; labels: Record<string, string>; severity: string }) => {
  const subject = s.labels.check ?? s.labels.component ?? s.labels.chain ?? s.labels.validation_id;
  return `${s.target} ${s.alertname}${subject ? ` ${subject}` : ''} (${s.severity})`;
};

/** The answer to /ack: what was acknowledged, and which ids named nothing (or several). */
export function ackAnswer(result: ReturnType<AlertEngine['acknowledge']>, scope: string | undefined): string {
  const lines: string[] = [];
  if (result.acknowledged.length > 0) lines.push(`Acknowledged ${result.acknowledged.map(named).join('; ')}: no more reminders until it resolves or escalates.`);
  if (result.unknown.length > 0) lines.push(`No firing incident${scope ? ' of this shard' : ''} has an id starting with ${result.unknown.join(', ')}.`);
  if (result.ambiguous.length > 0) lines.push(`Several incidents have an id starting with ${result.ambiguous.join(', ')}: give more of it.`);
  return lines.join('\n');
}

export class BotCommands {
  private readonly bots = new Map<string, TelegramCommands>();

  constructor(
    private readonly http: HttpClient,
    private readonly actions: CommandActions,
    /** Whether this replica reads the bots' updates (one replica of a sharded fleet does). */
    private readonly polls: boolean,
    private readonly log: Logger,
  ) {}

  /** Starts a poller for each Telegram receiver with commands, stops those gone or changed. */
  setConfig(config: Config): void {
    const wanted = new Map<string, ReceiverOf<'telegram'>>();
    if (this.polls) {
      for (const r of config.alerts.receivers) if (r.kind === 'telegram' && r.settings.commands) wanted.set(`${r.name}\u0000${JSON.stringify(r.settings)}`, r);
    }
    for (const [key, bot] of this.bots) {
      if (wanted.has(key)) continue;
      this.bots.delete(key);
      void bot.stop();
    }
    for (const [key, receiver] of wanted) {
      if (this.bots.has(key)) continue;
      const bot = new TelegramCommands(receiver, this.http, this.actions, this.log);
      this.bots.set(key, bot);
      bot.start();
      this.log.info({ receiver: receiver.name, chats: receiver.settings.commands!.chatIds.length, users: receiver.settings.commands!.userIds.length }, 'telegram commands on: /status, /silence, /ack');
    }
  }

  async stop(): Promise<void> {
    const bots = [...this.bots.values()];
    this.bots.clear();
    await Promise.all(bots.map((b) => b.stop()));
  }
}
