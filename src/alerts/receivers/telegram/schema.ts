/**
 * `telegram:` settings, Alertmanager's `telegram_configs` names: the bot token (a secret: it sits
 * in the Bot API's URL path), inline or from a file; the chat (a user's or group's numeric ID,
 * negative for groups, or `@channelusername`); an optional forum topic; the Bot API server.
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
}

export default defineReceiverSchema({
  kind: 'telegram',
  slice: z
    .strictObject({
      ...secretField('bot_token'),
      chat_id: z.union([z.number().int(), z.string()]).optional().describe('Chat to send to: a user or group ID (groups are negative) or @channelusername.'),
      message_thread_id: z.number().int().positive().optional().describe('Forum topic of a supergroup to send to.'),
      api_url: z.string().prefault('https://api.telegram.org').describe('Bot API server (a self-hosted one).'),
    })
    .describe('Telegram bot (Bot API sendMessage).'),
  check(s) {
    const problems: Problem[] = [];
    const token = secretValue(s, 'bot_token');
    if (!token) problems.push({ field: 'bot_token', message: 'telegram needs bot_token or bot_token_file' });
    else if (!TOKEN.test(token)) problems.push({ field: 'bot_token', message: 'telegram bot_token must look like 123456789:AA… (from @BotFather)' });
    if (s.chat_id === undefined || !CHAT_ID.test(String(s.chat_id))) problems.push({ field: 'chat_id', message: 'telegram needs a chat_id: a numeric ID (groups are negative) or @channelusername' });
    if (!isHttpUrl(s.api_url)) problems.push({ field: 'api_url', message: 'telegram api_url must be an http(s) URL' });
    return problems;
  },
  resolve(s) {
    const botToken = secretValue(s, 'bot_token')!;
    const settings: TelegramSettings = { apiUrl: s.api_url.replace(/\/+$/, ''), botToken, chatId: String(s.chat_id), ...(s.message_thread_id ? { messageThreadId: s.message_thread_id } : {}) };
    const encoded = encodeURIComponent(botToken);
    return { settings, secrets: encoded === botToken ? [botToken] : [botToken, encoded] };
  },
  cleartext: (s) => (isCleartextUrl(s.apiUrl) ? { field: 'api_url', what: 'an http:// api_url: the bot token (in the URL path) goes out in cleartext' } : undefined),
});
