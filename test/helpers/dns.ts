/** A real DNS server on loopback answering SRV and A queries from a table (for discovery tests). */
import { createSocket, type Socket } from 'node:dgram';
import * as dnsPacket from 'dns-packet';

export interface DnsRecords {
  srv: Record<string, Array<{ target: string; port: number }>>;
  a: Record<string, string[]>;
}

export async function startDns(records: DnsRecords): Promise<{ server: Socket; address: string }> {
  const server = createSocket('udp4');
  server.on('message', (message, remote) => {
    const query = dnsPacket.decode(message);
    const question = query.questions![0]!;
    const answers: dnsPacket.Answer[] = [];
    if (question.type === 'SRV') {
      for (const r of records.srv[question.name] ?? []) answers.push({ type: 'SRV', name: question.name, ttl: 5, data: { target: r.target, port: r.port, priority: 10, weight: 10 } });
    } else if (question.type === 'A') {
      for (const ip of records.a[question.name] ?? []) answers.push({ type: 'A', name: question.name, ttl: 5, data: ip });
    }
    const reply = dnsPacket.encode({ id: query.id, type: 'response', flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE, questions: query.questions, answers });
    server.send(reply, remote.port, remote.address);
  });
  await new Promise<void>((resolve) => server.bind(0, '127.0.0.1', resolve));
  return { server, address: `127.0.0.1:${server.address().port}` };
}
