/** The practical limit: a bare undici keep-alive loop that fetches the body and JSON.parses it. */
import { Agent, request } from 'undici';

const [url, durationMs, concurrency] = [process.argv[2]!, Number(process.argv[3]), Number(process.argv[4] ?? 16)];
const agent = new Agent({ keepAliveTimeout: 30_000 });
let polls = 0;
const warmUntil = Date.now() + 1000;
let cpuStart: NodeJS.CpuUsage | undefined;
let counted = 0;
const end = warmUntil + durationMs;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (Date.now() < end) {
      const res = await request(url, { dispatcher: agent });
      JSON.parse(await res.body.text());
      polls++;
      if (!cpuStart && Date.now() >= warmUntil) {
        cpuStart = process.cpuUsage();
        counted = polls;
      }
    }
  }),
);
const cpu = process.cpuUsage(cpuStart);
process.stdout.write(JSON.stringify({ polls: polls - counted, cpuSeconds: (cpu.user + cpu.system) / 1e6 }));
await agent.close();
