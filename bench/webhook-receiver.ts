/**
 * The bench's webhook receiver: a child process (forked by webhooks.ts), so decrypting does not share the gateway's
 * event loop. It listens on `ports` loopback ports (one receiver origin each: the gateway limits the sends open to
 * one origin), decrypts every notification as the published Node receiver does (createDecipheriv, aes-256-gcm),
 * answers 200 when it decrypts and 400 when not, and reports its counts when asked.
 */
import { createDecipheriv } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Start {
  readonly secret: string;
  readonly ports: number;
}

let ok = 0;
let failed = 0;
const servers: Server[] = [];

function decrypt(bodyHex: string, secretHex: string, ivHex: string, tagHex: string): string {
  const decipher = createDecipheriv('aes-256-gcm', Buffer.from(secretHex, 'hex'), Buffer.from(ivHex, 'hex'));
  decipher.setAuthTag(Buffer.from(tagHex, 'hex'));
  return decipher.update(Buffer.from(bodyHex, 'hex'), undefined, 'utf8') + decipher.final('utf8');
}

async function start({ secret, ports }: Start): Promise<string[]> {
  const urls: string[] = [];
  for (let i = 0; i < ports; i++) {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        try {
          const iv = request.headers['x-initialization-vector'];
          const tag = request.headers['x-authentication-tag'];
          if (typeof iv !== 'string' || typeof tag !== 'string') throw new Error('headers missing');
          JSON.parse(decrypt(Buffer.concat(chunks).toString('utf8'), secret, iv, tag));
          ok += 1;
          response.writeHead(200).end();
        } catch {
          failed += 1;
          response.writeHead(400).end();
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`);
  }
  return urls;
}

process.on('message', (message: { start?: Start; stats?: true; reset?: true }) => {
  if (message.start) {
    void start(message.start).then((urls) => process.send?.({ urls }));
  } else if (message.reset) {
    ok = 0;
    failed = 0;
    process.send?.({ ok, failed });
  } else if (message.stats) {
    process.send?.({ ok, failed });
  }
});
process.on('disconnect', () => process.exit(0));
