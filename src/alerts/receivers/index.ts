import type { ReceiverKind as Kind } from '../../config/load.js';
import { alertmanager } from './alertmanager.js';
import { discord } from './discord.js';
import { pagerduty } from './pagerduty.js';
import type { ReceiverKind } from './receiver.js';
import { slack } from './slack.js';
import { webhook } from './webhook.js';

export const RECEIVERS: Record<Kind, ReceiverKind> = { webhook, slack, discord, pagerduty, alertmanager };
