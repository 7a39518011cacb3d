/**
 * `telegram:` settings, Alertmanager's `telegram_configs` names: the bot token (a secret: it sits
 * in the Bot API's URL path), inline or from a file; the chat (a user's or group's numeric ID,
 * negative for groups, or `@channelusername`); an optional forum topic; the Bot API server. And,
 * off unless given, the bot's commands (`/status`, `/silence`, `/ack`): who may give them, where.
 */
import { z } from 'zod';
import { secretField, secretValue } from '../../../config/primitives.js';
import { defineReceiverSchema, isCleartextUrl, isHttpUrl, type Problem } from '../primitives.js';

const CHAT_ID = /^(-?\d{1,20}|@[A-Za-z0-9_]{4,64})$/;
/** The Bot API's token shape: the bot's numeric ID, a colon, a secret. */
const TOKEN = /^\d+:[A-Za-z0-9_-]{20,}$/;

export interface TelegramSettings {
  apiUrl: string;
  botToken: string;
  chatId: string;
  messageThreadId?: number;
  /** The bot answers commands (receivers/telegram/commands.ts) from these users only, in these chats only (numeric IDs as text). */
  commands?: { userIds: string[]; chatIds: string[] };
}

/** A numeric Telegram ID (users positive, groups negative), as a number or as text. */
const telegramId = z.union([z.number().int(), z.string().regex(/^-?\d{1,20}$/, 'must be a numeric Telegram ID')]);
const MAX_IDS = 100;

export default defineReceiverSchema({
  kind: 'telegram',
  slice: z
    .strictObject({
      ...secretField('bot_token'),
      chat_id: z.union([z.number().int(), z.string()]).optional().describe('Chat to send to: a user or group ID (groups are negative) or @channelusername.'),
      message_thread_id: z.number().int().positive().optional().describe('Forum topic of a supergroup to send to.'),
      api_url: z.string().prefault('https://api.telegram.org').describe('Bot API server (a self-hosted one).'),
      commands: z
        .strictObject({
          user_ids: z.array(telegramId).min(1).max(MAX_IDS).describe('Telegram user IDs whose commands are answered; everyone else is ignored.'),
          chat_ids: z.array(telegramId).min(1).max(MAX_IDS).optional().describe('Chats whose commands are answered (default: chat_id, when it is numeric).'),
        })
        .optional()
        .describe('Off unless given: the bot answers /status, /silence <target> <duration> [reason] (with --web.enable-admin-api) and /ack <incident>, from these users in these chats only.'),
    })
    .describe('Telegram bot (Bot API sendMessage).'),
  check(s) {
    const problems: Problem[] = [];
    const token = secretValue(s, 'bot_token');
    if (!token) problems.push({ field: 'bot_token', message: 'telegram needs bot_token or bot_token_file' });
    else if (!TOKEN.test(token)) problems.push({ field: 'bot_token', message: 'telegram bot_token must look like 123456789:AA… (from @BotFather)' });
    if (s.chat_id === undefined || !CHAT_ID.test(String(s.chat_id))) problems.push({ field: 'chat_id', message: 'telegram needs a chat_id: a numeric ID (groups are negative) or @channelusername' });
    if (!isHttpUrl(s.api_url)) problems.push({ field: 'api_url', message: 'telegram api_url must be an http(s) URL' });
    if (s.commands && !s.commands.chat_ids && !/^-?\d+$/.test(String(s.chat_id ?? ''))) problems.push({ field: 'commands', message: 'telegram commands need chat_ids when chat_id is a @channelusername (commands come from a group or a private chat)' });
    return problems;
  },
  resolve(s) {
    const botToken = secretValue(s, 'bot_token')!;
    const commands = s.commands ? { userIds: s.commands.user_ids.map(String), chatIds: (s.commands.chat_ids ?? [s.chat_id!]).map(String) } : undefined;
    const settings: TelegramSettings = {
      apiUrl: s.api_url.replace(/\/+$/, ''),
      botToken,
      chatId: String(s.chat_id),
      ...(s.message_thread_id ? { messageThreadId: s.message_thread_id } : {}),
      ...(commands ? { commands } : {}),
    };
    const encoded = encodeURIComponent(botToken);
    return { settings, secrets: encoded === botToken ? [botToken] : [botToken, encoded] };
  },
  cleartext: (s) => (isCleartextUrl(s.apiUrl) ? { field: 'api_url', what: 'an http:// api_url: the bot token (in the URL path) goes out in cleartext' } : undefined),
});
