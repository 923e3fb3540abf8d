import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A minimal SMTP server on 127.0.0.1 that records every message. `mode` makes it refuse
 * (554 on DATA) or hang (never greet) to test retries.
 */
export interface FakeSmtp {
  url: string;
  messages: Array<{ from: string; to: string[]; data: string }>;
  mode: 'ok' | 'refuse' | 'hang';
  close(): Promise<void>;
}

export async function startFakeSmtp(): Promise<FakeSmtp> {
  const sockets = new Set<net.Socket>();
  const fake: FakeSmtp = {
    url: '',
    messages: [],
    mode: 'ok',
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    if (fake.mode === 'hang') return;
    let from = '';
    let to: string[] = [];
    let inData = false;
    let data = '';
    let buffer = '';
    const reply = (s: string) => socket.write(`${s}\r\n`);
    reply('220 fake-smtp ready');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      let i: number;
      while ((i = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            if (fake.mode === 'refuse') {
              reply('554 refused');
            } else {
              fake.messages.push({ from, to, data });
              reply('250 queued');
            }
            data = '';
          } else data += `${line.startsWith('..') ? line.slice(1) : line}\n`;
          continue;
        }
        const cmd = line.slice(0, 4).toUpperCase();
        if (cmd === 'EHLO' || cmd === 'HELO') reply('250 fake-smtp');
        else if (cmd === 'MAIL') {
          from = line;
          to = [];
          reply('250 ok');
        } else if (cmd === 'RCPT') {
          to.push(line);
          reply('250 ok');
        } else if (cmd === 'DATA') {
          inData = true;
          reply('354 go ahead');
        } else if (cmd === 'QUIT') {
          reply('221 bye');
          socket.end();
        } else if (cmd === 'RSET' || cmd === 'NOOP') reply('250 ok');
        else reply('502 not implemented');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `smtp://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
